"""Store KV rows compactly: KIVI-style asymmetric int8 (K per channel, V per token) or exact fp32.

KV rows have the contract layout (T, L, 2, H, D). K has a few large, persistent outlier channels, so it is
quantized per channel (one scale/zero per (L, H, D) over a group of `group` tokens); V has no such channels and
its error matters per token (it is mixed by the attention weights), so it is quantized per token (one
scale/zero per (t, L, H) over D) [KIVI, Liu et al. 2024]. Scales and zero points are fp16, the zero rounded
down and the scale up, and the codes are computed against those rounded values: no code clips, and the
dequantization error of every element is at most half a step (scale / 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FORMATS = ("int8", "fp32")


@dataclass(frozen=True)
class QuantKV:
    """int8 KV rows: codes plus fp16 scale / zero (value = code * scale + zero)."""

    k_codes: np.ndarray  # (T, L, H, D) uint8
    k_scale: np.ndarray  # (G, L, H, D) float16, G = ceil(T / group)
    k_zero: np.ndarray  # (G, L, H, D) float16
    v_codes: np.ndarray  # (T, L, H, D) uint8
    v_scale: np.ndarray  # (T, L, H, 1) float16
    v_zero: np.ndarray  # (T, L, H, 1) float16
    group: int

    @property
    def n_tokens(self) -> int:
        return self.k_codes.shape[0]

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.k_codes, self.k_scale, self.k_zero, self.v_codes, self.v_scale,
                                       self.v_zero))


def encoded_nbytes(n_tokens: int, L: int, H: int, D: int, fmt: str, group: int = 16) -> int:
    """Return the exact bytes `encode` will hold for n_tokens rows (known before allocating anything)."""
    if fmt == "fp32":
        return n_tokens * L * 2 * H * D * 4
    if fmt != "int8":
        raise ValueError(f"unknown KV format {fmt!r}; use one of {FORMATS}")
    groups = -(-n_tokens // group)
    return 2 * n_tokens * L * H * D + 2 * 2 * groups * L * H * D + 2 * 2 * n_tokens * L * H


def _min_scale(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return fp16 (scale, zero) mapping [lo, hi] onto 0..255 (zero rounded down, scale up: nothing clips)."""
    zero = lo.astype(np.float16)
    low = zero.astype(np.float32) > lo
    zero[low] = np.nextafter(zero[low], np.float16(-np.inf))
    span = hi - zero.astype(np.float32)
    scale = np.maximum(span * (1.0 / 255.0), 2.0 ** -24).astype(np.float16)
    short = scale.astype(np.float32) * 255.0 < span
    scale[short] = np.nextafter(scale[short], np.float16(np.inf))
    return scale, zero


def _codes(x: np.ndarray, scale: np.ndarray, zero: np.ndarray) -> np.ndarray:
    q = x - zero.astype(np.float32)
    q *= 1.0 / scale.astype(np.float32)
    np.rint(q, out=q)
    np.clip(q, 0, 255, out=q)
    return q.astype(np.uint8)


def quantize(kv: np.ndarray, group: int = 16) -> QuantKV:
    """Quantize KV rows (T, L, 2, H, D) float32 to int8 (K per channel per token group, V per token)."""
    T, L, _, H, D = kv.shape
    k, v = kv[:, :, 0], kv[:, :, 1]  # (T, L, H, D)
    G = -(-T // group)
    k_scale = np.empty((G, L, H, D), np.float16)
    k_zero = np.empty((G, L, H, D), np.float16)
    k_codes = np.empty((T, L, H, D), np.uint8)
    for g in range(G):
        part = k[g * group:(g + 1) * group]
        k_scale[g], k_zero[g] = _min_scale(part.min(axis=0), part.max(axis=0))
        k_codes[g * group:(g + 1) * group] = _codes(part, k_scale[g], k_zero[g])
    v_scale, v_zero = _min_scale(v.min(axis=-1, keepdims=True), v.max(axis=-1, keepdims=True))
    return QuantKV(k_codes, k_scale, k_zero, _codes(v, v_scale, v_zero), v_scale, v_zero, group)


def dequantize(q: QuantKV, out: np.ndarray) -> None:
    """Write the float32 rows of q into out (T, L, 2, H, D) (e.g. a slice of the hot buffer)."""
    T = q.n_tokens
    for g in range(q.k_scale.shape[0]):
        rows = slice(g * q.group, min((g + 1) * q.group, T))
        np.multiply(q.k_codes[rows], q.k_scale[g].astype(np.float32), out=out[rows, :, 0])
        out[rows, :, 0] += q.k_zero[g].astype(np.float32)
    np.multiply(q.v_codes, q.v_scale.astype(np.float32), out=out[:, :, 1])
    out[:, :, 1] += q.v_zero.astype(np.float32)


def encode(kv: np.ndarray, fmt: str, group: int = 16) -> QuantKV | np.ndarray:
    """Return a stored copy of KV rows (T, L, 2, H, D) in format fmt ('int8' or 'fp32')."""
    if fmt == "fp32":
        return np.array(kv, dtype=np.float32, copy=True)
    if fmt == "int8":
        return quantize(kv, group)
    raise ValueError(f"unknown KV format {fmt!r}; use one of {FORMATS}")


def decode(stored: QuantKV | np.ndarray, out: np.ndarray) -> None:
    """Write stored KV rows into out (T, L, 2, H, D) float32."""
    if isinstance(stored, QuantKV):
        dequantize(stored, out)
    else:
        out[...] = stored
