"""A small LLaMA-style decoder (RMSNorm, RoPE, SwiGLU) with multi-token prediction heads.

Parameter names follow Hugging Face `LlamaForCausalLM`, so `model.safetensors` + `config.json` load there.
Forwards: `forward_train` (whole sequences, causal) and `decode` (the ONNX interface of docs/architecture.md: k new
tokens against a past KV cache given per layer, explicit additive mask and positions; `forward` takes the cache
as rows (P, L, 2, H, D) instead).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class LlamaConfig:
    vocab_size: int = 4096
    hidden_size: int = 256
    intermediate_size: int = 688
    num_hidden_layers: int = 6
    num_attention_heads: int = 4
    max_position_embeddings: int = 512
    rms_norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    num_extra_heads: int = 3  # head j predicts token t + 2 + j
    # Imported models (globalgen_ros/importer/); the defaults leave the project's own model as it was.
    num_key_value_heads: int | None = None  # grouped-query attention; None: one K/V head per query head
    rope_scaling: dict | None = None  # {"rope_type": "linear" | "llama3" | "freq_factors", ...}; None: plain RoPE

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def kv_heads(self) -> int:
        return self.num_key_value_heads or self.num_attention_heads

    def to_hf_dict(self, bos_token_id: int, eos_token_id: int, pad_token_id: int) -> dict:
        """Return a Hugging Face LlamaConfig dict (plus our extra-head count)."""
        d = asdict(self)
        del d["num_key_value_heads"]  # written below, where it always was
        if d["rope_scaling"] is None:
            del d["rope_scaling"]
        d.update(
            architectures=["LlamaForCausalLM"], model_type="llama", hidden_act="silu",
            num_key_value_heads=self.kv_heads, head_dim=self.head_dim,
            tie_word_embeddings=False, attention_bias=False, mlp_bias=False, torch_dtype="float16",
            bos_token_id=bos_token_id, eos_token_id=eos_token_id, pad_token_id=pad_token_id,
        )
        return d


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        var = x.pow(2).mean(-1, keepdim=True)
        # x / sqrt(.) rather than x * rsqrt(.): the same value, in the form ONNX Runtime fuses into one
        # SimplifiedLayerNormalization node (fewer nodes per forward: docs/decoding.md).
        return self.weight * (x / torch.sqrt(var + self.eps))


def scaled_inv_freq(inv_freq: torch.Tensor, scaling: dict) -> torch.Tensor:
    """Return RoPE inverse frequencies (D/2,) under a rope scaling of HF's `rope_parameters` (position-only kinds)."""
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "default":
        return inv_freq
    if kind == "linear":
        return inv_freq / float(scaling["factor"])
    if kind == "freq_factors":  # llama.cpp's rope_freqs tensor: frequency i divided by factors[i]
        return inv_freq / torch.tensor(scaling["factors"], dtype=torch.float32, device=inv_freq.device)
    if kind == "llama3":  # transformers' _compute_llama3_parameters
        factor, low, high = (float(scaling[k]) for k in ("factor", "low_freq_factor", "high_freq_factor"))
        old_len = float(scaling["original_max_position_embeddings"])
        wavelen = 2 * math.pi / inv_freq
        scaled = torch.where(wavelen > old_len / low, inv_freq / factor, inv_freq)
        smooth = (old_len / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= old_len / high) & (wavelen <= old_len / low)
        return torch.where(medium, smoothed, scaled)
    raise ValueError(f"rope scaling {kind!r} is not supported (only default, linear, llama3, freq_factors)")


def rope_cos_sin(position_ids: torch.Tensor, head_dim: int, theta: float,
                 scaling: dict | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Return cos, sin of shape (B, T, D) for integer positions (B, T) (HF's rotate-half layout)."""
    steps = torch.arange(0, head_dim, 2, dtype=torch.float32, device=position_ids.device)
    inv_freq = 1.0 / (theta ** (steps / head_dim))
    if scaling is not None:
        inv_freq = scaled_inv_freq(inv_freq, scaling)
    freqs = position_ids.to(torch.float32)[..., None] * inv_freq  # (B, T, D/2)
    emb = torch.cat([freqs, freqs], dim=-1)  # (B, T, D)
    return emb.cos(), emb.sin()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate x (B, H, T, D) by cos/sin (B, T, D)."""
    x1, x2 = x.chunk(2, dim=-1)
    rotated = torch.cat([-x2, x1], dim=-1)
    return x * cos[:, None] + rotated * sin[:, None]


class Attention(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = cfg.num_attention_heads, cfg.kv_heads, cfg.head_dim
        d, d_kv = cfg.hidden_size, cfg.kv_heads * cfg.head_dim
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d_kv, bias=False)
        self.v_proj = nn.Linear(d, d_kv, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)

    def qkv(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, D)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)  # (B, Hkv, T, D)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)
        return apply_rope(q, cos, sin), apply_rope(k, cos, sin), v

    def out(self, y: torch.Tensor) -> torch.Tensor:
        B, H, T, D = y.shape
        return self.o_proj(y.transpose(1, 2).reshape(B, T, H * D))


class MLP(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.up_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.down_proj = nn.Linear(cfg.intermediate_size, cfg.hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.self_attn = Attention(cfg)
        self.mlp = MLP(cfg)
        self.input_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)


class LlamaBody(nn.Module):
    """HF's `model.` submodule: embeddings, layers, final norm."""

    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.num_hidden_layers))
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)


class ExtraHead(nn.Module):
    """Medusa-style head: a residual SiLU block; the shared lm_head turns it into logits."""

    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Linear(dim, dim, bias=False)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + F.silu(self.proj(h))


def grouped_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, past_k: torch.Tensor,
                      past_v: torch.Tensor, mask: torch.Tensor, scale: float) -> torch.Tensor:
    """Grouped-query attention of `decode` whose every output is the same whichever rows share the forward.

    q (1, H, k, D); k, v: (1, Hkv, k, D); past_k, past_v: (P, Hkv, D) as cached; mask: (1, 1, k, P + k)
    additive. Query head h reads K/V head h // G (HF's repeat_kv); the G query heads of a group are stacked as
    rows, so the cache is never repeated. Returns y (1, H, k, D).

    A tree node must get, bit for bit, what it gets under `ar`, where its ancestors are in the cache: on ONNX
    Runtime's CPU kernels a sum over keys does not change when hidden keys (exact zeros) sit between the visible
    ones, but it does change when the keys are split into past and new parts at a different place, when a
    MatMul has one column (a GEMV path), and in Softmax's vectorised sum. So the keys and values are concatenated
    first, scores and value sums are single MatMuls with at least two rows and columns (G >= 2 query rows), and
    the softmax is unnormalised: exp(s - max) @ [V | 1, 1] divides by its own sum over the same keys. What is
    left to the runtime: a verification must not cross a multiple of `EXACT_KEY_BLOCK` keys (the MatMul kernel
    restarts its sums there; `decoding/tree.py` `key_block_room`).
    """
    _, H, n, D = q.shape
    Hkv = k.shape[1]
    g = H // Hkv
    qg = q.reshape(1, Hkv, g * n, D)  # (1, Hkv, G k, D)
    k_all = torch.cat([past_k, k[0].transpose(0, 1)], dim=0).permute(1, 2, 0)[None]  # (1, Hkv, D, P + k)
    v_all = torch.cat([past_v, v[0].transpose(0, 1)], dim=0).transpose(0, 1)[None]  # (1, Hkv, P + k, D)
    scores = (qg @ k_all).view(1, Hkv, g, n, -1) * scale + mask[:, :, None]  # (1, Hkv, G, k, P + k)
    scores = scores.view(1, Hkv, g * n, -1)
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))  # hidden keys: exactly 0
    ones = torch.ones_like(v_all[..., :2])  # (1, Hkv, P + k, 2): two columns, not a GEMV
    y = (e @ v_all) / (e @ ones)[..., :1]  # (1, Hkv, G k, D)
    return y.view(1, H, n, D)


class LlamaWithHeads(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.config = cfg
        self.model = LlamaBody(cfg)
        self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
        self.heads = nn.ModuleList(ExtraHead(cfg.hidden_size) for _ in range(cfg.num_extra_heads))
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
        for head in self.heads:
            nn.init.zeros_(head.proj.weight)  # each head starts as the base next-token head

    def forward_train(self, input_ids: torch.Tensor, dropout: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
        """Return next-token logits (B, T, V) and final hidden states (B, T, d) under a causal mask.

        `dropout` applies to the embeddings and to each residual branch (training only; the export has none)."""
        B, T = input_ids.shape
        pos = torch.arange(T, device=input_ids.device)[None].expand(B, T)
        cos, sin = rope_cos_sin(pos, self.config.head_dim, self.config.rope_theta, self.config.rope_scaling)
        gqa = self.config.kv_heads != self.config.num_attention_heads
        drop = (lambda t: F.dropout(t, dropout, training=True)) if dropout > 0 else (lambda t: t)
        x = drop(self.model.embed_tokens(input_ids))  # (B, T, d)
        for layer in self.model.layers:
            q, k, v = layer.self_attn.qkv(layer.input_layernorm(x), cos, sin)
            y = (F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True) if gqa
                 else F.scaled_dot_product_attention(q, k, v, is_causal=True))  # (B, H, T, D)
            x = x + drop(layer.self_attn.out(y))
            x = x + drop(layer.mlp(layer.post_attention_layernorm(x)))
        h = self.model.norm(x)
        return self.lm_head(h), h

    def head_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Return extra-head logits (..., K, V) for hidden states (..., d)."""
        return torch.stack([self.lm_head(head(hidden)) for head in self.heads], dim=-2)

    def forward(self, input_ids: torch.Tensor, position_ids: torch.Tensor, attention_mask: torch.Tensor,
                past_kv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Decode k new tokens against a cache given as rows past_kv (P, L, 2, H, D); see `decode`."""
        L = self.config.num_hidden_layers
        return self.decode(input_ids, position_ids, attention_mask,
                           [past_kv[:, i, j] for i in range(L) for j in range(2)])

    def decode(self, input_ids: torch.Tensor, position_ids: torch.Tensor, attention_mask: torch.Tensor,
               past: Sequence[torch.Tensor], logit_rows: torch.Tensor | None = None
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Decode k new tokens against a cache (the ONNX interface).

        input_ids, position_ids: (1, k); attention_mask: (1, 1, k, P + k) additive; past: 2L tensors (P, H, D),
        layer i's K then V (one contiguous block each in the hot buffer: the ONNX graph reads them in place;
        H here is the K/V head count, fewer than the query heads under grouped-query attention);
        logit_rows: (r,) the rows whose logits are wanted (None: all; a prompt needs only its last: the output
        layer is a quarter of a token's compute). Returns logits (1, r, V), hidden (1, k, d), new_kv
        (k, L, 2, H, D).
        """
        cos, sin = rope_cos_sin(position_ids, self.config.head_dim, self.config.rope_theta, self.config.rope_scaling)
        scale = 1.0 / math.sqrt(self.config.head_dim)
        x = self.model.embed_tokens(input_ids)  # (1, k, d)
        n_past = past[0].shape[0]
        new_kv = []
        for i, layer in enumerate(self.model.layers):
            q, k, v = layer.self_attn.qkv(layer.input_layernorm(x), cos, sin)  # (1, H, k, D)
            if layer.self_attn.n_kv_heads != layer.self_attn.n_heads:
                y = grouped_attention(q, k, v, past[2 * i], past[2 * i + 1], attention_mask, scale)
            else:
                past_k = past[2 * i].permute(1, 2, 0)[None]  # (1, H, D, P)
                past_v = past[2 * i + 1].permute(1, 0, 2)[None]  # (1, H, P, D)
                # Past and new keys scored apart and the values mixed apart: past K/V are never concatenated
                # with the new ones (a copy of the whole cache per layer and forward).
                scores = torch.cat([q @ past_k, q @ k.transpose(-1, -2)], dim=-1) * scale + attention_mask
                att = torch.softmax(scores, dim=-1)  # (1, H, k, P + k)
                y = att[..., :n_past] @ past_v + att[..., n_past:] @ v  # (1, H, k, D)
            x = x + layer.self_attn.out(y)
            x = x + layer.mlp(layer.post_attention_layernorm(x))
            new_kv.append(torch.stack([k[0].transpose(0, 1), v[0].transpose(0, 1)], dim=1))  # (k, 2, H, D)
        h = self.model.norm(x)
        wanted = h if logit_rows is None else h.index_select(1, logit_rows)  # (1, r, d)
        return self.lm_head(wanted), h, torch.stack(new_kv, dim=1)  # new_kv: (k, L, 2, H, D)

    def num_params(self, include_heads: bool = True) -> int:
        n = sum(p.numel() for p in self.parameters())
        return n if include_heads else n - sum(p.numel() for p in self.heads.parameters())
