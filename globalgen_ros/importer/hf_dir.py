"""Read a Hugging Face LLaMA-family model directory: config.json, safetensors or .bin weights, the tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file
from tokenizers import Tokenizer

from globalgen_ros.importer.source import ChatInfo, ImportedSource, SourceError

INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
SINGLE = ("model.safetensors", "pytorch_model.bin")


def read_json(path: Path) -> dict:
    """Return the JSON object in `path`, or {} when there is no such file."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def weight_files(root: Path) -> list[Path]:
    """Return the checkpoint's weight files: the shards named by an index, or the single file."""
    for name in INDEXES:
        if (root / name).is_file():
            return [root / f for f in sorted(set(read_json(root / name)["weight_map"].values()))]
    files = [root / name for name in SINGLE if (root / name).is_file()][:1]
    if not files:
        raise SourceError(f"{root}: no weights (model.safetensors, pytorch_model.bin or a sharded index)")
    return files


def load_weights(root: Path) -> dict[str, torch.Tensor]:
    """Return every tensor of the checkpoint as float32, by its HF name."""
    state: dict[str, torch.Tensor] = {}
    for path in weight_files(root):
        part = (load_file(path) if path.suffix == ".safetensors"
                else torch.load(path, map_location="cpu", weights_only=True))
        state.update({name: t.to(torch.float32) for name, t in part.items()})
    return state


def tokenizer_json(root: Path) -> str:
    """Return tokenizer.json, converted by transformers from the slow tokenizer files when there is none."""
    if (root / "tokenizer.json").is_file():
        return (root / "tokenizer.json").read_text(encoding="utf-8")
    try:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(root)).backend_tokenizer.to_str()
    except Exception as e:  # noqa: BLE001 - transformers raises many kinds here; say what is missing
        raise SourceError(f"{root}: no tokenizer.json, and transformers could not convert the tokenizer ({e})") from e


def token_text(value) -> str | None:
    """Return the text of a special token entry of tokenizer_config.json (a string or an AddedToken dict)."""
    return value.get("content") if isinstance(value, dict) else value


def as_ids(value) -> list[int]:
    """Return a token id entry (None, int or list) as a list."""
    return [] if value is None else [int(v) for v in (value if isinstance(value, list) else [value])]


def chat_template(root: Path, tokenizer_config: dict) -> str | None:
    """Return the chat template: chat_template.jinja, chat_template.json or tokenizer_config.json's entry."""
    if (root / "chat_template.jinja").is_file():
        return (root / "chat_template.jinja").read_text(encoding="utf-8")
    template = read_json(root / "chat_template.json").get("chat_template") or tokenizer_config.get("chat_template")
    if isinstance(template, list):  # named templates: [{"name": "default", "template": ...}, ...]
        named = {t.get("name"): t.get("template") for t in template}
        template = named.get("default") or next(iter(named.values()), None)
    return template


def chat_info(root: Path, config: dict, vocab: dict[str, int]) -> ChatInfo:
    """Return the chat template and special tokens of an HF directory."""
    tc = read_json(root / "tokenizer_config.json")
    generation = read_json(root / "generation_config.json")
    bos, eos = token_text(tc.get("bos_token")), token_text(tc.get("eos_token"))
    ids = as_ids(config.get("eos_token_id")) + as_ids(generation.get("eos_token_id"))
    if eos in vocab:
        ids.append(vocab[eos])
    by_id = {i: t for t, i in vocab.items()}
    if eos is None and ids:
        eos = by_id.get(ids[0])
    if bos is None and config.get("bos_token_id") is not None:
        bos = by_id.get(int(config["bos_token_id"]))
    return ChatInfo(template=chat_template(root, tc), bos_token=bos, eos_token=eos,
                    eos_token_ids=list(dict.fromkeys(ids)), add_bos_token=bool(tc.get("add_bos_token", False)))


def load_hf_dir(root: Path) -> ImportedSource:
    """Read an HF model directory into an ImportedSource."""
    if not (root / "config.json").is_file():
        raise SourceError(f"{root}: no config.json (not a Hugging Face model directory)")
    config = read_json(root / "config.json")
    tok = tokenizer_json(root)
    vocab = Tokenizer.from_str(tok).get_vocab(with_added_tokens=True)
    return ImportedSource(kind="hf", path=root, config=config, state=load_weights(root), tokenizer_json=tok,
                          chat=chat_info(root, config, vocab))
