"""Score answers against labelled cases: intent and slot accuracy and the trust measures, per language and kind.

One module for `globalgen eval` (cli/eval.py), the model report and the model checks (model/report.py,
model/check.py) and the understanding model's own evaluation (understanding/evaluate.py). A case's slots are
correct when the predicted slots equal the expected ones exactly (all of them, none extra), compared
case-insensitively with surrounding spaces, punctuation and a leading English article ignored. Motion where a
decline was right counts the motion intents a robot would act on; a prediction marked `asked` (published as a
question first: nothing moves before a "yes") is counted apart, as motion asked.
"""

from __future__ import annotations

import json
from pathlib import Path

from globalgen_ros.watchdog.language import detect_language, is_ideograph, language_code

PUNCT = " \t.,!?;:。，！？；：、\"'“”‘’"
MOTION = {"navigate", "robot_move", "robot_go_to", "robot_pick", "robot_place"}
NUMBER_SLOTS = {"temperature": "°C", "distance": "m"}  # name -> unit, the shipped schema's; `run` passes its schema's
TEXT_SLOTS = {"destination", "query", "contact", "location", "object"}  # spans of the words said (enums are not)


class CasesError(ValueError):
    """The cases file is missing or has a malformed line (the message names the line)."""


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


def trust(pairs: list[tuple[dict, dict]], number_slots=NUMBER_SLOTS, text_slots=TEXT_SLOTS) -> dict:
    """Return the trust measures of (case, prediction) pairs (see the module docstring)."""
    from globalgen_ros.grounding.numbers import is_said
    from globalgen_ros.grounding.units import said_in_unit

    units = number_slots if isinstance(number_slots, dict) else {}

    def said(k: str, v: str, text: str) -> bool:  # in digits or words, or a length converted to the slot's unit
        return is_said(v, text) or said_in_unit(v, text, units.get(k, ""))

    gold_none = [(c, p) for c, p in pairs if c["intent"] == "none"]
    stops = [(c, p) for c, p in pairs if c["intent"] == "stop"]
    return {
        "decline_rate": round(sum(p["intent"] == "none" for _, p in gold_none) / len(gold_none), 4)
        if gold_none else None,
        "motion_where_decline": sum(p["intent"] in MOTION and not p.get("asked") for _, p in gold_none),
        "motion_asked_where_decline": sum(p["intent"] in MOTION and bool(p.get("asked")) for _, p in gold_none),
        "motion_right_asked": sum(p["intent"] in MOTION and bool(p.get("asked")) for c, p in pairs
                                  if c["intent"] == p["intent"]),
        "false_stops": sum(p["intent"] == "stop" for c, p in pairs if c["intent"] != "stop"),
        "stop_recall": round(sum(p["intent"] == "stop" for _, p in stops) / len(stops), 4) if stops else None,
        "numbers_not_said": sum(not said(k, v, c["text"]) for c, p in pairs for k, v in p["slots"].items()
                                if k in number_slots),
        "latin_spans_cut": sum(cuts_a_word(c["text"], v) for c, p in pairs for k, v in p["slots"].items()
                               if k in text_slots and not _cjk(v[:1] or "a")),
        "chinese_spans_cut": sum(cuts_a_chinese_word(c["text"], v) for c, p in pairs for k, v in p["slots"].items()
                                 if k in text_slots and _cjk(v[:1] or "a")),
    }


def score(cases: list[dict], predictions: list[dict], number_slots=NUMBER_SLOTS, text_slots=TEXT_SLOTS) -> dict:
    """Return n, intent_accuracy (with a template-resampled 95 % interval), slot_accuracy, overall and per language."""
    def block(pairs) -> dict:
        n = len(pairs)
        intent = sum(c["intent"] == p["intent"] for c, p in pairs)
        slots = sum(slots_match(c["slots"], p["slots"]) for c, p in pairs)
        with_slots = [(c, p) for c, p in pairs if c["slots"]]
        return {"n": n, "intent_accuracy": round(intent / n, 4) if n else 0.0, **trust(pairs, number_slots, text_slots),
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
             f"{'asked':>5} {'f.stop':>6} {'num!':>5} {'cut':>4} {'zh cut':>6}"]
    for name, r in rows:
        decline = f"{r['decline_rate']:.1%}" if r["decline_rate"] is not None else "-"
        lines.append(f"{name:<28} {r['n']:>5} {r['intent_accuracy']:>8.2%} {r['slot_accuracy']:>8.2%} "
                     f"{r['exact']:>8.2%} {decline:>8} {r['motion_where_decline']:>6} "
                     f"{r['motion_asked_where_decline']:>5} {r['false_stops']:>6} "
                     f"{r['numbers_not_said']:>5} {r['latin_spans_cut']:>4} {r['chinese_spans_cut']:>6}")
    return "\n".join(lines)
