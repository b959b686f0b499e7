"""Run an imported model with the project's decoding engine: plain greedy text, any token allowed.

The engine's default free-text rule bars the project's special ids 0..8 (docs/architecture.md); an imported
model has its own vocabulary, so it is decoded under `AnyToken` and stops at its own end-of-sequence id.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from globalgen_ros.decoding.engine import DecodeOptions, Decoder
from globalgen_ros.runtime.artifacts import ModelArtifactError, ModelArtifacts, load_artifacts
from globalgen_ros.runtime.onnx_model import OnnxModel


class AnyToken:
    """The Constraint of decoding/engine.py that allows every token of the vocabulary everywhere."""

    def __init__(self, vocab_size: int):
        self.all = np.arange(vocab_size, dtype=np.int64)
        self.all_set = frozenset(range(vocab_size))

    def start(self) -> None:
        return None

    def allowed(self, state: None) -> np.ndarray:
        return self.all

    def allowed_set(self, state: None) -> frozenset[int]:
        return self.all_set

    def advance(self, state: None, token_id: int) -> None:
        return None

    def forced(self, state: None) -> None:
        return None


def open_imported(model_dir: str | Path, *, decoder_file: str | None = None, threads: int = 1) -> OnnxModel:
    """Open an imported model's decoder (default: the one its manifest names; checked against it; no heads)."""
    artifacts = load_artifacts(model_dir, required=("config.json", "tokenizer.json"))
    return OnnxModel(artifacts, threads=threads, decoder_file=decoder_file)  # None: the manifest's decoder


def end_ids(artifacts: ModelArtifacts) -> list[int]:
    """Return the model's end-of-sequence ids: the chat's eos ids, then config.json's eos_token_id(s)."""
    eos = artifacts.config.get("eos_token_id")
    ids = list(artifacts.manifest.get("chat", {}).get("eos_token_ids") or [])
    ids += [] if eos is None else eos if isinstance(eos, list) else [eos]
    if not ids:
        raise ModelArtifactError(f"{artifacts.root}: no end-of-sequence id (manifest chat.eos_token_ids or "
                                 f"config.json eos_token_id); re-import the model")
    return list(dict.fromkeys(int(i) for i in ids))


def end_id(model: OnnxModel) -> int:
    """Return the model's first end-of-sequence id."""
    return end_ids(model.artifacts)[0]


def plain_decoder(model: OnnxModel, options: DecodeOptions | None = None, **kwargs) -> Decoder:
    """Return a Decoder for `model` that stops at any of its own end-of-sequence tokens."""
    first, *more = end_ids(model.artifacts)
    return Decoder(model, end_id=first, more_ends=tuple(more), options=options, **kwargs)
