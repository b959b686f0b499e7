"""Write the model artifacts: HF weights (fp16 safetensors), ONNX decoder + heads, int8 quantization, manifest.

    PYTHONPATH=. .venv/bin/python -m globalgen_ros.model.export --random --out /tmp/random_model
    PYTHONPATH=. .venv/bin/python -m globalgen_ros.model.export --checkpoint runs/default/last.pt --out models/default
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from tqdm import tqdm

from globalgen_ros.model.llama import LlamaConfig, LlamaWithHeads
from globalgen_ros.runtime.artifacts import sha256_file
from globalgen_ros.runtime.format import SPECIAL_TOKENS
from globalgen_ros.runtime.onnx_model import past_names

OPSET = 18
ARTIFACTS = ["config.json", "model.safetensors", "heads.safetensors", "tokenizer.json", "model.int8.onnx",
             "heads.int8.onnx", "drafts.npz"]  # drafts.npz: optional, python -m globalgen_ros.decoding.datastore


class HeadsModule(torch.nn.Module):
    """hidden (n, d) -> head_logits (n, K, V): the ONNX interface of the extra heads."""

    def __init__(self, model: LlamaWithHeads):
        super().__init__()
        self.model = model
        self.eval()

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.model.head_logits(hidden)


def special_ids() -> dict[str, int]:
    """Return bos/eos/pad ids (the special tokens are always ids 0..8, in contract order)."""
    ids = {tok: i for i, tok in enumerate(SPECIAL_TOKENS)}
    return {"bos_token_id": ids["<|bos|>"], "eos_token_id": ids["<|end|>"], "pad_token_id": ids["<|pad|>"]}


def config_from_hf(d: dict) -> LlamaConfig:
    names = {f.name for f in dataclasses.fields(LlamaConfig)}
    return LlamaConfig(**{k: v for k, v in d.items() if k in names})


def save_weights(model: LlamaWithHeads, out: Path) -> None:
    """Write config.json (HF form), model.safetensors and heads.safetensors (fp16)."""
    cfg = model.config.to_hf_dict(**special_ids())
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()}
    save_file({k: v for k, v in state.items() if not k.startswith("heads.")}, out / "model.safetensors",
              metadata={"format": "pt"})
    save_file({k: v for k, v in state.items() if k.startswith("heads.")}, out / "heads.safetensors",
              metadata={"format": "pt"})
    for name in ("model.safetensors", "heads.safetensors"):
        (out / name).chmod(0o644)  # safetensors writes 0600


def load_model(model_dir: str | Path, dtype: torch.dtype = torch.float32) -> LlamaWithHeads:
    """Load LlamaWithHeads from config.json + model.safetensors + heads.safetensors."""
    model_dir = Path(model_dir)
    cfg = config_from_hf(json.loads((model_dir / "config.json").read_text()))
    model = LlamaWithHeads(cfg)
    state = load_file(model_dir / "model.safetensors") | load_file(model_dir / "heads.safetensors")
    model.load_state_dict({k: v.to(dtype) for k, v in state.items()})
    return model.eval()


def example_inputs(cfg: LlamaConfig, past: int, new: int) -> tuple[torch.Tensor, ...]:
    """Return (input_ids, position_ids, attention_mask, past_kv) for `new` tokens after `past` cached ones."""
    ids = torch.randint(0, cfg.vocab_size, (1, new))
    pos = torch.arange(past, past + new)[None]
    mask = torch.zeros(1, 1, new, past + new)
    mask[0, 0, :, past:] = torch.triu(torch.full((new, new), -1e4), diagonal=1)
    kv = torch.randn(past, cfg.num_hidden_layers, 2, cfg.kv_heads, cfg.head_dim)  # (P, L, 2, Hkv, D)
    return ids, pos, mask, kv


def onnx_feeds(inputs: tuple[torch.Tensor, ...], logit_rows: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Return the decoder's ONNX feeds for example_inputs(...) (past_kv rows split per layer into K and V;
    logits of every row unless logit_rows says which)."""
    ids, pos, mask, kv = (t.numpy() for t in inputs)
    past = [np.ascontiguousarray(kv[:, i, j]) for i in range(kv.shape[1]) for j in range(2)]
    rows = np.arange(ids.shape[1], dtype=np.int64) if logit_rows is None else logit_rows
    return {"input_ids": ids, "position_ids": pos, "attention_mask": mask, "logit_rows": rows,
            **dict(zip(past_names(kv.shape[1]), past, strict=True))}


class DecoderModule(torch.nn.Module):
    """`LlamaWithHeads.decode` with its past K/V as separate positional inputs (one ONNX input each)."""

    def __init__(self, model: LlamaWithHeads):
        super().__init__()
        self.model = model

    def forward(self, input_ids, position_ids, attention_mask, logit_rows, *past):
        return self.model.decode(input_ids, position_ids, attention_mask, past, logit_rows)


def export_decoder(model: LlamaWithHeads, path: Path) -> None:
    """Export LlamaWithHeads.decode with dynamic k, P, P + k and number of logit rows."""
    k, p = torch.export.Dim("k", min=1, max=4096), torch.export.Dim("P", min=0, max=8192)
    r = torch.export.Dim("r", min=1, max=4096)
    names = past_names(model.config.num_hidden_layers)
    ids, pos, mask, kv = example_inputs(model.config, 3, 2)
    past = [kv[:, i, j].contiguous() for i in range(kv.shape[1]) for j in range(2)]
    shapes = {"input_ids": {1: k}, "position_ids": {1: k}, "attention_mask": {2: k, 3: torch.export.Dim.AUTO},
              "logit_rows": {0: r}, "past": tuple({0: p} for _ in names)}
    torch.onnx.export(DecoderModule(model).eval(), (ids, pos, mask, torch.tensor([1]), *past), str(path),
                      dynamo=True, opset_version=OPSET, external_data=False, dynamic_shapes=shapes, verbose=False,
                      input_names=["input_ids", "position_ids", "attention_mask", "logit_rows", *names],
                      output_names=["logits", "hidden", "new_kv"])


def export_heads(model: LlamaWithHeads, path: Path) -> None:
    """Export the extra heads: hidden (n, d) -> head_logits (n, K, V)."""
    n = torch.export.Dim("n", min=1, max=4096)
    torch.onnx.export(HeadsModule(model), (torch.randn(3, model.config.hidden_size),), str(path), dynamo=True,
                      opset_version=OPSET, external_data=False, dynamic_shapes={"hidden": {0: n}}, verbose=False,
                      input_names=["hidden"], output_names=["head_logits"])


def quantize(src: Path, dst: Path, unsigned: bool = False) -> None:
    """Quantize weights to int8 (dynamic quantization of MatMul and Gather), activations per row.

    unsigned: per-channel uint8 weights instead of per-tensor int8, exact on every x86 CPU (ONNX Runtime's AVX2
    u8 x s8 kernel saturates pairs of products at 16 bits; understanding/export.py `quantize_int8`)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from globalgen_ros.model.rowquant import per_row_activations

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QUInt8 if unsigned else QuantType.QInt8,
                     per_channel=unsigned, op_types_to_quantize=["MatMul", "Gather"])
    # Per-tensor activation scales make a token's logits depend on the other tokens of the forward, which breaks
    # lossless tree verification (parallel != ar); per-row scales do not (see model/rowquant.py).
    onnx.save(per_row_activations(onnx.load(str(dst)))[0], str(dst))


def write_manifest(out: Path, recipe: dict, eval_results: dict | None = None) -> dict:
    """Write manifest.json: sha256 + size of each artifact, the training recipe and eval results."""
    files = {name: {"sha256": sha256_file(out / name), "size": (out / name).stat().st_size}
             for name in ARTIFACTS if (out / name).exists()}
    manifest = {"format": 1, "files": files, "recipe": recipe, "eval": eval_results or {}}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


def check_onnx(model: LlamaWithHeads, decoder_path: Path, heads_path: Path, seed: int = 0) -> dict:
    """Compare ORT and torch outputs (prefill with P = 0, then decode with P > 0); return max |diff|."""
    import onnxruntime as ort

    torch.manual_seed(seed)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    dec = ort.InferenceSession(str(decoder_path), opts, providers=["CPUExecutionProvider"])
    heads = ort.InferenceSession(str(heads_path), opts, providers=["CPUExecutionProvider"])
    diffs = {}
    for past, new in [(0, 5), (5, 1), (7, 4)]:
        inputs = example_inputs(model.config, past, new)
        with torch.no_grad():
            ref = model(*inputs)
            ref_heads = model.head_logits(ref[1][0])
        got = dec.run(None, onnx_feeds(inputs))
        got_heads = heads.run(None, {"hidden": ref[1][0].numpy()})[0]
        for name, r, g in zip(["logits", "hidden", "new_kv"], ref, got, strict=True):
            assert g.shape == tuple(r.shape), f"{name}: ORT shape {g.shape} != torch {tuple(r.shape)}"
            diffs[f"{name}@P={past},k={new}"] = float(np.abs(g - r.numpy()).max())
        assert got_heads.shape == tuple(ref_heads.shape)
        diffs[f"head_logits@n={new}"] = float(np.abs(got_heads - ref_heads.numpy()).max())
        last = dec.run(["logits"], onnx_feeds(inputs, np.array([new - 1], np.int64)))[0]  # the last row only
        assert last.shape == (1, 1, model.config.vocab_size)
        diffs[f"logits[last]@P={past},k={new}"] = float(np.abs(last[0, 0] - ref[0][0, -1].numpy()).max())
    return diffs


def export_all(model: LlamaWithHeads, out: str | Path, *, recipe: dict, tokenizer: str | Path | None = None,
               eval_results: dict | None = None, keep_fp32: bool = False) -> dict:
    """Write every artifact of a model directory and its manifest; return the ORT-vs-torch check."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model = model.float().eval()
    steps = ["weights", "export decoder", "export heads", "quantize", "check", "manifest"]
    with tempfile.TemporaryDirectory() as tmp, tqdm(total=len(steps), desc="export", unit="step") as bar:
        tmp = Path(tmp)
        bar.set_postfix_str(steps[0])
        save_weights(model, out)
        if tokenizer is not None and Path(tokenizer).resolve() != (out / "tokenizer.json").resolve():
            shutil.copyfile(tokenizer, out / "tokenizer.json")
        bar.update()
        bar.set_postfix_str(steps[1])
        export_decoder(model, tmp / "model.onnx")
        bar.update()
        bar.set_postfix_str(steps[2])
        export_heads(model, tmp / "heads.onnx")
        bar.update()
        bar.set_postfix_str(steps[3])
        quantize(tmp / "model.onnx", out / "model.int8.onnx")
        quantize(tmp / "heads.onnx", out / "heads.int8.onnx")
        bar.update()
        bar.set_postfix_str(steps[4])
        check = {"fp32": check_onnx(model, tmp / "model.onnx", tmp / "heads.onnx"),
                 "int8": check_onnx(model, out / "model.int8.onnx", out / "heads.int8.onnx")}
        if keep_fp32:
            shutil.copyfile(tmp / "model.onnx", out / "model.fp32.onnx")
            shutil.copyfile(tmp / "heads.onnx", out / "heads.fp32.onnx")
        bar.update()
        bar.set_postfix_str(steps[5])
        write_manifest(out, recipe, eval_results)
        bar.update()
    return check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--random", action="store_true", help="randomly initialised model (for engine development)")
    src.add_argument("--checkpoint", help="training checkpoint (.pt) written by globalgen_ros.model.train")
    src.add_argument("--model-dir", help="directory with config.json + model/heads.safetensors to re-export")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--tokenizer", help="tokenizer.json to copy into the output directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep-fp32", action="store_true", help="also write model.fp32.onnx / heads.fp32.onnx")
    parser.add_argument("--vocab-size", type=int, default=LlamaConfig.vocab_size)
    args = parser.parse_args(argv)
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)

    recipe: dict = {}
    if args.random:
        torch.manual_seed(args.seed)
        model = LlamaWithHeads(LlamaConfig(vocab_size=args.vocab_size))
        recipe = {"kind": "random", "seed": args.seed}
    elif args.checkpoint:
        ckpt = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
        model = LlamaWithHeads(LlamaConfig(**ckpt["config"]))
        model.load_state_dict(ckpt["model"])
        recipe = ckpt.get("recipe", {})
    else:
        model = load_model(args.model_dir)
        manifest = Path(args.model_dir) / "manifest.json"
        recipe = json.loads(manifest.read_text()).get("recipe", {}) if manifest.exists() else {}
    tokenizer = args.tokenizer
    if tokenizer is None and args.checkpoint and (Path(args.checkpoint).parent / "tokenizer.json").exists():
        tokenizer = Path(args.checkpoint).parent / "tokenizer.json"
    if tokenizer is None and args.model_dir and (Path(args.model_dir) / "tokenizer.json").exists():
        tokenizer = Path(args.model_dir) / "tokenizer.json"
    check = export_all(model, args.out, recipe=recipe, tokenizer=tokenizer, keep_fp32=args.keep_fp32)
    worst = {kind: max(d.values()) for kind, d in check.items()}
    print(json.dumps({"out": str(args.out), "max_abs_diff_vs_torch": worst}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
