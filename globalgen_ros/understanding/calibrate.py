"""Calibrate the understanding model's intent confidence on held-out cases, and choose where it declines.

    python -m globalgen_ros.understanding.calibrate --model models/default/nlu --cases runs/nlu/corpus/eval.jsonl \
        [--plot docs/nlu_reliability.png] [--write]

The cases are split in two by position: the temperature of the intent softmax is fitted (least negative log
likelihood over a grid) on the even ones, and expected calibration error (15 equal-width bins) is reported on the
odd ones, before and after. `min_confidence` is the smallest threshold at which the intents kept (not `none`,
confidence at or above it) are right at least `target` of the time on the fitting half: below it the assistant
declines rather than acts. `--write` stores temperature, min_confidence and the measurements in nlu.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from globalgen_ros.understanding.predict import Understanding

GRID = np.linspace(0.5, 8.0, 151)
THRESHOLDS = np.round(np.arange(0.5, 0.991, 0.01), 2)


def softmax_rows(logits: np.ndarray, temperature: float) -> np.ndarray:
    """(N, C) probabilities of (N, C) logits at a temperature."""
    z = logits / temperature
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def nll(logits: np.ndarray, labels: np.ndarray, temperature: float) -> float:
    """Mean negative log likelihood of the labels."""
    p = softmax_rows(logits, temperature)
    return float(-np.log(p[np.arange(len(labels)), labels] + 1e-12).mean())


def ece(logits: np.ndarray, labels: np.ndarray, temperature: float, bins: int = 15) -> float:
    """Expected calibration error of the top-1 confidence (equal-width bins)."""
    p = softmax_rows(logits, temperature)
    conf, right = p.max(1), p.argmax(1) == labels
    edges = np.linspace(0.0, 1.0, bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            total += m.mean() * abs(right[m].mean() - conf[m].mean())
    return float(total)


def choose_threshold(logits: np.ndarray, labels: np.ndarray, temperature: float, none_id: int,
                     target: float) -> float:
    """Smallest threshold whose kept non-none intents are right at least `target` of the time."""
    p = softmax_rows(logits, temperature)
    conf, pred = p.max(1), p.argmax(1)
    acting = pred != none_id
    for t in THRESHOLDS:
        kept = acting & (conf >= t)
        if kept.any() and (pred[kept] == labels[kept]).mean() >= target:
            return float(t)
    return float(THRESHOLDS[-1])


def reliability_plot(logits: np.ndarray, labels: np.ndarray, temperatures: dict[str, float], path: Path) -> None:
    """Write a reliability diagram (accuracy per confidence bin) for each temperature."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    edges = np.linspace(0.0, 1.0, 11)
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.plot([0, 1], [0, 1], "k:", label="perfect")
    for name, t in temperatures.items():
        p = softmax_rows(logits, t)
        conf, right = p.max(1), p.argmax(1) == labels
        xs, ys = [], []
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            m = (conf > lo) & (conf <= hi)
            if m.any():
                xs.append(conf[m].mean())
                ys.append(right[m].mean())
        ax.plot(xs, ys, "o-", label=f"{name} (T={t:.2f}, ECE {ece(logits, labels, t):.3f})")
    ax.set_xlabel("confidence")
    ax.set_ylabel("accuracy")
    ax.set_title("understanding model: intent reliability (held-out)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def calibrate(u: Understanding, cases: list[dict], target: float = 0.99) -> dict:
    """Fit the temperature on the even cases, measure on the odd ones, choose min_confidence."""
    logits = np.stack([u.run(c["text"])["intent"] for c in cases])  # (N, C)
    labels = np.array([u.layout.intents.index(c["intent"]) for c in cases])  # (N,)
    fit, report = slice(0, None, 2), slice(1, None, 2)
    before = float(u.meta.get("trained_temperature", u.temperature))
    temperature = float(GRID[np.argmin([nll(logits[fit], labels[fit], t) for t in GRID])])
    none_id = u.layout.intents.index("none")
    return {"temperature": temperature, "temperature_before": before, "n_fit": len(labels[fit]),
            "n_report": len(labels[report]),
            "ece_before": ece(logits[report], labels[report], before),
            "ece_after": ece(logits[report], labels[report], temperature),
            "min_confidence": choose_threshold(logits[fit], labels[fit], temperature, none_id, target),
            "target_accuracy_acting": target, "_logits": logits[report], "_labels": labels[report]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=Path("models/default/nlu"))
    ap.add_argument("--cases", type=Path, required=True, help="held-out cases JSONL {text, intent, ...}")
    ap.add_argument("--target", type=float, default=0.99)
    ap.add_argument("--plot", type=Path)
    ap.add_argument("--write", action="store_true", help="store the results in nlu.json")
    args = ap.parse_args(argv)
    u = Understanding(args.model)
    cases = [json.loads(line) for line in args.cases.read_text(encoding="utf-8").splitlines() if line.strip()]
    result = calibrate(u, cases, args.target)
    logits, labels = result.pop("_logits"), result.pop("_labels")
    if args.plot:
        reliability_plot(logits, labels, {"trained": result["temperature_before"],
                                          "calibrated": result["temperature"]}, args.plot)
    if args.write:
        meta_path = args.model / "nlu.json"
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta.setdefault("trained_temperature", meta["temperature"])
        meta.update(temperature=result["temperature"], min_confidence=result["min_confidence"],
                    calibration={**result, "cases": str(args.cases)})
        meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
