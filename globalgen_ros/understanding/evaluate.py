"""Evaluate the exported model with predict.py: corpus eval.jsonl (held-out templates), held-out decline families,
latency.

python -m globalgen_ros.understanding.evaluate --model models/default/nlu --corpus runs/nlu/corpus
"""

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from globalgen_ros.scoring import slots_match
from globalgen_ros.understanding.data import decline_examples, decline_families
from globalgen_ros.understanding.predict import Understanding, softmax
from globalgen_ros.understanding.train import ece
from globalgen_ros.watchdog.language import detect_language, language_code


def eval_cases(u: Understanding, cases: list[dict]) -> dict:
    """Per language: intent accuracy, slot exact match (cases with gold slots), frame accuracy (intent + slots)."""
    acc: dict = defaultdict(lambda: defaultdict(int))
    errors = []
    for c in cases:
        r = u.predict(c["text"])
        a = acc[c["lang"]]
        ok_i = r["intent"] == c["intent"]
        ok_s = slots_match(c["slots"], r["slots"])
        a["n"] += 1
        a["intent_ok"] += ok_i
        a["frame_ok"] += ok_i and ok_s
        if c["slots"]:
            a["n_slotted"] += 1
            a["slot_em"] += ok_s
        if not (ok_i and ok_s) and len(errors) < 40:
            errors.append({"text": c["text"], "gold": [c["intent"], c["slots"]], "pred": [r["intent"], r["slots"]]})
    out = {
        lang: {
            "n": a["n"],
            "intent_acc": a["intent_ok"] / a["n"],
            "slot_em": a["slot_em"] / max(1, a["n_slotted"]),
            "n_slotted": a["n_slotted"],
            "frame_acc": a["frame_ok"] / a["n"],
        }
        for lang, a in sorted(acc.items())
    }
    return {"by_lang": out, "errors": errors}


def calibration(u: Understanding, cases: list[dict]) -> dict[str, float]:
    """ECE (15 bins) of the intent softmax on the cases, without and with the fitted temperature."""
    logits = np.stack([u.run(c["text"])["intent"] for c in cases])
    labels = np.array([u.layout.intents.index(c["intent"]) for c in cases])
    probs = [np.stack([softmax(z / t) for z in logits]) for t in (1.0, u.temperature)]
    return {"ece_T1": ece(probs[0], labels), "ece_T": ece(probs[1], labels), "temperature": u.temperature}


def lang_of(text: str) -> str:
    """zh or en, by watchdog.language.detect_language."""
    return language_code(detect_language(text))


def decline_rate(u: Understanding, families: list[str]) -> dict:
    """Share of held-out decline utterances predicted as none, per family and language, and overall."""
    fams, _ = decline_families()
    res: dict = {}
    hits = defaultdict(lambda: [0, 0])
    for f in families:
        for ex in decline_examples(fams, [f]):
            ok = u.predict(ex.text)["intent"] == "none"
            for key in (f, ex.lang, "all"):
                hits[key][0] += ok
                hits[key][1] += 1
    res = {k: round(h / n, 4) for k, (h, n) in hits.items()}
    res["n"] = hits["all"][1]
    return res


def latency(u: Understanding, texts: list[str], n: int = 200) -> dict[str, float]:
    """Median / p90 wall time (ms) of predict() over n utterances, after warm-up."""
    for t in texts[:20]:
        u.predict(t)
    ts = []
    for i in range(n):
        t0 = time.perf_counter()
        u.predict(texts[i % len(texts)])
        ts.append(1e3 * (time.perf_counter() - t0))
    return {"median_ms": statistics.median(ts), "p90_ms": sorted(ts)[int(0.9 * n)]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", type=Path, default=Path("models/default/nlu"))
    ap.add_argument("--corpus", type=Path, default=Path("runs/nlu/corpus"))
    ap.add_argument("--out", type=Path, default=Path("runs/nlu/eval.json"))
    args = ap.parse_args(argv)
    u = Understanding(args.model, threads=1)
    cases = [json.loads(line) for line in (args.corpus / "eval.jsonl").read_text().splitlines()]
    res = {"eval_jsonl": eval_cases(u, cases), "held_out_declines": decline_rate(u, u.meta["held_out_families"])}
    res["eval_jsonl_calibration"] = calibration(u, cases)
    natural = [json.loads(line) for line in (args.corpus / "natural.jsonl").read_text().splitlines()]
    res["natural_jsonl"] = eval_cases(u, [c | {"lang": lang_of(c["text"])} for c in natural])
    res["latency_1thread"] = latency(u, [c["text"] for c in cases])
    res["sizes_mib"] = {p.name: round(p.stat().st_size / 2**20, 2) for p in sorted(args.model.iterdir())}
    args.out.write_text(json.dumps(res, indent=1, ensure_ascii=False))
    short = {k: v for k, v in res.items() if k not in ("eval_jsonl", "natural_jsonl")}
    short |= {"eval": res["eval_jsonl"]["by_lang"], "natural": res["natural_jsonl"]["by_lang"]}
    print(json.dumps(short, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
