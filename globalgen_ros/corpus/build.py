"""Build the seeded bilingual command corpus: train dialogues, held-out eval cases, and the natural set.

    PYTHONPATH=. .venv/bin/python -m globalgen_ros.corpus.build --out data/corpus --seed 0

The eval split shares no phrasing template and no free-text slot value with the train split.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from pathlib import Path

from globalgen_ros.corpus import lexicon
from globalgen_ros.corpus.noise import add_noise, en_number, zh_number
from globalgen_ros.corpus.phrasings import LANGS, Phrasings, Template, load
from globalgen_ros.corpus.templates import ENUM_SURFACE, RANDOM_ENUMS, reply
from globalgen_ros.schema import Schema, load_schema

TEXT_KINDS = ("destination", "location", "object", "contact", "query")
NUMBER_RANGES = {"temperature": (16, 32), "distance": (1, 20)}
EVAL_VALUE_PERCENT = 15
NATURAL_CASES = Path(__file__).with_name("natural_cases.jsonl")


def eval_value(value: str) -> bool:
    """Return True if a free-text value belongs to the eval split (stable hash, same across slots/languages)."""
    digest = hashlib.sha1(" ".join(value.casefold().split()).encode()).digest()
    return digest[0] * 100 // 256 < EVAL_VALUE_PERCENT


def all_templates(phrasings: Phrasings | None = None) -> list[Template]:
    """Every template of the phrasing files once.

    Batch 0 of an intent drops an exact repeat in its list (so it can't land in both splits; `none` keeps the two
    it has, its split was fixed that way); a later batch drops any template that can yield a sentence an earlier one
    yields.
    """
    templates = (phrasings or load()).templates
    out, seen = [], set()
    for t in templates:
        if t.batch == 0 and (t.intent.startswith("none:") or (t.intent, t.lang, t.fixed, t.text) not in seen):
            seen.add((t.intent, t.lang, t.fixed, t.text))
            out.append(t)
    return out + later_templates(out, templates)


def expansions(text: str) -> set[str]:
    """Every text a template can yield before slot filling and noise (all choices of its [a|b|] groups)."""
    texts = {text}
    while any("[" in t for t in texts):
        nxt = set()
        for t in texts:
            m = re.search(r"\[([^\[\]]*)\]", t)
            if not m:
                nxt.add(t)
                continue
            nxt.update(t[:m.start()] + alt + t[m.end():] for alt in m.group(1).split("|"))
        texts = nxt
    return {" ".join(t.casefold().split()) for t in texts}


def later_templates(earlier: list[Template], templates: list[Template] | None = None) -> list[Template]:
    """The templates of batches after 0, minus any that can yield a sentence an earlier template yields (either split):
    one of an earlier batch, or earlier in the same batch (files in name order)."""
    templates = load().templates if templates is None else templates
    taken = set().union(*(expansions(t.text) for t in earlier))
    out = []
    for batch in sorted({t.batch for t in templates} - {0}):
        for t in templates:
            if t.batch == batch:
                exp = expansions(t.text)
                if not exp & taken:
                    taken |= exp
                    out.append(t)
    return out


def split_templates(templates: list[Template], seed: int) -> tuple[list[Template], list[Template]]:
    """Hold out ~20% of each (intent, language, fixed values) group, keeping at least two for training.

    Batches are split one after the other, so templates added in a later batch leave the earlier split as it was.
    """
    groups: dict[tuple, list[Template]] = {}
    for t in templates:
        groups.setdefault((t.batch, t.intent, t.lang, t.fixed), []).append(t)
    train, held = [], []
    rng = random.Random(seed)
    for key in sorted(groups, key=lambda k: (k[0], str(k[1:]))):  # batch first; within it the old order
        items = sorted(groups[key], key=lambda t: t.index)
        rng.shuffle(items)
        n_eval = round(len(items) * 0.2) if len(items) >= 3 else 0
        held += items[:n_eval]
        train += items[n_eval:]
    return train, held


def expand(rng: random.Random, text: str) -> str:
    """Pick one alternative of every [a|b|] group."""
    text = re.sub(r"\[([^\[\]]*)\]", lambda m: rng.choice(m.group(1).split("|")), text)
    return re.sub(r" {2,}", " ", text).strip()


class Builder:
    def __init__(self, schema: Schema, seed: int, values_per_kind: int = 6000, max_batch: int | None = None,
                 kin_weight: float = 0.0, phrasings: Phrasings | None = None):
        """`max_batch`: use template batches up to this one (default: all); `phrasings`: default the package's."""
        self.schema, self.seed, self.kin_weight = schema, seed, kin_weight
        self.phrasings = phrasings or load()
        templates = all_templates(self.phrasings)
        self.max_batch = max(t.batch for t in templates) if max_batch is None else max_batch
        self.train_t, self.eval_t = split_templates([t for t in templates if t.batch <= self.max_batch], seed)
        self.check_coverage()
        rng = random.Random(seed)
        self.values: dict[tuple, dict[bool, list[str]]] = {}
        for lang in ("zh", "en"):
            for kind in TEXT_KINDS:
                pool = lexicon.value_pool(rng, lang, kind, values_per_kind)
                self.values[(lang, kind)] = {False: [v for v in pool if not eval_value(v)],
                                             True: [v for v in pool if eval_value(v)]}
        self.kin = {lang: [v for v in rel if not eval_value(v)]  # train-side kin terms and such, drawn at kin_weight
                    for lang, rel in (("zh", lexicon.ZH_RELATIONS), ("en", lexicon.EN_RELATIONS))}

    def check_coverage(self) -> None:
        """Raise ValueError naming the phrasing file an intent of the schema lacks (or a none reply)."""
        have = {(t.intent.split(":")[0], t.lang) for t in self.train_t}
        for name in self.schema.names:
            for lang in LANGS:
                if (name, lang) not in have:
                    raise ValueError(f"intent {name!r} has no {lang} phrasing up to batch {self.max_batch}: add "
                                     f"globalgen_ros/corpus/phrasings/{name}.{lang}.yaml")
        for cat in {t.intent[5:] for t in self.train_t + self.eval_t if t.intent.startswith("none:")}:
            for lang in LANGS:
                if lang not in self.phrasings.none_replies.get(cat, {}):
                    raise ValueError(f"none category {cat!r} has no reply in none.{lang}.yaml")

    def templates(self, held_out: bool, intent: str, lang: str) -> list[Template]:
        pool = self.eval_t if held_out else self.train_t
        if intent == "none":
            return [t for t in pool if t.intent.startswith("none:") and t.lang == lang]
        return [t for t in pool if t.intent == intent and t.lang == lang]

    def turn(self, rng: random.Random, held_out: bool, intent: str, lang: str) -> dict:
        """Render one user turn with its intent, slots and reply."""
        choices = self.templates(held_out, intent, lang)
        if not choices:  # every group keeps train templates; an intent with no held-out ones uses train ones
            choices = self.templates(False, intent, lang)
        tpl = rng.choice(choices)
        text = expand(rng, tpl.text)
        fixed = dict(tpl.fixed)
        lower = lang == "en" and rng.random() < 0.45
        parts: list[str] = []
        slots: dict[str, str] = dict(fixed)
        for i, piece in enumerate(re.split(r"(\{[a-z_]+\})", text)):
            if i % 2 == 0:
                parts.append(piece)
                continue
            name = piece[1:-1]
            surface, value = self.slot_text(rng, held_out, intent, lang, name, fixed)
            if lower:
                surface = surface.lower()
            slots[name] = value if name in RANDOM_ENUMS or name in NUMBER_RANGES else surface
            parts.append(surface)
        user = add_noise(rng, parts, lang, lower=lower)
        for value in parts[1::2]:
            if lang == "en" and not re.search(re.escape(value) + r"(?![A-Za-z0-9])", user, re.IGNORECASE):
                raise ValueError(f"template {tpl.key}: the noise glued a word onto the slot value {value!r}: {user!r}")
        if intent == "none":
            out = {"user": user, "intent": "none", "slots": {},
                   "reply": self.phrasings.none_replies[tpl.intent[5:]][lang]}
        else:
            spec = self.schema[intent]
            missing = [s.name for s in spec.slots if not s.optional and s.name not in slots]
            if missing:
                raise ValueError(f"template {tpl.key} {tpl.text!r} leaves required slot(s) {missing} empty")
            slots = {s.name: slots[s.name] for s in spec.slots if s.name in slots}
            out = {"user": user, "intent": intent, "slots": slots, "reply": reply(intent, lang, slots, self.phrasings)}
        out["template"] = tpl.key
        return out

    def slot_text(self, rng, held_out, intent, lang, name, fixed) -> tuple[str, str]:
        """Return (surface text, normalised value) for one slot placeholder."""
        if name in NUMBER_RANGES:
            n = rng.randint(*NUMBER_RANGES[name])
            if rng.random() < 0.5:
                return str(n), str(n)
            return (zh_number(n) if lang == "zh" else en_number(n)), str(n)
        if name in RANDOM_ENUMS:
            value = fixed.get(name)
            if value is None:
                values = [v for v in self.schema[intent].slot(name).values if not (name == "position" and v == "all")]
                value = rng.choice(values)
            return rng.choice(ENUM_SURFACE[lang][name][value]), value
        kind = "location" if name == "location" else name
        if kind == "contact" and not held_out and self.kin_weight and rng.random() < self.kin_weight:
            value = rng.choice(self.kin[lang])  # "妈妈", "Mom": otherwise one value among thousands
        else:
            value = rng.choice(self.values[(lang, kind)][held_out])
        if lang == "en" or value.isascii():
            value = lexicon.recase(rng, value)
        return value, value

    def sample_intent(self, rng: random.Random) -> str:
        names = self.schema.names
        weights = [2.5 if n == "none" else 1.0 for n in names]
        return rng.choices(names, weights)[0]

    def dialogue(self, rng: random.Random, held_out: bool = False, multi_turn: float = 0.25,
                 max_turns: int = 5) -> dict:
        lang = rng.choice(["zh", "en"])
        n_turns = 1 if rng.random() >= multi_turn else rng.randint(2, max_turns)
        turns = []
        for _ in range(n_turns):
            if rng.random() < 0.1:
                lang = "en" if lang == "zh" else "zh"
            turns.append(self.turn(rng, held_out, self.sample_intent(rng), lang))
        return {"lang": lang, "turns": turns}


def write_jsonl(path: Path, rows) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


def build(out: str | Path, seed: int = 0, n_train: int = 150_000, n_eval: int = 2000,
          schema_path: str | None = None, max_batch: int | None = None, kin_weight: float = 0.05) -> dict:
    """Write train.jsonl (dialogues), eval.jsonl (cases) and natural.jsonl (cases) to `out`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    builder = Builder(load_schema(schema_path), seed, max_batch=max_batch, kin_weight=kin_weight)
    rng = random.Random(seed + 1)
    n = write_jsonl(out / "train.jsonl", (builder.dialogue(rng) for _ in range(n_train)))
    rng = random.Random(seed + 2)
    cases = []
    for i in range(n_eval):
        lang = "zh" if i % 2 == 0 else "en"
        t = builder.turn(rng, True, builder.sample_intent(rng), lang)
        cases.append({"text": t["user"], "intent": t["intent"], "slots": t["slots"], "lang": lang,
                      "reply": t["reply"], "template": t["template"]})
    write_jsonl(out / "eval.jsonl", cases)
    (out / "natural.jsonl").write_text(NATURAL_CASES.read_text(encoding="utf-8"), encoding="utf-8")
    info = {"seed": seed, "max_batch": builder.max_batch, "kin_weight": kin_weight, "train_dialogues": n,
            "eval_cases": len(cases), "train_templates": len(builder.train_t), "eval_templates": len(builder.eval_t)}
    (out / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="data/corpus")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train", type=int, default=150_000, help="number of training dialogues")
    parser.add_argument("--eval", type=int, default=2000, help="number of held-out eval cases")
    parser.add_argument("--schema", help="intent schema (default config/intents.yaml)")
    parser.add_argument("--max-batch", type=int,
                        help="use template batches up to this one (0: the corpus the v6 models were trained on; 1: "
                             "v7's; 2: v8's; 3: v9's; default: all the phrasing files have)")
    parser.add_argument("--kin-weight", type=float, default=0.05,
                        help="share of training contact slots drawn from the kin terms (妈妈, Mom ...; train side "
                             "only; 0 for the corpora of v8 and earlier)")
    args = parser.parse_args(argv)
    print(json.dumps(build(args.out, args.seed, args.train, args.eval, args.schema, args.max_batch,
                           args.kin_weight)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
