"""Run an imported model with the project's decoding engine: plain greedy text, any token allowed.

The engine's default free-text rule bars the project's special ids 0..8 (docs/architecture.md); an imported
model has its own vocabulary, so it is decoded under `AnyToken` and stops at its own end-of-sequence id.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from globalgen_ros.decoding.engine import DecodeOptions, Decoder
from globalgen_ros.runtime.artifacts import load_artifacts
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


def open_imported(model_dir: str | Path, *, decoder_file: str = "model.int8.onnx", threads: int = 1) -> OnnxModel:
    """Open an imported model's decoder (checked against its manifest; it has no heads file)."""
    artifacts = load_artifacts(model_dir, required=("config.json", "tokenizer.json", decoder_file))
    return OnnxModel(artifacts, threads=threads, decoder_file=decoder_file)


def end_id(model: OnnxModel) -> int:
    """Return the model's end-of-sequence id: the chat's first eos id, else config.json's eos_token_id."""
    ids = model.artifacts.manifest.get("chat", {}).get("eos_token_ids") or []
    eos = model.artifacts.config.get("eos_token_id")
    return int(ids[0]) if ids else int(eos[0] if isinstance(eos, list) else eos)


def plain_decoder(model: OnnxModel, options: DecodeOptions | None = None) -> Decoder:
    """Return a Decoder for `model` that stops at its own end-of-sequence token."""
    return Decoder(model, end_id=end_id(model), options=options)
