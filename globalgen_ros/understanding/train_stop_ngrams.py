"""Train the n-gram stop model (serving/stop_ngrams.py): logistic regression over hashed n-grams, Adam, numpy only.

Data: the spent blind stop lists (urgent lines = stop, near misses = not stop), and as stops or not, by their label,
the corpus's training turns, the decline families not held out, the near-miss pairs and every supplement file (also
those the understanding model has not been trained on yet). Lines that occur with both labels keep the stop lists'
label. Nothing of a list not named in --lists is read.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from globalgen_ros.serving.stop_ngrams import features
from globalgen_ros.understanding.data import (
    NOT_YET_TRAINED,
    SUPPLEMENTS,
    Example,
    corpus_examples,
    decline_examples,
    decline_families,
    held_out_families,
    near_miss_examples,
    stop_list_examples,
    supplement_examples,
)

DIM = 1 << 20


def training_lines(lists: list[str], corpus: Path | None) -> dict[str, int]:
    """Return {text: label} from the corpus (optional), decline data, supplements, and the stop lists (last word)."""
    fams, part_a = decline_families()
    held = held_out_families(part_a)
    examples: list[Example] = corpus_examples(corpus / "train.jsonl") if corpus else []
    examples += decline_examples(fams, [f for f in fams if f not in held]) + near_miss_examples()
    examples += supplement_examples(SUPPLEMENTS + NOT_YET_TRAINED)  # every written supplement, trained or not
    lines = {e.text: int(e.intent == "stop") for e in examples}
    lines.update({e.text: int(e.intent == "stop") for e in stop_list_examples(names=tuple(lists))})
    return lines


def fit(x: list[list[int]], y: np.ndarray, dim: int = DIM, epochs: int = 6, lr: float = 0.05, batch: int = 256,
        l2: float = 1e-7, seed: int = 0) -> tuple[np.ndarray, float]:
    """Minimise mean log loss + l2 * |w|^2 with Adam on minibatches; return (weights (dim,), bias)."""
    w, b = np.zeros(dim, np.float64), 0.0
    m, v, mb, vb, step = np.zeros(dim), np.zeros(dim), 0.0, 0.0, 0
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for epoch in range(epochs):
        order = np.random.RandomState(seed + epoch).permutation(len(x))
        for k in range(0, len(order), batch):
            idx = order[k:k + batch]
            lengths = np.array([len(x[i]) for i in idx])
            flat = np.concatenate([np.asarray(x[i], np.int64) for i in idx])  # (sum of lengths,)
            z = np.add.reduceat(w[flat], np.r_[0, np.cumsum(lengths)[:-1]]) + b  # (B,)
            err = (1.0 / (1.0 + np.exp(-z)) - y[idx]) / len(idx)  # d loss / d z, (B,)
            gw = 2.0 * l2 * w
            np.add.at(gw, flat, np.repeat(err, lengths))
            gb = float(err.sum())
            step += 1
            m, v = beta1 * m + (1 - beta1) * gw, beta2 * v + (1 - beta2) * gw * gw
            mb, vb = beta1 * mb + (1 - beta1) * gb, beta2 * vb + (1 - beta2) * gb * gb
            scale = lr * np.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
            w -= scale * m / (np.sqrt(v) + eps)
            b -= scale * mb / (np.sqrt(vb) + eps)
    return w, b


def train(lists: list[str], corpus: Path | None, dim: int = DIM, epochs: int = 6, seed: int = 0) -> dict:
    """Train on the named lists and the understanding data; return weights, bias and what it saw."""
    lines = training_lines(lists, corpus)
    texts = sorted(lines)
    x = [features(t, dim) for t in texts]
    y = np.array([lines[t] for t in texts], np.float64)
    w, b = fit(x, y, dim, epochs, seed=seed)
    return {"weights": w.astype(np.float16), "bias": b, "lists": lists, "n": len(texts), "stops": int(y.sum())}


def save(model: dict, path: Path) -> None:
    """Write the model (fp16 weights) and what it was trained on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    info = json.dumps({k: model[k] for k in ("lists", "n", "stops")})
    with open(path, "wb") as f:
        np.savez_compressed(f, weights=model["weights"], bias=np.float64(model["bias"]), info=np.array(info))
