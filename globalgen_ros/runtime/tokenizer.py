"""Load tokenizer.json and encode/decode text safely (no torch)."""

from __future__ import annotations

import re
from pathlib import Path

from tokenizers import Tokenizer as HFTokenizer

from globalgen_ros.runtime.format import SPECIAL_TOKENS

SURROGATES = re.compile("[\ud800-\udfff]")


class TokenizerError(ValueError):
    """tokenizer.json is missing, unreadable, or lacks the special tokens of the contract."""


def clean_text(text: str | bytes) -> str:
    """Return valid text: undecodable bytes and lone surrogates become U+FFFD, '<|' cannot form special tokens."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    text = SURROGATES.sub("\ufffd", text)
    return text.replace("\x00", "").replace("<|", "< |")


class Tokenizer:
    """Byte-level BPE with the special tokens of docs/architecture.md at ids 0..8."""

    def __init__(self, path: str | Path | None = None, *, hf: HFTokenizer | None = None):
        if hf is None:
            try:
                hf = HFTokenizer.from_file(str(path))
            except Exception as e:  # noqa: BLE001 - tokenizers raises a bare Exception on a bad file
                raise TokenizerError(f"{path}: cannot load tokenizer ({e}); restore or re-export the model") from None
        self.hf = hf
        for i, tok in enumerate(SPECIAL_TOKENS):
            if hf.token_to_id(tok) != i:
                raise TokenizerError(f"{path or 'tokenizer'}: special token {tok} must have id {i}")
        (self.bos, self.user, self.assistant, self.intent, self.slot, self.value, self.reply, self.end,
         self.pad) = range(len(SPECIAL_TOKENS))
        self.vocab_size = hf.get_vocab_size()
        self.digit_ids = [hf.token_to_id(str(d)) for d in range(10)]
        self.point_id = hf.token_to_id(".")  # the decimal point of a number value ("1.5"); None if not one token
        self._byte_of = {ch: b for b, ch in _bytes_to_unicode().items()}

    def encode(self, text: str | bytes) -> list[int]:
        """Encode untrusted text (user words, replies): never yields special tokens."""
        return self.hf.encode(clean_text(text), add_special_tokens=False).ids

    def encode_trusted(self, text: str) -> list[int]:
        """Encode text that may contain special tokens (earlier model outputs)."""
        return self.hf.encode(text, add_special_tokens=False).ids

    def decode(self, ids, skip_special: bool = False) -> str:
        return self.hf.decode([int(i) for i in ids], skip_special_tokens=skip_special)

    def token_text(self, token_id: int) -> str:
        return self.decode([token_id])

    def token_bytes(self, token_id: int) -> bytes:
        """Return the raw UTF-8 bytes of a (non-special) token."""
        piece = self.hf.id_to_token(int(token_id)) or ""
        if int(token_id) < len(SPECIAL_TOKENS):
            return piece.encode()
        return bytes(self._byte_of.get(ch, 0x3F) for ch in piece)

    def starts_mid_character(self, token_id: int) -> bool:
        """True if the token begins with a UTF-8 continuation byte (it completes a character begun before it)."""
        b = self.token_bytes(token_id)
        return bool(b) and 0x80 <= b[0] < 0xC0


def _bytes_to_unicode() -> dict[int, str]:
    """The byte -> printable character map of byte-level BPE (GPT-2), as used by tokenizers' ByteLevel."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + list(
        range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs), strict=True))
