"""Load the corpus's phrasing templates: `phrasings/<intent>.<lang>.yaml`, one file per intent and language.

An intent's file::

    intent: climate                # an intent of config/intents.yaml
    lang: en                       # en or zh
    reply: "Turning the AC {state}."   # optional: only for an intent templates.reply() has no reply for
    templates:
      - {batch: 0, text: "turn {state} the [AC|air conditioning]"}
      - {batch: 1, fixed: {state: "on"}, text: "blast the AC"}

`none.<lang>.yaml` has `categories:` instead, each with its `reply` and its `templates`. Template syntax: `{slot}`
is a slot placeholder; `[a|b|]` picks one alternative (an empty one makes it optional); a placeholder inside an
alternative makes the slot optional ("move {direction}[ {distance} meters|]"). `fixed` gives slot values the text
implies (an enum slot, or one the text never names). A `reply` may be a list: the first whose `{slot}` fields the
slots all fill is used ("Turning the {seat} seat heating {state}.", then "Turning the seat heating {state}.").
Quote "on" and "off": YAML reads them as booleans.

`batch` is when a template was written; the builder splits train / held-out one batch after the other, so a new
batch leaves the earlier split as it was. 0: sessions 1-3 (the v6 corpus), 1: session 5 (v7), 2: session 6 (v8;
written blind to the corpus by two helpers, one per language), 3: session 7 (blind too, steered by v8's error
categories; a few carry ASR slips on purpose: "turn of the AC", "到航到"). Batches only grow down a file (a
category's list in `none`), and a template's key is `<intent>/<lang>/<position>` (`none:<category>/...`), so
new templates go at the end, in a new batch: inserting one shifts the keys after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

DIRECTORY = Path(__file__).with_name("phrasings")
LANGS = ("en", "zh")
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class PhrasingError(ValueError):
    """A phrasing file that does not follow the format above."""


@dataclass(frozen=True)
class Template:
    intent: str  # or "none:<category>"
    lang: str
    index: int  # position in its file (in its category's list, for none)
    text: str
    fixed: tuple = ()  # fixed slot values as sorted (slot, value) pairs
    batch: int = 0

    @property
    def key(self) -> str:
        return f"{self.intent}/{self.lang}/{self.index}"


@dataclass
class Phrasings:
    templates: list[Template] = field(default_factory=list)  # file by file (in name order), each in its own order
    none_replies: dict[str, dict[str, str]] = field(default_factory=dict)  # category -> lang -> reply
    replies: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (intent, lang) -> reply alternatives
    files: list[Path] = field(default_factory=list)

    def reply(self, intent: str, lang: str, slots: dict[str, str]) -> str:
        """Return the file's reply for `intent` with the slot values filled in (KeyError if it has none)."""
        for alt in self.replies[intent, lang]:
            if set(placeholders(alt)) <= set(slots):
                return alt.format(**slots)
        raise KeyError(f"no reply of {intent}.{lang}.yaml fits the slots {sorted(slots)}")


def placeholders(text: str) -> list[str]:
    """The slot names of a template's (or a reply's) `{slot}` fields."""
    return re.findall(r"\{([a-z_]+)\}", text)


def phrasing_files(directory: str | Path = DIRECTORY) -> list[Path]:
    """Every `<intent>.<lang>.yaml` of the folder, in name order (other YAML files there are not phrasings)."""
    return sorted(p for lang in LANGS for p in Path(directory).glob(f"*.{lang}.yaml"))


def _templates(path: Path, key: str, lang: str, items) -> list[Template]:
    if not isinstance(items, list) or not items:
        raise PhrasingError(f"{path}: {key}: `templates` must be a non-empty list")
    out, last = [], 0
    for i, item in enumerate(items):
        where = f"{path}: {key}: template {i}"
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or set(item) - {"batch", "text",
                                                                                               "fixed"}:
            raise PhrasingError(f"{where}: expected {{batch: N, text: \"...\"}} (and optional fixed: {{slot: value}})")
        batch, fixed = item.get("batch"), item.get("fixed") or {}
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < last:
            raise PhrasingError(f"{where}: batch must be an integer >= {last} (batches only grow down the list)")
        if not isinstance(fixed, dict) or not all(isinstance(v, str) for v in fixed.values()):
            raise PhrasingError(f"{where}: fixed must map slots to strings (quote \"on\" and \"off\")")
        last = batch
        out.append(Template(key, lang, i, item["text"], tuple(sorted(fixed.items())), batch))
    return out


def load_file(path: str | Path) -> tuple[str, str, list[Template], dict]:
    """Return (intent, lang, templates, replies) of one file; replies: {"": alternatives} or {category: reply}."""
    path = Path(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise PhrasingError(f"{path}: {e}") from None
    if not isinstance(data, dict):
        raise PhrasingError(f"{path}: expected a mapping with intent, lang and templates")
    intent, lang = data.get("intent"), data.get("lang")
    if path.name != f"{intent}.{lang}.yaml" or lang not in LANGS:
        raise PhrasingError(f"{path}: intent {intent!r} / lang {lang!r} do not match the file name "
                            "<intent>.<lang>.yaml")
    if intent == "none":
        cats = data.get("categories")
        if set(data) - {"intent", "lang", "categories"} or not isinstance(cats, dict) or not cats:
            raise PhrasingError(f"{path}: expected intent, lang and categories")
        templates, replies = [], {}
        for cat, spec in cats.items():
            if not isinstance(spec, dict) or not isinstance(spec.get("reply"), str) or set(spec) != {"reply",
                                                                                                     "templates"}:
                raise PhrasingError(f"{path}: category {cat!r} needs a reply (a string) and templates")
            templates += _templates(path, f"none:{cat}", lang, spec["templates"])
            replies[cat] = spec["reply"]
        return intent, lang, templates, replies
    if set(data) - {"intent", "lang", "reply", "templates"}:
        raise PhrasingError(f"{path}: unknown keys {sorted(set(data) - {'intent', 'lang', 'reply', 'templates'})}")
    reply = data.get("reply")
    alts = [reply] if isinstance(reply, str) else reply
    if reply is not None and (not isinstance(alts, list) or not alts or not all(isinstance(a, str) for a in alts)):
        raise PhrasingError(f"{path}: reply must be a string or a list of strings")
    return intent, lang, _templates(path, intent, lang, data.get("templates")), ({"": alts} if alts else {})


@cache
def _load(directory: Path) -> Phrasings:
    out = Phrasings()
    for path in phrasing_files(directory):
        intent, lang, templates, replies = load_file(path)
        out.templates += templates
        out.files.append(path)
        if intent == "none":
            for cat, text in replies.items():
                out.none_replies.setdefault(cat, {})[lang] = text
        elif replies:
            out.replies[intent, lang] = replies[""]
    return out


def load(directory: str | Path = DIRECTORY) -> Phrasings:
    """Read every phrasing file of `directory` (cached: a file edited after the first call is not seen)."""
    return _load(Path(directory).resolve())
