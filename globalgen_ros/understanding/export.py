"""Encoder + intent/slot heads -> ONNX (fp32) -> int8 (dynamic, per-channel); accuracy and latency checks.

python -m globalgen_ros.understanding.export --kept runs/nlu/kept_ids.npy --out runs/nlu/onnx_probe
"""

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn
from onnxruntime.quantization import QuantType, quantize_dynamic

from globalgen_ros.understanding.encoder import E5Encoder, load_encoder, mean_pool
from globalgen_ros.understanding.tokenizer import encode, load_tokenizer
from globalgen_ros.understanding.vocab import build_remap, prune_encoder


class IntentSlotHead(nn.Module):
    """Intent logits from mean-pooled states, tag logits per token."""

    def __init__(self, dim: int, n_intents: int, n_tags: int):
        super().__init__()
        self.intent = nn.Linear(dim, n_intents)
        self.tags = nn.Linear(dim, n_tags)

    def forward(self, h: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.intent(mean_pool(h, mask)), self.tags(h)  # (B, C), (B, T, K)


class Understander(nn.Module):
    """Encoder with a pluggable head: head(states (B, T, D), mask (B, T)) -> outputs."""

    def __init__(self, enc: E5Encoder, head: nn.Module):
        super().__init__()
        self.enc, self.head = enc, head

    def forward(self, ids: torch.Tensor, mask: torch.Tensor):
        return self.head(self.enc(ids, mask), mask)


def export_onnx(model: nn.Module, path: Path, opset: int = 17) -> Path:
    """TorchScript-based export with dynamic batch/sequence axes; inputs ids, mask (int64)."""
    ids = torch.ones((2, 8), dtype=torch.long)
    mask = torch.ones((2, 8), dtype=torch.long)
    axes = {
        "ids": {0: "batch", 1: "seq"},
        "mask": {0: "batch", 1: "seq"},
        "intent_logits": {0: "batch"},
        "tag_logits": {0: "batch", 1: "seq"},
    }
    torch.onnx.export(
        model.eval(),
        (ids, mask),
        str(path),
        input_names=["ids", "mask"],
        output_names=["intent_logits", "tag_logits"],
        dynamic_axes=axes,
        opset_version=opset,
        dynamo=False,
    )
    return path


def quantize_int8(src: Path, dst: Path, keep_fp32: tuple[str, ...] = ()) -> Path:
    """Dynamic 8-bit quantization (per-channel uint8 weights, uint8 activations) of MatMul/Gather; MatMuls of layers
    named in keep_fp32 (e.g. "fo", the FFN down-projection whose GELU input has outliers) stay fp32.

    uint8 weights, not int8: ONNX Runtime's AVX2 kernel for u8 x s8 sums pairs of products in 16 bits (VPMADDUBSW
    saturates) while AVX-512 VNNI sums in 32, so int8 weights gave different answers on different x86 CPUs; its
    u8 x u8 kernels widen to 16 bits first and are exact everywhere (docs/model.md, session 18)."""
    names = [n.name for n in onnx.load(str(src), load_external_data=False).graph.node if n.op_type == "MatMul"]
    skip = [n for n in names if any(f"/{k}/" in n for k in keep_fp32)]
    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QUInt8, per_channel=True, nodes_to_exclude=skip)
    return dst


def session(path: Path, threads: int = 1) -> ort.InferenceSession:
    """CPU ORT session with a fixed intra-op thread count."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def compare(model: nn.Module, sess: ort.InferenceSession, ids: torch.Tensor, mask: torch.Tensor) -> dict[str, float]:
    """Max abs logit diff and argmax agreement (tags over real tokens) between torch and ORT."""
    with torch.no_grad():
        ti, tt = (t.numpy() for t in model(ids, mask))
    oi, ot = sess.run(None, {"ids": ids.numpy(), "mask": mask.numpy()})
    m = mask.numpy().astype(bool)
    rel = np.sqrt(((tt - ot)[m] ** 2).mean() / (tt[m] ** 2).mean())
    return {
        "tag_rel_rms": float(rel),
        "intent_maxdiff": float(np.abs(ti - oi).max()),
        "tag_maxdiff": float(np.abs(tt - ot)[m].max()),
        "intent_argmax": float((ti.argmax(-1) == oi.argmax(-1)).mean()),
        "tag_argmax": float((tt.argmax(-1) == ot.argmax(-1))[m].mean()),
        "intent_logit_std": float(ti.std()),
    }


def latency_ms(sess: ort.InferenceSession, ids: np.ndarray, mask: np.ndarray, n: int = 200) -> float:
    """Median wall time (ms) of n single-utterance runs after warm-up."""
    feed = {"ids": ids, "mask": mask}
    for _ in range(10):
        sess.run(None, feed)
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        sess.run(None, feed)
        ts.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(ts)


def utterance_20(tok) -> tuple[torch.Tensor, torch.Tensor]:
    """A 20-token (incl. <s>, </s>, query prefix) utterance."""
    words = "please navigate to the central train station and then call my mother about dinner plans tonight".split()
    for k in range(1, len(words) + 1):
        ids, mask = encode(tok, [" ".join(words[:k])])
        if ids.shape[1] >= 20:
            return ids[:, :20], mask[:, :20]
    raise ValueError("sentence too short")


def build(n_layers: int, kept: np.ndarray | None, n_intents: int, n_tags: int, seed: int = 0):
    """Pretrained encoder (optionally pruned vocab) + random heads; returns (model, remap or None)."""
    enc = load_encoder(n_layers=n_layers)
    pv = None
    if kept is not None:
        pv = build_remap(kept, enc.cfg.vocab_size)
        prune_encoder(enc, pv)
    torch.manual_seed(seed)
    return Understander(enc, IntentSlotHead(enc.cfg.dim, n_intents, n_tags)).eval(), pv


def main() -> None:
    from globalgen_ros.understanding.verify import SENTENCES

    ap = argparse.ArgumentParser()
    ap.add_argument("--kept", type=Path, default=None, help="kept_ids.npy from vocab.py (pruned vocab)")
    ap.add_argument("--out", type=Path, default=Path("runs/nlu/onnx_probe"))
    ap.add_argument("--layers", type=int, nargs="+", default=[12, 6])
    ap.add_argument("--intents", type=int, default=24)
    ap.add_argument("--tags", type=int, default=31)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    tok = load_tokenizer()
    kept = np.load(args.kept) if args.kept else None
    ids, mask = encode(tok, SENTENCES)
    u_ids, u_mask = utterance_20(tok)
    for L in args.layers:
        model, pv = build(L, kept, args.intents, args.tags)
        b_ids, b_u = (pv(ids), pv(u_ids)) if pv else (ids, u_ids)
        tag = f"e5_L{L}" + ("_pruned" if pv else "")
        fp32 = export_onnx(model, args.out / f"{tag}.onnx")
        int8 = quantize_int8(fp32, args.out / f"{tag}.int8.onnx")
        int8_fo32 = quantize_int8(fp32, args.out / f"{tag}.int8_fo32.onnx", keep_fp32=("fo",))
        with torch.no_grad():
            t0 = time.perf_counter()
            for _ in range(50):
                model(b_u, u_mask)
        print(f"[L{L}] torch fp32 1 thread T=20: {1e3 * (time.perf_counter() - t0) / 50:.2f} ms (mean of 50)")
        for path in (fp32, int8, int8_fo32):
            sess = session(path)
            c = compare(model, sess, b_ids, mask)
            ms = latency_ms(sess, b_u.numpy(), u_mask.numpy(), args.runs)
            print(
                f"[L{L}] {path.name}: {path.stat().st_size / 2**20:.1f} MiB  ORT 1 thread T=20 median {ms:.2f} ms  "
                + "  ".join(f"{k}={v:.4g}" for k, v in c.items())
            )


if __name__ == "__main__":
    main()
