"""What a draft token costs and what it is worth on this machine.

`CostModel`: milliseconds of one decoder forward with n new tokens after P cached ones, measured at start-up (or
loaded from a calibration file), so tree sizes follow the real cost curve of the CPU instead of a fixed budget.
`AcceptanceStats`: running acceptance rates of draft tokens per source and confidence bucket, turning drafter
confidences into the acceptance probabilities the tree sizing maximises over (Sequoia / EAGLE-2 style).
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from globalgen_ros.cache.kv import layer_major_rows
from globalgen_ros.decoding.tree import step_mask

SIZES = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


def cpu_name() -> str:
    """Return the CPU model name (for calibration files and benchmark reports)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
PAST_LENS = (32, 224)


@dataclass
class CostModel:
    """Forward cost table ms[p][s] for P = past_lens[p] and n = sizes[s] new tokens, interpolated in between."""

    sizes: list[int]
    past_lens: list[int]
    ms: list[list[float]]
    machine: str = field(default_factory=cpu_name)
    threads: int = 0

    def cost(self, n: int, past_len: int) -> float:
        """Return the estimated ms of a forward with n new tokens after past_len cached ones."""
        return float(self.costs(np.array([n]), past_len)[0])

    def costs(self, n: np.ndarray, past_len: int) -> np.ndarray:
        """Vectorised cost(): ms for each entry of n (linear extrapolation beyond the table)."""
        sizes = self.sizes
        w = float(np.clip(np.interp(past_len, self.past_lens, np.arange(len(self.past_lens))), 0, len(self.ms) - 1))
        lo, frac = int(w), w - int(w)
        row = np.asarray(self.ms[lo], float)
        if frac:
            row = (1 - frac) * row + frac * np.asarray(self.ms[lo + 1], float)
        out = np.interp(n, sizes, row)
        slope = (row[-1] - row[-2]) / (sizes[-1] - sizes[-2])
        return np.where(n > sizes[-1], row[-1] + slope * (n - sizes[-1]), out)

    def save(self, path: str | os.PathLike) -> None:
        Path(path).write_text(json.dumps(asdict(self), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> CostModel:
        d = json.loads(Path(path).read_text())
        return cls(sizes=d["sizes"], past_lens=d["past_lens"], ms=d["ms"], machine=d.get("machine", ""),
                   threads=d.get("threads", 0))

    @classmethod
    def flat(cls, per_token_ms: float = 1.0, base_ms: float = 1.0) -> CostModel:
        """Return a synthetic linear cost curve (tests, or when measuring is not wanted)."""
        return cls(sizes=list(SIZES), past_lens=[0, 512], ms=[[base_ms + per_token_ms * (s - 1) for s in SIZES]] * 2)


def measure_cost(model, sizes=SIZES, past_lens=PAST_LENS, reps: int = 5, warmup: int = 2) -> CostModel:
    """Time decoder forwards with n new tokens (a causal chain) after P random cached ones."""
    dims = model.dims
    past_lens = sorted({min(p, dims.max_len - max(sizes)) for p in past_lens})
    rng = np.random.default_rng(0)
    kv = layer_major_rows(max(past_lens), dims.kv_row_shape)  # laid out as the hot buffer: read in place
    kv[...] = rng.standard_normal(kv.shape, dtype=np.float32) * 0.1
    table = []
    for past in past_lens:
        row = []
        for n in sizes:
            ids = rng.integers(9, dims.vocab_size, (1, n), dtype=np.int64)
            pos = np.arange(past, past + n, dtype=np.int64)[None]
            mask = step_mask(past, n, np.zeros(0, np.int64))
            for _ in range(warmup):
                model.forward(ids, pos, mask, kv[:past])
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                model.forward(ids, pos, mask, kv[:past])
                times.append((time.perf_counter() - t0) * 1e3)
            row.append(float(np.median(times)))
        table.append(np.maximum.accumulate(row).tolist())  # cost never falls with more tokens
    return CostModel(sizes=list(sizes), past_lens=list(past_lens), ms=table, threads=model.threads)


class AcceptanceStats:
    """Running P(draft token accepted | parent accepted) per (source tag, confidence bucket)."""

    def __init__(self, buckets: int = 10, prior_weight: float = 4.0, max_count: int = 2000):
        self.buckets, self.prior_weight, self.max_count = buckets, prior_weight, max_count
        self.table: dict[tuple[str, int], list[float]] = {}

    def key(self, tag: str, raw: float) -> tuple[str, int]:
        return tag, min(int(raw * self.buckets), self.buckets - 1)

    def estimate(self, key: tuple[str, int], raw: float) -> float:
        """Return the acceptance estimate: observed rate, shrunk towards the drafter's raw confidence."""
        prior = min(max(raw, 0.02), 0.98)
        entry = self.table.get(key)
        if entry is None:
            return prior
        tested, accepted = entry
        return (accepted + self.prior_weight * prior) / (tested + self.prior_weight)

    def record(self, key: tuple[str, int], accepted: bool) -> None:
        entry = self.table.setdefault(key, [0.0, 0.0])
        entry[0] += 1.0
        entry[1] += float(accepted)
        if entry[0] > self.max_count:  # keep adapting: old evidence fades
            entry[0] *= 0.5
            entry[1] *= 0.5

    def summary(self) -> dict[str, float]:
        """Return the acceptance rate per source tag (all buckets together)."""
        out: dict[str, list[float]] = {}
        for (tag, _), (tested, accepted) in self.table.items():
            acc = out.setdefault(tag, [0.0, 0.0])
            acc[0] += tested
            acc[1] += accepted
        return {tag: round(a / t, 3) for tag, (t, a) in sorted(out.items()) if t}


def main(argv: list[str] | None = None) -> int:
    """Measure this machine's forward cost curve and write it as a calibration file."""
    import argparse

    from globalgen_ros.runtime.onnx_model import OnnxModel

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--model-dir", help="model directory (default: $GLOBALGEN_MODEL_DIR or models/default)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--out", required=True, help="calibration JSON (pass to Assistant(calibration=...))")
    args = parser.parse_args(argv)
    cost = measure_cost(OnnxModel(args.model_dir, threads=args.threads), reps=args.reps)
    cost.save(args.out)
    for past, row in zip(cost.past_lens, cost.ms, strict=True):
        print(f"P={past:4d} " + " ".join(f"k={n}:{ms:.2f}" for n, ms in zip(cost.sizes, row, strict=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
