"""`globalgen eval CASES.jsonl`: intent and slot accuracy of the on-board model on labelled cases.

Each line of CASES.jsonl is {"text": ..., "intent": ..., "slots": {...}} (optionally "lang": "zh" | "en" and
"kind": a label to report separately, e.g. casual, names, oos). A case's slots are correct when the predicted
slots equal the expected ones exactly (all of them, none extra), compared case-insensitively with surrounding
spaces, punctuation and a leading English article ignored. Cases are answered the way the node answers them:
the stop reflex first, then the model, then the answer checks (numbers said, ranges); `--model-only` skips the
reflex and the checks. So a case whose expected number is outside the schema's min/max ("set it to 35 degrees")
is expected to be declined through the node (intent `none`, the reply says the range), and to keep its labelled
intent with `--model-only`.
Trust measures per language and kind: decline rate (cases whose answer is `none`), numbers not said, Latin
spans cut inside a word, Chinese spans starting or ending inside a jieba word, motion intents where a decline was
right, false stops.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from globalgen_ros.watchdog.language import detect_language, is_ideograph, language_code

PUNCT = " \t.,!?;:。，！？；：、\"'“”‘’"
MOTION = {"navigate", "robot_move", "robot_go_to", "robot_pick", "robot_place"}
NUMBER_SLOTS = {"temperature", "distance"}  # the shipped schema's; `run` passes the ones of the schema in use


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
    p.add_argument("--model-only", action="store_true", help="the model's answers without the reflex and checks")
    p.add_argument("--no-understanding", action="store_true",
                   help="let the decoder decide intent and slots too (the model directory's nlu/ unused)")
    p.add_argument("--stop-list", action="store_true",
                   help='CASES is a stop list {"urgent": {lang: [...]}, "near_miss": {lang: [...]}}: report the '
                        "stops the reflex's word lists fire, and with the model path (--stop-threshold) too")
    p.add_argument("--stop-threshold", type=float, default=0.9,
                   help="with --stop-list: confidence of the model path (reflex.model_threshold; default 0.9)")
    return p


def stop_list_report(path: str | Path, model_dir: str | Path, threshold: float) -> dict:
    """Per part and language of a stop list: n, stops by the word lists, and by word lists or the model path."""
    from globalgen_ros.serving.reflex import StopReflex
    from globalgen_ros.serving.stop_model import ModelStop
    from globalgen_ros.understanding.predict import Understanding

    lists = json.loads(Path(path).read_text(encoding="utf-8"))
    reflex, model = StopReflex(), ModelStop(Understanding(Path(model_dir) / "nlu"), threshold)
    out = {}
    for part in ("urgent", "near_miss"):
        for lang, texts in lists[part].items():
            words = [reflex.matches(t) for t in texts]
            both = [w or model.is_stop(t) for w, t in zip(words, texts, strict=True)]
            out[f"{part}/{lang}"] = {"n": len(texts), "words": sum(words), "words_or_model": sum(both)}
    return out


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
        case.setdefault("lang", language_code(detect_language(case["text"])))
        cases.append(case)
        if limit and len(cases) >= limit:
            break
    if not cases:
        raise CasesError(f"{path}: no cases")
    return cases


ARTICLES = ("the ", "a ", "an ")


def norm(value) -> str:
    """Compare slot values case-insensitively, without surrounding punctuation or a leading English article
    ("the red box" = "red box": both are the words said)."""
    text = " ".join(str(value).casefold().split()).strip(PUNCT)
    return next((text[len(a):] for a in ARTICLES if text.startswith(a) and len(text) > len(a)), text)


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


def cuts_a_word(text: str, value: str) -> bool:
    """Return True if `value` occurs in `text` only with a Latin word cut at one of its ends ("Ren" of Renée)."""
    low, v = text.casefold(), value.casefold().strip()
    starts = [i for i in range(len(low)) if low.startswith(v, i)] if v else []

    def joined(a: int, b: int) -> bool:  # the characters at a and b belong to one Latin word
        return 0 <= a and b < len(low) and all(low[k].isalpha() and not _cjk(low[k]) for k in (a, b))

    return bool(starts) and all(joined(i - 1, i) or joined(i + len(v) - 1, i + len(v)) for i in starts)


def cuts_a_chinese_word(text: str, value: str) -> bool:
    """Return True if `value` occurs in `text` only starting or ending inside a jieba word (官婉儿 of 上官婉儿)."""
    from globalgen_ros.understanding.predict import widen_to_cjk_words

    starts = [i for i in range(len(text)) if text.startswith(value, i)] if value else []
    return bool(starts) and all(widen_to_cjk_words(text, i, i + len(value)) != (i, i + len(value)) for i in starts)


def _cjk(ch: str) -> bool:
    return is_ideograph(ch)


def trust(pairs: list[tuple[dict, dict]], number_slots=NUMBER_SLOTS) -> dict:
    """Return the trust measures of (case, prediction) pairs (see the module docstring)."""
    from globalgen_ros.grounding.numbers import is_said

    gold_none = [(c, p) for c, p in pairs if c["intent"] == "none"]
    stops = [(c, p) for c, p in pairs if c["intent"] == "stop"]
    return {
        "decline_rate": round(sum(p["intent"] == "none" for _, p in gold_none) / len(gold_none), 4)
        if gold_none else None,
        "motion_where_decline": sum(p["intent"] in MOTION for _, p in gold_none),
        "false_stops": sum(p["intent"] == "stop" for c, p in pairs if c["intent"] != "stop"),
        "stop_recall": round(sum(p["intent"] == "stop" for _, p in stops) / len(stops), 4) if stops else None,
        "numbers_not_said": sum(not is_said(v, c["text"]) for c, p in pairs for k, v in p["slots"].items()
                                if k in number_slots),
        "latin_spans_cut": sum(cuts_a_word(c["text"], v) for c, p in pairs for k, v in p["slots"].items()
                               if k not in number_slots and not _cjk(v[:1] or "a")),
        "chinese_spans_cut": sum(cuts_a_chinese_word(c["text"], v) for c, p in pairs for k, v in p["slots"].items()
                                 if k not in number_slots and _cjk(v[:1] or "a")),
    }


def score(cases: list[dict], predictions: list[dict], number_slots=NUMBER_SLOTS) -> dict:
    """Return n, intent_accuracy (with a template-resampled 95 % interval), slot_accuracy, overall and per language."""
    def block(pairs) -> dict:
        n = len(pairs)
        intent = sum(c["intent"] == p["intent"] for c, p in pairs)
        slots = sum(slots_match(c["slots"], p["slots"]) for c, p in pairs)
        with_slots = [(c, p) for c, p in pairs if c["slots"]]
        return {"n": n, "intent_accuracy": round(intent / n, 4) if n else 0.0, **trust(pairs, number_slots),
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
    kinds = sorted({c["kind"] for c in cases if c.get("kind")})
    if kinds:
        out["by_kind"] = {f"{kind}/{lang}": block([(c, p) for c, p in pairs if c.get("kind") == kind
                                                   and c["lang"] == lang])
                          for kind in kinds for lang in sorted({c["lang"] for c in cases if c.get("kind") == kind})}
    return out


def report_text(result: dict) -> str:
    rows = [("all", result)] + list(result["by_language"].items()) + list(result.get("by_kind", {}).items())
    lines = [f"{'split':<28} {'n':>5} {'intent':>8} {'slots':>8} {'exact':>8} {'decline':>8} {'motion':>6} "
             f"{'f.stop':>6} {'num!':>5} {'cut':>4} {'zh cut':>6}"]
    for name, r in rows:
        decline = f"{r['decline_rate']:.1%}" if r["decline_rate"] is not None else "-"
        lines.append(f"{name:<28} {r['n']:>5} {r['intent_accuracy']:>8.2%} {r['slot_accuracy']:>8.2%} "
                     f"{r['exact']:>8.2%} {decline:>8} {r['motion_where_decline']:>6} {r['false_stops']:>6} "
                     f"{r['numbers_not_said']:>5} {r['latin_spans_cut']:>4} {r['chinese_spans_cut']:>6}")
    return "\n".join(lines)


def node_expectation(case: dict, schema) -> dict:
    """Return the case as the node should answer it: out-of-range numbers are declined, never acted on."""
    if schema.out_of_range(case["intent"], case["slots"]):
        return dict(case, intent="none", slots={}, labelled_intent=case["intent"])
    return case


def model_answer(assistant, text: str) -> dict:
    """Return the model's own answer to `text` as a prediction row."""
    r = assistant.respond(text)
    return {"text": text, "intent": r.intent, "slots": r.slots, "response": r.text, "confidence": r.confidence}


def node_rules(assistant):
    """Return a function answering a text as globalgen_node does: reflex, model, answer checks."""
    from globalgen_ros.serving.checks import check_answer
    from globalgen_ros.serving.reflex import StopReflex
    from globalgen_ros.watchdog.supervisor import EDGE, OK, Outcome

    reflex = StopReflex()

    def answer(text: str) -> dict:
        if reflex.matches(text):
            return {"text": text, "intent": "stop", "slots": {}, "response": "", "source": "reflex"}
        row = model_answer(assistant, text)
        lang = detect_language(text)
        checked = check_answer(Outcome(OK, EDGE, row["response"], lang, intent=row["intent"], slots=row["slots"]),
                               text, assistant.schema)
        return dict(row, intent=checked.intent, slots=checked.slots, response=checked.text, notes=checked.notes)
    return answer


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
    from globalgen_ros.runtime.artifacts import default_model_dir

    if args.stop_list:
        report = stop_list_report(args.cases, default_model_dir(args.model_dir), args.stop_threshold)
        rows = [f"{k:<16} n {r['n']:>4}  words {r['words']:>4}  + model {r['words_or_model']:>4}"
                for k, r in report.items()]
        print(json.dumps(report) if args.json else "\n".join(rows))
        return 0
    try:
        cases = load_cases(args.cases, args.limit)
        assistant = Assistant(args.model_dir, schema_path=args.schema, strategy=args.strategy, threads=args.threads,
                              calibration=None if args.strategy == "ar" else "measure",
                              understanding=not args.no_understanding)
    except (CasesError, ModelArtifactError) as e:
        print(f"globalgen eval: {e}", file=sys.stderr)
        return 2
    predictions = []
    answer = (lambda text: model_answer(assistant, text)) if args.model_only else node_rules(assistant)
    if not args.model_only:
        cases = [node_expectation(case, assistant.schema) for case in cases]
    for case in progress(cases, quiet=args.json):
        try:
            predictions.append(answer(case["text"]))
        except InputError as e:
            predictions.append({"text": case["text"], "intent": "", "slots": {}, "response": "", "error": str(e)})
    number_slots = {s.name for i in assistant.schema.intents for s in i.slots if s.type == "number"}
    result = score(cases, predictions, number_slots)
    if args.predictions:
        with open(args.predictions, "w", encoding="utf-8") as f:
            for case, pred in zip(cases, predictions, strict=True):
                pred = dict(pred, expected_intent=case["intent"], expected_slots=case["slots"])
                f.write(json.dumps(pred, ensure_ascii=False) + "\n")
    print(json.dumps(result, ensure_ascii=False) if args.json else report_text(result))
    return 0
