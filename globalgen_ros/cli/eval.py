"""`globalgen eval CASES.jsonl`: intent and slot accuracy of the on-board model on labelled cases.

Each line of CASES.jsonl is {"text": ..., "intent": ..., "slots": {...}} (optionally "lang": "zh" | "en").
A case's slots are correct when the predicted slots equal the expected ones exactly (all of them, none extra),
compared case-insensitively with surrounding spaces and punctuation ignored.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from globalgen_ros.runtime.format import detect_language

PUNCT = " \t.,!?;:。，！？；：、\"'“”‘’"


class CasesError(ValueError):
    """The cases file is missing or has a malformed line (the message names the line)."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `eval` and its options."""
    p = subparsers.add_parser("eval", help="measure intent and slot accuracy on labelled cases",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cases", help="JSONL file of cases {text, intent, slots}")
    p.add_argument("--json", action="store_true", help="print one JSON object (n, intent_accuracy, slot_accuracy, ...)")
    p.add_argument("--predictions", metavar="OUT.jsonl", help="write one line per case: intent, slots, response")
    p.add_argument("--model-dir", help="model directory (default: $GLOBALGEN_MODEL_DIR or models/default)")
    p.add_argument("--schema", help="intent schema (default: config/intents.yaml)")
    p.add_argument("--strategy", default="ar", help="decoding strategy (default ar: plain constrained greedy)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--limit", type=int, help="evaluate only the first N cases")
    return p


def load_cases(path: str | Path, limit: int | None = None) -> list[dict]:
    """Read and check a cases file."""
    cases = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise CasesError(f"{path}: cannot read cases ({e})") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except ValueError as e:
            raise CasesError(f"{path}:{n}: not valid JSON ({e})") from None
        if not isinstance(case, dict) or not isinstance(case.get("text"), str) or not isinstance(
                case.get("intent"), str) or not isinstance(case.get("slots", {}), dict):
            raise CasesError(f'{path}:{n}: expected {{"text": str, "intent": str, "slots": {{...}}}}')
        case.setdefault("slots", {})
        case.setdefault("lang", detect_language(case["text"]))
        cases.append(case)
        if limit and len(cases) >= limit:
            break
    if not cases:
        raise CasesError(f"{path}: no cases")
    return cases


def norm(value) -> str:
    return " ".join(str(value).casefold().split()).strip(PUNCT)


def slots_match(expected: dict, predicted: dict) -> bool:
    return {k: norm(v) for k, v in expected.items()} == {k: norm(v) for k, v in predicted.items()}


def template_ci95(pairs: list[tuple[dict, dict]], resamples: int = 2000) -> list[float] | None:
    """Return a 95 % interval of intent accuracy, resampling whole templates (errors cluster on a template)."""
    import numpy as np

    clusters: dict[str, list[int]] = {}
    for i, (c, p) in enumerate(pairs):
        clusters.setdefault(c.get("template") or f"case{i}", []).append(c["intent"] == p["intent"])
    if len(clusters) < 2:
        return None
    n = np.array([len(v) for v in clusters.values()], float)  # (C,)
    ok = np.array([sum(v) for v in clusters.values()], float)  # (C,)
    draw = np.random.default_rng(0).integers(0, len(n), (resamples, len(n)))  # (B, C)
    acc = ok[draw].sum(1) / n[draw].sum(1)  # (B,)
    return [round(float(q), 4) for q in np.percentile(acc, [2.5, 97.5])]


def score(cases: list[dict], predictions: list[dict]) -> dict:
    """Return n, intent_accuracy (with a template-resampled 95 % interval), slot_accuracy, overall and per language."""
    def block(pairs) -> dict:
        n = len(pairs)
        intent = sum(c["intent"] == p["intent"] for c, p in pairs)
        slots = sum(slots_match(c["slots"], p["slots"]) for c, p in pairs)
        with_slots = [(c, p) for c, p in pairs if c["slots"]]
        return {"n": n, "intent_accuracy": round(intent / n, 4) if n else 0.0,
                "intent_accuracy_ci95": template_ci95(pairs),
                "slot_accuracy": round(slots / n, 4) if n else 0.0,
                "slot_accuracy_cases_with_slots": (round(sum(slots_match(c["slots"], p["slots"])
                                                             for c, p in with_slots) / len(with_slots), 4)
                                                   if with_slots else None),
                "exact": round(sum(c["intent"] == p["intent"] and slots_match(c["slots"], p["slots"])
                                   for c, p in pairs) / n, 4) if n else 0.0}

    pairs = list(zip(cases, predictions, strict=True))
    out = block(pairs)
    out["by_language"] = {lang: block([(c, p) for c, p in pairs if c["lang"] == lang])
                          for lang in sorted({c["lang"] for c in cases})}
    return out


def report_text(result: dict) -> str:
    rows = [("all", result)] + list(result["by_language"].items())
    lines = [f"{'split':<6} {'n':>6} {'intent':>8} {'slots':>8} {'exact':>8}"]
    for name, r in rows:
        lines.append(f"{name:<6} {r['n']:>6} {r['intent_accuracy']:>8.2%} {r['slot_accuracy']:>8.2%} "
                     f"{r['exact']:>8.2%}")
    return "\n".join(lines)


def progress(items: list, quiet: bool):
    """Iterate with a progress bar on stderr when tqdm is installed (it is not needed at run time)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc="eval", unit="case", disable=quiet, file=sys.stderr, mininterval=1)


def run(args) -> int:
    """Answer every case through the Assistant and print the accuracies."""
    from globalgen_ros.assistant import Assistant, InputError, ModelArtifactError

    try:
        cases = load_cases(args.cases, args.limit)
        assistant = Assistant(args.model_dir, schema_path=args.schema, strategy=args.strategy, threads=args.threads,
                              calibration=None if args.strategy == "ar" else "measure")
    except (CasesError, ModelArtifactError) as e:
        print(f"globalgen eval: {e}", file=sys.stderr)
        return 2
    predictions = []
    for case in progress(cases, quiet=args.json):
        try:
            r = assistant.respond(case["text"])
            predictions.append({"text": case["text"], "intent": r.intent, "slots": r.slots, "response": r.text})
        except InputError as e:
            predictions.append({"text": case["text"], "intent": "", "slots": {}, "response": "", "error": str(e)})
    result = score(cases, predictions)
    if args.predictions:
        with open(args.predictions, "w", encoding="utf-8") as f:
            for case, pred in zip(cases, predictions, strict=True):
                pred = dict(pred, expected_intent=case["intent"], expected_slots=case["slots"])
                f.write(json.dumps(pred, ensure_ascii=False) + "\n")
    print(json.dumps(result, ensure_ascii=False) if args.json else report_text(result))
    return 0
