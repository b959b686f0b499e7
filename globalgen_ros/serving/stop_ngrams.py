"""Third path of the stop reflex: a logistic model over hashed character and word n-grams, learnt from data.

The word lists (reflex.py) only know the phrasings someone wrote into them; each fresh blind stop list found urgent
speech they missed. This model reads the same transcript in a few tens of microseconds (no network, no language
model): character 1-4-grams, words, word pairs and the first three words, hashed into 2^20 weights (a sum and a
sigmoid). It is trained (understanding/train_stop_ngrams.py) on the urgent lines and near misses of the blind stop
lists that have been spent, plus the corpus and the decline data as non-stops. It fires when its probability reaches
the node parameter reflex.ngram_threshold (0 turns it off); a missing or corrupt file turns it off with a clear error.
"""

from __future__ import annotations

import math
import re
import zlib
from pathlib import Path

import numpy as np

from globalgen_ros.serving.reflex import normalise  # the word lists' folding

FILE = Path("reflex") / "stop_ngrams.npz"  # inside a model directory
DEFAULT_THRESHOLD = 0.95  # reflex.ngram_threshold: a first run simulated on spent lists (docs/model.md, session 38)
MAX_NGRAM_CHARS = 200  # a stop is short; longer text is the language model's
_WORD = re.compile(r"[a-z0-9']+|[^\sa-z0-9']")


class StopNgramsError(ValueError):
    """The n-gram stop model is missing or unreadable; the message names the file."""


def _hash(key: str, dim: int) -> int:
    return zlib.crc32(key.encode("utf-8")) % dim


def features(text: str, dim: int) -> list[int]:
    """Return the sorted distinct hashed features of `text`: char 1-4-grams, words, word pairs, first three words."""
    t = normalise(text)
    s = "^" + re.sub(r"\s+", " ", t) + "$"
    keys = {f"c{n}{s[i:i + n]}" for n in (1, 2, 3, 4) for i in range(len(s) - n + 1)}
    words = ["^", *_WORD.findall(t), "$"]
    keys |= {f"w{w}" for w in words}
    keys |= {f"b{a} {b}" for a, b in zip(words, words[1:], strict=False)}
    keys |= {f"p{i}{w}" for i, w in enumerate(words[1:4])}
    return sorted({_hash(k, dim) for k in keys})


class StopNgrams:
    """A trained n-gram stop model: probability(text) and is_stop(text) at its threshold."""

    def __init__(self, weights: np.ndarray, bias: float, threshold: float):
        self.weights = weights.astype(np.float32)  # (D,)
        self.bias = float(bias)
        self.threshold = threshold

    @classmethod
    def load(cls, path: str | Path, threshold: float) -> StopNgrams:
        """Read weights written by train_stop_ngrams.save; raise StopNgramsError if they are missing or broken."""
        try:
            with np.load(path) as z:
                weights, bias = z["weights"], float(z["bias"])
        except (OSError, KeyError, ValueError) as e:
            raise StopNgramsError(f"{path}: cannot read the n-gram stop model ({e}); retrain it with "
                                  "`globalgen stop-ngrams` or set reflex.ngram_threshold to 0") from None
        if weights.ndim != 1 or weights.size & (weights.size - 1) or not np.isfinite(weights).all():
            raise StopNgramsError(f"{path}: weights are not a finite vector of 2^k values")
        return cls(weights, bias, threshold)

    def probability(self, text: str) -> float:
        """Return P(stop | text) under the model."""
        z = float(self.weights[features(text, self.weights.size)].sum()) + self.bias
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def is_stop(self, text: str) -> bool:
        """Return True if the model's probability reaches the threshold (never for blank or long text)."""
        if self.threshold <= 0.0 or not text.strip() or len(text) > MAX_NGRAM_CHARS:
            return False
        return self.probability(text) >= self.threshold


def load_for(model_dir: str | Path | None, threshold: float) -> StopNgrams | None:
    """Return the n-gram stop model of a model directory (None when threshold is 0); StopNgramsError if unreadable."""
    if threshold <= 0.0:
        return None
    from globalgen_ros.runtime.artifacts import default_model_dir

    return StopNgrams.load(default_model_dir(model_dir) / FILE, threshold)
