"""Write an imported model directory in the layout of models/default (docs/import.md).

config.json (HF form, our LlamaConfig fields), model.safetensors (fp16, output layer untied), tokenizer.json
(the model's own), the decoder with the ONNX interface of docs/architecture.md in the chosen weight format
(importer/weights.py: model.int4.onnx, 4-bit weight-only blocks, or model.int8.onnx, activations quantized per
row), optionally model.fp32.onnx, and manifest.json (sha256 + size of each file, `decoder`: the decoder file
the runtime opens, the chat template, the source and the ORT-vs-torch check). There is no heads.int8.onnx: an
imported model has no draft heads yet.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file

from globalgen_ros.importer.convert import build_model, llama_config
from globalgen_ros.importer.source import ImportedSource, load_source
from globalgen_ros.importer.weights import decoder_file, default_weights, quantize_decoder
from globalgen_ros.model.export import example_inputs, export_decoder, onnx_feeds
from globalgen_ros.model.llama import LlamaWithHeads
from globalgen_ros.runtime.artifacts import sha256_file

FP32 = "model.fp32.onnx"


def write_config(model: LlamaWithHeads, source: ImportedSource, out: Path) -> dict:
    """Write config.json: HF LlamaConfig keys plus ours (num_extra_heads 0), the source's special token ids."""
    c = source.config
    eos = c.get("eos_token_id", source.chat.eos_token_ids[0] if source.chat.eos_token_ids else None)
    cfg = model.config.to_hf_dict(bos_token_id=c.get("bos_token_id"), eos_token_id=eos,
                                  pad_token_id=c.get("pad_token_id"))
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    return cfg


def save_weights(model: LlamaWithHeads, out: Path) -> None:
    """Write model.safetensors in fp16 (HF names; lm_head.weight untied)."""
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()
             if not k.startswith("heads.")}
    bad = [k for k, v in state.items() if not torch.isfinite(v).all()]
    if bad:
        raise ValueError(f"weights overflow fp16: {bad[:3]}")
    save_file(state, out / "model.safetensors", metadata={"format": "pt"})
    (out / "model.safetensors").chmod(0o644)  # safetensors writes 0600


def check_decoder(model: LlamaWithHeads, path: Path, seed: int = 0) -> float:
    """Return the largest |ORT - torch| of logits and new K/V: a 12-token prefill, then 4 tokens against its
    own K/V (the model's cache, not random K/V: an LLM's logits on out-of-distribution K/V say little)."""
    import onnxruntime as ort

    torch.manual_seed(seed)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    prefill = example_inputs(model.config, 0, 12)
    worst, kv = 0.0, None
    for inputs in (prefill, None):
        if inputs is None:  # 4 new tokens after the prefill, against its K/V
            ids, pos, mask, _ = example_inputs(model.config, 12, 4)
            inputs = (ids, pos, mask, kv)
        with torch.no_grad():
            logits, _, kv_new = model(*inputs)
        got_logits, _, got_kv = session.run(None, onnx_feeds(inputs))
        worst = max(worst, float(np.abs(got_logits - logits.numpy()).max()),
                    float(np.abs(got_kv - kv_new.numpy()).max()))
        kv = kv_new if kv is None else kv
    return worst


def write_manifest(out: Path, source: ImportedSource, decoder: str, recipe: dict, names: tuple[str, ...]) -> dict:
    """Write manifest.json: sha256 and size of the files written, the decoder file, the chat template, the recipe."""
    files = {name: {"sha256": sha256_file(out / name), "size": (out / name).stat().st_size} for name in names}
    manifest = {"format": 1, "files": files, "decoder": decoder, "recipe": recipe, "eval": {},
                "chat": source.chat.as_dict()}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


def import_model(source_path: str | Path, out: str | Path, *, weights: str | None = None,
                 keep_fp32: bool = False, max_len: int | None = None, check: bool = True) -> dict:
    """Import SOURCE (HF directory or GGUF file) into `out` with `weights` int4 | int8 (None: `default_weights`
    of its attention); return a report."""
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)
    t0 = time.perf_counter()
    if weights is not None:
        decoder_file(weights)  # an unknown format fails before the source is read
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    source = load_source(source_path)
    cfg = llama_config(source.config, max_len)
    weights = weights or default_weights(cfg.num_attention_heads, cfg.kv_heads)
    decoder = decoder_file(weights)
    model = build_model(source, cfg)
    t_read = time.perf_counter()
    write_config(model, source, out)
    save_weights(model, out)
    (out / "tokenizer.json").write_text(source.tokenizer_json, encoding="utf-8")
    report = {"source": str(source_path), "kind": source.kind, "params": model.num_params(),
              "layers": cfg.num_hidden_layers, "heads": cfg.num_attention_heads, "kv_heads": cfg.kv_heads,
              "vocab": cfg.vocab_size, "tied": "lm_head.weight" not in source.state,
              "rope_scaling": (cfg.rope_scaling or {}).get("rope_type"), "weights": weights, **source.notes}
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model.onnx"
        export_decoder(model, fp32)
        quantize_decoder(weights, fp32, out / decoder)
        if check:
            report["max_abs_diff_vs_torch"] = {"fp32": check_decoder(model, fp32),
                                               weights: check_decoder(model, out / decoder)}
        if keep_fp32:
            shutil.copyfile(fp32, out / FP32)
    report["seconds"] = {"read": round(t_read - t0, 2), "total": round(time.perf_counter() - t0, 2)}
    written = ("config.json", "model.safetensors", "tokenizer.json", decoder) + (FP32,) * keep_fp32
    write_manifest(out, source, decoder, {"kind": "import", **report}, written)  # earlier imports' files: unlisted
    return report
