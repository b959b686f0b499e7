"""Training examples for the understanding model: corpus turns, declines (minus held-out families), near-misses.

python -m globalgen_ros.understanding.data --corpus /work/scratch/corpus --tokenizer /work/scratch/tokenizer_pruned.json
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
from globalgen_ros.understanding.labels import ABSENT, Layout
from globalgen_ros.understanding.normalise import normalise, to_normalised_span

PHRASINGS = Path(__file__).resolve().parent.parent / "corpus" / "phrasings"
IGNORE = -100


@dataclass
class Example:
    text: str
    intent: str
    slots: dict
    lang: str
    source: str  # corpus | declines | near_misses


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


def near_miss_examples(path: Path = PHRASINGS / "near_misses.yaml") -> list[Example]:
    """All near-miss items (any intent)."""
    pairs = yaml.safe_load(path.read_text())["pairs"]
    return [
        Example(it["text"], it["intent"], dict(it.get("slots") or {}), lang, "near_misses")
        for p in pairs.values()
        for lang, items in p.items()
        for it in items
    ]


def repeat_factor(base: list[Example], extra: list[Example], target: float = 0.27) -> int:
    """Integer repeat of `extra` that brings the share of intent none closest to target."""

    def share(r: int) -> float:
        n_none = sum(e.intent == "none" for e in base) + r * sum(e.intent == "none" for e in extra)
        return n_none / (len(base) + r * len(extra))

    return min(range(1, 21), key=lambda r: abs(share(r) - target))


def token_span(offsets: list[tuple[int, int]], a: int, b: int) -> list[int]:
    """Indices of (non-special) tokens overlapping the char span [a, b)."""
    return [t for t, (s, e) in enumerate(offsets) if e > s and e > a and s < b]


def number_span(text: str, offsets: list[tuple[int, int]], value: str) -> list[int] | None:
    """Tokens of the number as said: its digits if written, else the minimal token span numbers_said reads as value."""
    m = re.search(r"(?<![\d.])" + re.escape(value) + r"(?!\d|\.\d)", text)
    if m:
        return token_span(offsets, m.start(), m.end())
    real = [t for t, (s, e) in enumerate(offsets) if e > s]
    for width in range(1, len(real) + 1):
        for i in range(len(real) - width + 1):
            ts = real[i : i + width]
            if numbers_said(text[offsets[ts[0]][0] : offsets[ts[-1]][1]]) == [value]:
                return ts
    return None


def encode_example(tok: Tokenizer, layout: Layout, ex: Example, max_len: int, drops: Counter) -> Encoded | None:
    """Tokenise the normalised text and build intent / BIO / enum labels; None (counted in drops) if unusable."""
    norm, idx = normalise(ex.text)
    enc = tok.encode(norm)
    ids, offsets = enc.ids, list(enc.offsets)
    if len(ids) > max_len:
        ids, offsets = ids[: max_len - 1] + ids[-1:], offsets[: max_len - 1] + [(0, 0)]
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
            a = ex.text.find(str(value))
            span = to_normalised_span(idx, a, a + len(str(value))) if a >= 0 else None
            toks = token_span(offsets, *span) if span else []
            reason = "text slot not a substring"
        elif kind == "number":
            toks = number_span(norm, offsets, str(value)) or []
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


def build_examples(corpus: Path, seed: int = 0, target_none: float = 0.27) -> dict:
    """All raw examples by source, the repeat factor for declines/near-misses, and the held-out families."""
    fams, part_a = decline_families()
    held = held_out_families(part_a, seed=seed)
    base = corpus_examples(corpus / "train.jsonl")
    declines = decline_examples(fams, [f for f in fams if f not in held])
    near = near_miss_examples()
    return {
        "corpus": base,
        "declines": declines,
        "near_misses": near,
        "held_out": decline_examples(fams, held),
        "held_out_families": held,
        "repeat": repeat_factor(base, declines + near, target_none),
    }


def main() -> None:
    from globalgen_ros.schema import load_schema
    from globalgen_ros.understanding.labels import layout_from_schema

    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=Path("/work/scratch/corpus"))
    ap.add_argument("--tokenizer", type=Path, default=Path("/work/scratch/tokenizer_pruned.json"))
    args = ap.parse_args()
    b = build_examples(args.corpus)
    layout, tok, drops = layout_from_schema(load_schema()), Tokenizer.from_file(str(args.tokenizer)), Counter()
    for src in ("corpus", "declines", "near_misses"):
        enc = [encode_example(tok, layout, e, 48, drops) for e in b[src]]
        print(src, len(b[src]), "kept", sum(x is not None for x in enc))
    print("repeat", b["repeat"], "held out", b["held_out_families"], "drops", dict(drops))


if __name__ == "__main__":
    main()
