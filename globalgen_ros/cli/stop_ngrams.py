"""`globalgen stop-ngrams`: train the n-gram stop model of the reflex (serving/stop_ngrams.py) and write it.

Learns from the spent blind stop lists (urgent lines are stops, near misses are not) and, as stops or not by their
intent, from the corpus's training turns, the decline data and the supplements (understanding/train_stop_ngrams.py:
logistic regression over hashed n-grams, numpy, about half a minute on 2 cores). The corpus is built first
(corpus/build.py, 10,000 dialogues: the first third of `globalgen understand`'s) unless --corpus names a built
one. Lists not named stay blind: measure the reflex on them with `globalgen eval LIST.json --stop-list`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

# Spent lists the shipped weights learnt (1-53, session 38). Lists 54 and later are the weights' fresh test.
LISTS = ("reflex_stops.json", *(f"reflex_stops_{i}.json" for i in range(2, 54)))


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `stop-ngrams` and its options."""
    p = subparsers.add_parser("stop-ngrams", help="train the reflex's n-gram stop model",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="models/default/reflex/stop_ngrams.npz")
    p.add_argument("--corpus", help="a built corpus directory (train.jsonl); default: build one")
    p.add_argument("--lists", nargs="+", default=list(LISTS), help="stop lists under eval/blind to learn from")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--seed", type=int, default=0)
    return p


def run(args) -> int:
    from globalgen_ros.corpus import build
    from globalgen_ros.understanding.train_stop_ngrams import save, train

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(args.corpus) if args.corpus else Path(tmp) / "corpus"
        if not args.corpus:
            build.main(["--out", str(corpus), "--train", "10000"])
        model = train(list(args.lists), corpus, epochs=args.epochs, seed=args.seed)
    save(model, Path(args.out))
    record_in_manifest(Path(args.out), model)
    print(f"globalgen stop-ngrams: {model['n']} lines ({model['stops']} stops) from {len(model['lists'])} stop "
          f"lists and the understanding data -> {args.out} ({time.perf_counter() - t0:.0f} s)")
    return 0


def record_in_manifest(out: Path, model: dict) -> None:
    """Enter the weights (sha256, size) and what they learnt from in the manifest of the model directory they sit in
    (`<dir>/reflex/stop_ngrams.npz`), so that loading the directory verifies them; elsewhere, do nothing."""
    from globalgen_ros.runtime.artifacts import sha256_file
    from globalgen_ros.serving.stop_ngrams import FILE

    root = out.resolve().parents[1]
    manifest_path = root / "manifest.json"
    if out.resolve() != (root / FILE).resolve() or not manifest_path.is_file():
        return
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["files"][FILE.as_posix()] = {"sha256": sha256_file(out), "size": out.stat().st_size}
    manifest.setdefault("reflex", {})["stop_ngrams"] = {"command": "globalgen stop-ngrams", "lists": model["lists"],
                                                        "lines": model["n"], "stops": model["stops"]}
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
