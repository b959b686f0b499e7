"""Training examples for the understanding model: corpus turns, declines (minus held-out families), near-misses.

python -m globalgen_ros.understanding.data --corpus runs/nlu/corpus --tokenizer runs/nlu/tokenizer_pruned.json
"""

import argparse
import json
import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml
from tokenizers import Tokenizer

from globalgen_ros.grounding.numbers import numbers_said
from globalgen_ros.understanding.labels import ABSENT, NOT_STOP_ID, Layout
from globalgen_ros.understanding.normalise import normalise, to_normalised_span
from globalgen_ros.watchdog.language import detect_language, language_code

PHRASINGS = Path(__file__).resolve().parent.parent / "corpus" / "phrasings"
IGNORE = -100


@dataclass
class Example:
    text: str
    intent: str
    slots: dict
    lang: str
    source: str  # corpus | declines | near_misses
    start: int = 0  # where the command starts in text (after a context prefix added by wrap_context)


@dataclass
class Encoded:
    ids: list[int]
    tags: list[int]  # per token; IGNORE on <s>, </s>
    intent: int
    enums: list[int]  # per enum group; IGNORE for groups of other intents
    ex: Example


def corpus_examples(path: Path) -> list[Example]:
    """Every user turn of the corpus dialogues (train.jsonl)."""
    out = []
    for line in path.read_text().splitlines():
        d = json.loads(line)
        out += [Example(t["user"], t["intent"], t["slots"], d["lang"], "corpus") for t in d["turns"]]
    return out


def decline_families(path: Path = PHRASINGS / "declines.yaml") -> tuple[dict, list[str]]:
    """(family -> {lang: [text]}, names of the out-of-schema part (a) families, i.e. before the (b) marker)."""
    raw = path.read_text()
    part_b = set(re.findall(r"^  ([a-z_]+):\s*$", raw.split("# ---- (b)")[1], flags=re.M))
    fams = yaml.safe_load(raw)["families"]
    return fams, [f for f in fams if f not in part_b]


def held_out_families(part_a: list[str], n: int = 8, seed: int = 0) -> list[str]:
    """A fixed-seed sample of n whole out-of-schema families kept out of training."""
    return sorted(random.Random(seed).sample(part_a, n))


def decline_examples(fams: dict, names: list[str]) -> list[Example]:
    """All utterances (intent none) of the named families."""
    return [Example(t, "none", {}, lang, "declines") for f in names for lang, ts in fams[f].items() for t in ts]


# Labelled training-only items in the near-miss format, written (blind to every evaluation set) for the kinds the
# corpus templates teach least: urgent stops with reasons and their near misses, numbers next to distractor numbers
# and self-corrections, casual / code-switched / polite commands and casual declines.
SUPPLEMENTS = ("urgent_stops.yaml", "numbers_in_context.yaml", "casual_commands.yaml", "paired_declines.yaml",
               "situation_remarks.yaml", "motion_contrasts.yaml", "addressee_narratives.yaml", "natural_commands.yaml",
               "speech_styles.yaml", "stop_idioms.yaml", "request_forms.yaml", "natural_speech.yaml",
               "decline_kinds.yaml", "speech_forms.yaml", "english_forms.yaml", "session25_forms.yaml",
               "session27_forms.yaml", "session28_forms.yaml", "session31_forms.yaml")
# Written, checked by the same tests, not yet trained on: add them to SUPPLEMENTS when training the next model, so
# that its recipe names what it saw. (request_forms.yaml and natural_speech.yaml: first shipped in v21, session 20;
# speech_forms.yaml (session 22) and english_forms.yaml (session 23): first shipped in v27s, session 24;
# session25_forms.yaml (session 25) and session27_forms.yaml (motion and stop trust): first shipped in v35s,
# session 27; session28_forms.yaml (self-corrections, non-native speech) and session31_forms.yaml (the edge of
# motion, in minimal pairs): first shipped in v38, session 31.)
NOT_YET_TRAINED: tuple[str, ...] = ("session32_forms.yaml", "session33_forms.yaml", "session34_forms.yaml",
                                  "session36_forms.yaml")  # v39-v45


# The blind stop-reflex lists (eval/blind/reflex_stops*.json, 1-14; 21-27 from v35s on), written for the reflex and
# tuned on by its word lists since, are training data from v22 on: an urgent line is `stop`; a near miss is only
# known to be "not a stop" (its intent was never written), so it is a partial label (NOT_STOP) that teaches the
# intent head nothing but that.
# Lists 15-20 (clause 4 of the model rules, docs/model.md) and 28 on are the blind test of the model's stops.
BLIND = Path(__file__).resolve().parents[2] / "eval" / "blind"
STOP_LISTS = ("reflex_stops.json", *(f"reflex_stops_{i}.json" for i in (*range(2, 15), *range(21, 28))))
NOT_STOP = "<not_stop>"  # Example.intent of a near miss; encoded as labels.NOT_STOP_ID


def stop_list_examples(root: Path = BLIND, names: tuple[str, ...] = STOP_LISTS) -> list[Example]:
    """Urgent lines as `stop`, near misses as NOT_STOP, deduplicated by (lang, text); an error if a list is missing."""
    seen, out = set(), []
    for name in names:
        d = json.loads((root / name).read_text(encoding="utf-8"))
        for part, intent in (("urgent", "stop"), ("near_miss", NOT_STOP)):
            for lang, texts in d[part].items():
                for t in texts:
                    if (lang, t) not in seen:
                        seen.add((lang, t))
                        out.append(Example(t, intent, {}, lang, "stop_lists"))
    return out


def near_miss_examples(path: Path = PHRASINGS / "near_misses.yaml", source: str = "near_misses") -> list[Example]:
    """All items of a near-miss-format file (any intent)."""
    pairs = yaml.safe_load(path.read_text())["pairs"]
    return [
        Example(it["text"], it["intent"], {k: str(v) for k, v in (it.get("slots") or {}).items()}, lang, source)
        for p in pairs.values()
        for lang, items in p.items()
        for it in items
    ]


# Declines of the supplements that touch a held-out decline family (held_out_families, seed 0) are not trained on,
# so the held-out families stay unseen.
HELD_OUT_TOPICS = re.compile(
    r"mirror|sunroof|moonroof|massage|remind|podcast|audiobook|audio book|park(ing)? assist|self.?park|seat position|"
    r"seat (forward|back|up|down)|move (my|the) seat|recline|convert|conversion|how many (inches|feet|miles|pounds)|"
    r"后视镜|倒车镜|天窗|按摩|提醒|播客|有声书|听书|泊车|自动停车|座椅(位置|往|向|前|后|靠背)|调座椅|靠背|换算|等于多少",
    re.I,
)


def supplement_examples(names: tuple[str, ...] = SUPPLEMENTS) -> list[Example]:
    """The items of the supplement files that exist, deduplicated by (lang, text), minus declines that touch a
    held-out family (HELD_OUT_TOPICS)."""
    seen, out = set(), []
    for name in names:
        if (PHRASINGS / name).exists():
            for ex in near_miss_examples(PHRASINGS / name, "supplements"):
                if ex.intent == "none" and HELD_OUT_TOPICS.search(ex.text):
                    continue
                if (ex.lang, ex.text) not in seen:
                    seen.add((ex.lang, ex.text))
                    out.append(ex)
    return out


def repeat_factor(base: list[Example], extra: list[Example], target: float = 0.27) -> int:
    """Integer repeat of `extra` that brings the share of intent none closest to target."""

    def share(r: int) -> float:
        n_none = sum(e.intent == "none" for e in base) + r * sum(e.intent == "none" for e in extra)
        return n_none / (len(base) + r * len(extra))

    return min(range(1, 21), key=lambda r: abs(share(r) - target))


def token_span(offsets: list[tuple[int, int]], a: int, b: int) -> list[int]:
    """Indices of (non-special) tokens overlapping the char span [a, b)."""
    return [t for t, (s, e) in enumerate(offsets) if e > s and e > a and s < b]


def number_span(text: str, offsets: list[tuple[int, int]], value: str, start: int = 0) -> list[int] | None:
    """Tokens of the number as said at or after char start: its digits if written, else the minimal token span
    numbers_said reads as value (the first one, so a distractor said earlier in a context prefix is skipped)."""
    m = re.compile(r"(?<![\d.])" + re.escape(value) + r"(?!\d|\.\d)").search(text, start)
    if m:
        return token_span(offsets, m.start(), m.end())
    real = [t for t, (s, e) in enumerate(offsets) if e > s and s >= start]
    for width in range(1, len(real) + 1):
        for i in range(len(real) - width + 1):
            ts = real[i : i + width]
            if numbers_said(text[offsets[ts[0]][0] : offsets[ts[-1]][1]]) == [value]:
                return ts
    return None


def encode_example(tok: Tokenizer, layout: Layout, ex: Example, max_len: int, drops: Counter) -> Encoded | None:
    """Tokenise the normalised text and build intent / BIO / enum labels; None (counted in drops) if unusable. A
    NOT_STOP example gets intent NOT_STOP_ID and no tag or enum labels."""
    norm, idx = normalise(ex.text)
    enc = tok.encode(norm)
    ids, offsets = enc.ids, list(enc.offsets)
    if len(ids) > max_len:
        ids, offsets = ids[: max_len - 1] + ids[-1:], offsets[: max_len - 1] + [(0, 0)]
    if ex.intent == NOT_STOP:
        return Encoded(ids, [IGNORE] * len(ids), NOT_STOP_ID, [IGNORE] * len(layout.enums), ex)
    tags = [IGNORE if e <= s and t in (0, len(ids) - 1) else 0 for t, (s, e) in enumerate(offsets)]
    enums = [IGNORE] * len(layout.enums)
    types = layout.slot_types[ex.intent]
    for name, value in ex.slots.items():
        kind = types.get(name)
        if kind == "enum":
            key = f"{ex.intent}.{name}"
            enums[layout.groups.index(key)] = layout.enums[key]["values"].index(str(value))
            continue
        if kind == "text":
            a = ex.text.find(str(value), ex.start)
            span = to_normalised_span(idx, a, a + len(str(value))) if a >= 0 else None
            toks = token_span(offsets, *span) if span else []
            reason = "text slot not a substring"
        elif kind == "number":
            n0 = next((j for j, i in enumerate(idx) if i >= ex.start), len(norm))
            toks = number_span(norm, offsets, str(value), n0) or []
            reason = "number slot not found"
        else:
            toks, reason = [], "slot not in schema"
        if not toks:
            drops[f"{ex.source}: {reason}"] += 1
            return None
        tags[toks[0]] = layout.tag_id(f"B-{name}")
        for t in toks[1:]:
            tags[t] = layout.tag_id(f"I-{name}")
    for key in layout.groups:  # enum groups of the gold intent that are not set -> <absent>
        if key.startswith(ex.intent + ".") and enums[layout.groups.index(key)] == IGNORE:
            enums[layout.groups.index(key)] = layout.enums[key]["values"].index(ABSENT)
    return Encoded(ids, tags, layout.intents.index(ex.intent), enums, ex)


def build_examples(corpus: Path, seed: int = 0, target_none: float = 0.27, stop_lists: bool = False) -> dict:
    """All raw examples by source, the repeat factor for declines/near-misses, and the held-out families; with
    stop_lists, the lines of the tuned-on stop lists too (source stop_lists, not repeated)."""
    fams, part_a = decline_families()
    held = held_out_families(part_a, seed=seed)
    base = corpus_examples(corpus / "train.jsonl")
    declines = decline_examples(fams, [f for f in fams if f not in held])
    near = near_miss_examples()
    supp = supplement_examples()
    return {
        "corpus": base,
        "declines": declines,
        "near_misses": near,
        "supplements": supp,
        "stop_lists": stop_list_examples() if stop_lists else [],
        "held_out": decline_examples(fams, held),
        "held_out_families": held,
        "repeat": repeat_factor(base, declines + near + supp, target_none),
        "context_pool": context_pool(fams, corpus_context_lines(corpus / "train.jsonl")),
    }


# ---- context wrapping -------------------------------------------------------------------------------------------
# Families of declines.yaml part (b) whose lines may sit around a command as unrelated context (never negation,
# hypothetical_conditional, stop_like_not_stop, feature_question, come_here_follow_me: those change the meaning;
# nor past_reported since v11b: past-tense context before commands taught v10b and v11 to act on reported speech).
CONTEXT_FAMILIES = ("chit_chat", "wish_complaint_without_request", "general_knowledge_question")
# Lines mentioning anything the schema acts on are not used as context (so a prefix never holds a command).
SCHEMA_WORDS = re.compile(
    r"\b(navigat\w*|route|directions?|go|going|take|drive|head|home|cancel|stop\w*|halt|temperature|degrees?|"
    r"heat\w*|warm\w*|cold|cool\w*|hot|ac|air|climate|fan|window\w*|music|song\w*|play\w*|tunes?|radio|track|"
    r"pause\w*|resume|skip|next|previous|volume|loud\w*|quiet|call\w*|phone|ring|dial|seats?|robot\w*|move\w*|"
    r"forward|back\w*|left|right|pick\w*|grab|put|place|bring|turn\w*|open\w*|clos\w*|leave|never mind|sing)\b"
    r"|导航|路线|去|回|到|走|开|关|停|别|取消|温度|度|暖|热|冷|凉|空调|风|窗|音乐|歌|播|放|听|暂停|下一|上一|音量|声|"
    r"电话|打给|拨|座椅|加热|机器人|小G|移动|前|后|左|右|拿|捡|搬|送|带|算了"
)
# Lines saying the speaker is not addressing the assistant would contradict a command after them.
NOT_TO_YOU = re.compile(r"not talking to you|talking to my|kidding|ignore|不是在跟你|不是跟你|跟朋|开玩笑|别理")
JOINERS = {"en": (", ", " ", ". ", " so ", " anyway ", ", anyway, "), "zh": ("，", "。", " ", "", "，那个", "。嗯")}
TRAILERS = {
    "en": ("thanks", "thank you", "thanks a lot", "cheers", "if you can", "ok"),
    "zh": ("谢谢啊", "谢谢", "麻烦你了", "辛苦了", "好吗", "谢啦"),
}
TRAIL_JOIN = {"en": (", ", " ", ". "), "zh": ("，", "", " ", "。")}


CORPUS_CONTEXT_TEMPLATES = ("none:smalltalk", "none:greeting")


def corpus_context_lines(path: Path) -> list[tuple[str, str]]:
    """(lang, text) of the unique small-talk / greeting user turns of train.jsonl (more varied context than the
    yaml families alone); lang by script, as the corpus mixes a few code-switched lines in."""
    seen = set()
    for line in path.read_text().splitlines():
        for t in json.loads(line)["turns"]:
            if t["intent"] == "none" and t.get("template", "").split("/")[0] in CORPUS_CONTEXT_TEMPLATES:
                lang = language_code(detect_language(t["user"]))
                seen.add((lang, t["user"]))
    return sorted(seen)


def context_pool(fams: dict, extra: list[tuple[str, str]] = ()) -> dict[str, list[str]]:
    """Per language, the lines of CONTEXT_FAMILIES (and extra (lang, text) lines) that mention nothing of the
    schema and say no number; end punctuation stripped (the joiner supplies it)."""
    lines = [(lang, t) for f in CONTEXT_FAMILIES for lang, ts in fams[f].items() for t in ts] + list(extra)
    pool: dict[str, list[str]] = {}
    for lang, t in lines:
        t = t.strip().rstrip(" .!?。！？，,")
        if t and not SCHEMA_WORDS.search(t.lower()) and not NOT_TO_YOU.search(t.lower()) and not numbers_said(t):
            pool.setdefault(lang, []).append(t)
    return {lang: sorted(set(ts)) for lang, ts in pool.items()}


def wrap_context(ex: Example, pool: dict[str, list[str]], rng: random.Random) -> Example:
    """The example with 1-2 context clauses of its own language before it (and, 1 time in 4, a short trailer
    such as "thanks" / "谢谢啊" after it), joined as people speak; intent and slots are kept, start marks where
    the command begins so that text slots are looked up after the prefix."""
    lang = ex.lang
    j = JOINERS[lang]
    text = rng.choice(pool[lang])
    if rng.random() < 0.35:
        text += rng.choice(j[:3]) + rng.choice(pool[lang])
    cmd = ex.text
    if lang == "en" and rng.random() < 0.7:
        cmd = cmd[:1].lower() + cmd[1:]
    text += rng.choice(j)
    start = len(text)
    text += cmd
    if rng.random() < 0.25:
        text = text.rstrip(" .!?。！？，,") + rng.choice(TRAIL_JOIN[lang]) + rng.choice(TRAILERS[lang])
    return Example(text, ex.intent, ex.slots, lang, ex.source + "+ctx", start)


def augment_context(
    examples: list[Example], pool: dict[str, list[str]], seed: int = 0, p_pos: float = 0.35, p_none: float = 0.15
) -> tuple[list[Example], Counter]:
    """Context-wrapping augmentation (seeded): each corpus/declines example with a non-none intent is replaced by
    wrap_context(...) with probability p_pos, each none example with probability p_none (it stays none, so
    length is no cue). Examples of every source may be wrapped: the context lines hold no command, so a wrapped
    negation stays a negation. Returns the new list and counts by outcome."""
    rng, n = random.Random(seed), Counter()
    out = []
    for ex in examples:
        p = p_none if ex.intent == "none" else p_pos
        if ex.lang in pool and rng.random() < p:
            out.append(wrap_context(ex, pool, rng))
            n["wrapped_" + ("none" if ex.intent == "none" else "pos")] += 1
        else:
            out.append(ex)
    return out, n


def main(argv: list[str] | None = None) -> None:
    from globalgen_ros.schema import load_schema
    from globalgen_ros.understanding.labels import layout_from_schema

    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=Path("runs/nlu/corpus"))
    ap.add_argument("--tokenizer", type=Path, default=Path("runs/nlu/tokenizer_pruned.json"))
    args = ap.parse_args(argv)
    b = build_examples(args.corpus)
    layout, tok, drops = layout_from_schema(load_schema()), Tokenizer.from_file(str(args.tokenizer)), Counter()
    for src in ("corpus", "declines", "near_misses", "supplements"):
        enc = [encode_example(tok, layout, e, 48, drops) for e in b[src]]
        print(src, len(b[src]), "kept", sum(x is not None for x in enc))
    print("repeat", b["repeat"], "held out", b["held_out_families"], "drops", dict(drops))


if __name__ == "__main__":
    main()
