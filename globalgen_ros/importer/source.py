"""What an import reads from its source, whatever the form: an HF-style config, HF-named weights, a tokenizer."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch


class SourceError(ValueError):
    """The source is not a LLaMA-family checkpoint this importer can convert; the message says why."""


@dataclass
class ChatInfo:
    """The model's own prompt format: chat template and special tokens (recorded in manifest.json)."""

    template: str | None = None
    bos_token: str | None = None
    eos_token: str | None = None
    eos_token_ids: list[int] = field(default_factory=list)
    add_bos_token: bool = False

    def as_dict(self) -> dict:
        return {"template": self.template, "bos_token": self.bos_token, "eos_token": self.eos_token,
                "eos_token_ids": self.eos_token_ids, "add_bos_token": self.add_bos_token}


@dataclass
class ImportedSource:
    """A checkpoint read into memory: config (HF LlamaConfig keys), state (HF names, float32), tokenizer."""

    kind: str                     # "hf" | "gguf"
    path: Path
    config: dict                  # HF config keys (rope as rope_theta + rope_scaling, v4 style)
    state: dict[str, torch.Tensor]
    tokenizer_json: str           # a `tokenizers` Tokenizer serialised (the content of tokenizer.json)
    chat: ChatInfo
    notes: dict = field(default_factory=dict)  # e.g. the GGUF tensor types, for the manifest


def load_source(path: str | Path) -> ImportedSource:
    """Read an HF model directory or a GGUF file (by what `path` is)."""
    path = Path(path).expanduser()
    if path.is_dir():
        from globalgen_ros.importer.hf_dir import load_hf_dir

        return load_hf_dir(path)
    if path.is_file() and _magic(path) == b"GGUF":
        from globalgen_ros.importer.gguf_file import load_gguf

        return load_gguf(path)
    if not path.exists():
        raise SourceError(f"{path}: no such file or directory")
    raise SourceError(f"{path}: neither a model directory (config.json + weights) nor a GGUF file")


def _magic(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read(4)
