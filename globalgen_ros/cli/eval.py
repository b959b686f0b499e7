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

from globalgen_ros.scoring import CasesError, load_cases, report_text, score
from globalgen_ros.serving.confirm import CLARIFY_ABOVE
from globalgen_ros.serving.stop_ngrams import DEFAULT_THRESHOLD
from globalgen_ros.watchdog.language import detect_language


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
    p.add_argument("--ngram-threshold", type=float, default=DEFAULT_THRESHOLD,
                   help="probability the n-gram stop model needs to fire the reflex (reflex.ngram_threshold; 0 = off)")
    p.add_argument("--clarify-above", type=float, default=CLARIFY_ABOVE,
                   help="ask about the command the model put second when it declines with it at this probability "
                        f"or more (confirm.clarify_above; default {CLARIFY_ABOVE:g}, 0 = off)")
    p.add_argument("--stop-min-confidence", type=float,
                   help="confidence a stop the understanding model decides needs (default: the model's own, nlu.json)")
    return p


def stop_list_report(path: str | Path, model_dir: str | Path, threshold: float,
                     stop_min_confidence: float | None = None, ngram_threshold: float = 0.0) -> dict:
    """Per part and language of a stop list: n, stops by the word lists, by the n-gram stop model, by the reflex
    (both), by the reflex or the model path (reflex.model_threshold), and as served: the reflex, or the
    understanding model's `stop` at its floor."""
    from globalgen_ros.serving.reflex import StopReflex
    from globalgen_ros.serving.stop_model import ModelStop
    from globalgen_ros.serving.stop_ngrams import load_for
    from globalgen_ros.understanding.predict import Understanding

    lists = json.loads(Path(path).read_text(encoding="utf-8"))
    understanding = Understanding(Path(model_dir) / "nlu")
    ngrams = load_for(model_dir, ngram_threshold)
    reflex, model = StopReflex(ngrams=ngrams), ModelStop(understanding, threshold)
    floor = max(understanding.min_confidence, understanding.stop_min_confidence if stop_min_confidence is None
                else stop_min_confidence)
    out = {}
    for part in ("urgent", "near_miss"):
        for lang, texts in lists[part].items():
            words = [reflex.words_match(t) for t in texts]
            fired = [reflex.matches(t) for t in texts]
            both = [w or model.is_stop(t) for w, t in zip(fired, texts, strict=True)]
            served = [w or (p["intent"] == "stop" and p["confidence"] >= floor)
                      for w, p in zip(fired, map(understanding.predict, texts), strict=True)]
            out[f"{part}/{lang}"] = {"n": len(texts), "words": sum(words),
                                     "ngrams": sum(map(ngrams.is_stop, texts)) if ngrams else 0, "reflex": sum(fired),
                                     "words_or_model": sum(both), "served": sum(served)}
    return out


def node_expectation(case: dict, schema) -> dict:
    """Return the case as the node should answer it: out-of-range numbers are declined, never acted on."""
    if schema.out_of_range(case["intent"], case["slots"]):
        return dict(case, intent="none", slots={}, labelled_intent=case["intent"])
    return case


def model_answer(assistant, text: str) -> dict:
    """Return the model's own answer to `text` as a prediction row."""
    r = assistant.respond(text)
    return {"text": text, "intent": r.intent, "slots": r.slots, "response": r.text, "confidence": r.confidence,
            "second": r.second, "clause": r.clause, "guessed": list(r.guessed)}


def node_rules(assistant, model_dir: str | Path | None = None, ngram_threshold: float = 0.0,
               clarify_above: float = 0.0):
    """Return a function answering a text as globalgen_node does (cloud disabled): reflex, model, answer checks,
    clarify, and whether the answer is first asked (`asked`: requires_confirmation, motion below the intent's
    confirm_below, or a decline turned into a question about the command that came second)."""
    from globalgen_ros.serving.checks import check_answer
    from globalgen_ros.serving.confirm import Confirmations
    from globalgen_ros.serving.reflex import StopReflex
    from globalgen_ros.serving.stop_ngrams import load_for
    from globalgen_ros.watchdog.supervisor import EDGE, OK, Outcome

    reflex = StopReflex(ngrams=load_for(model_dir, ngram_threshold))
    confirmations = Confirmations(assistant.schema, words={})

    def answer(text: str) -> dict:
        if reflex.matches(text):
            return {"text": text, "intent": "stop", "slots": {}, "response": "", "source": "reflex"}
        row = model_answer(assistant, text)
        lang = detect_language(text)
        checked = check_answer(Outcome(OK, EDGE, row["response"], lang, intent=row["intent"], slots=row["slots"],
                                       confidence=row["confidence"], second=row["second"], clause=row["clause"],
                                       guessed=tuple(row["guessed"])),
                              text, assistant.schema)
        second = confirmations.clarify(checked, text, clarify_above)
        checked = second or checked
        asked = second is not None or confirmations.needs_asking(checked)  # a question: nothing moves before "yes"
        if asked:
            checked = confirmations.ask("eval", checked)  # the question the node would speak
        return dict(row, intent=checked.intent, slots=checked.slots, response=checked.text, notes=checked.notes,
                    asked=asked)
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
        report = stop_list_report(args.cases, default_model_dir(args.model_dir), args.stop_threshold,
                                  args.stop_min_confidence, args.ngram_threshold)
        rows = [f"{k:<16} n {r['n']:>4}  words {r['words']:>4}  n-grams {r['ngrams']:>4}  reflex {r['reflex']:>4}  "
                f"+ model path {r['words_or_model']:>4}  served {r['served']:>4}" for k, r in report.items()]
        print(json.dumps(report) if args.json else "\n".join(rows))
        return 0
    try:
        cases = load_cases(args.cases, args.limit)
        assistant = Assistant(args.model_dir, schema_path=args.schema, strategy=args.strategy, threads=args.threads,
                              calibration=None if args.strategy == "ar" else "measure",
                              understanding=not args.no_understanding,
                              stop_min_confidence=args.stop_min_confidence)
    except (CasesError, ModelArtifactError) as e:
        print(f"globalgen eval: {e}", file=sys.stderr)
        return 2
    predictions = []
    answer = (lambda text: model_answer(assistant, text)) if args.model_only else node_rules(
        assistant, args.model_dir, args.ngram_threshold, args.clarify_above)
    if not args.model_only:
        cases = [node_expectation(case, assistant.schema) for case in cases]
    for case in progress(cases, quiet=args.json):
        try:
            predictions.append(answer(case["text"]))
        except InputError as e:
            predictions.append({"text": case["text"], "intent": "", "slots": {}, "response": "", "error": str(e)})
    number_slots = {s.name: s.unit for i in assistant.schema.intents for s in i.slots if s.type == "number"}
    text_slots = {s.name for i in assistant.schema.intents for s in i.slots if s.type == "text"}
    result = score(cases, predictions, number_slots, text_slots)
    if args.predictions:
        with open(args.predictions, "w", encoding="utf-8") as f:
            for case, pred in zip(cases, predictions, strict=True):
                pred = dict(pred, expected_intent=case["intent"], expected_slots=case["slots"])
                f.write(json.dumps(pred, ensure_ascii=False) + "\n")
    print(json.dumps(result, ensure_ascii=False) if args.json else report_text(result))
    return 0
