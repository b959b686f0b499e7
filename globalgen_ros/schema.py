"""Load and validate the intent schema (config/intents.yaml)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

SLOT_TYPES = ("text", "enum", "number")
NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
NUMBER_RE = re.compile(r"\d+(\.\d+)?")  # a number slot's value: digits, optionally one decimal part ("1.5")
VALUE_RE = re.compile(r"^[A-Za-z0-9_\-]+$")


class SchemaError(ValueError):
    """The intent schema is missing or invalid; the message names the file and the offending entry."""


@dataclass(frozen=True)
class Slot:
    name: str
    type: str
    values: tuple[str, ...] = ()
    optional: bool = False
    min: float | None = None   # number slots: the smallest value a robot may act on
    max: float | None = None
    unit: str = ""             # said after the number in replies ("°C", "m")
    label: tuple[tuple[str, str], ...] = ()  # (language, what to call the slot in a reply), e.g. ("zh", "温度")
    said: tuple[tuple[str, str, str], ...] = ()  # enum slots: (language, value, how a question says it)

    def in_range(self, value: float) -> bool:
        """Return True if `value` is within the slot's min/max (always True without a range)."""
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)

    def name_in(self, language: str) -> str:
        """Return the slot's label in `language` ("zh" or "en"), or its name."""
        return dict(self.label).get(language, self.name.replace("_", " "))

    def say(self, value: str, language: str) -> str:
        """Return how a question in `language` says the value (an enum's `said` word, else the value)."""
        return next((w for lang, v, w in self.said if lang == language and v == value), value)


@dataclass(frozen=True)
class Intent:
    name: str
    slots: tuple[Slot, ...] = ()
    description: str = ""
    requires_confirmation: bool = False
    safety: bool = False
    confirm: tuple[tuple[str, str], ...] = ()  # (language, question asked before acting): ("en", "Call {contact}?")
    confirm_below: float = 0.0  # an edge answer of this intent below this confidence is asked first (0 = never)

    def question(self, language: str, slots: dict) -> str | None:
        """Return the first `confirm` question of `language` whose slots all have values, said in that language."""
        said = {s.name: s.say(str(slots[s.name]), language) for s in self.slots if slots.get(s.name) not in (None, "")}
        for lang, template in self.confirm:
            if lang == language:
                try:
                    return template.format(**said)
                except (KeyError, IndexError):
                    continue  # it names a slot without a value: try the next form
        return None

    def slot(self, name: str) -> Slot:
        for s in self.slots:
            if s.name == name:
                return s
        raise KeyError(f"intent {self.name!r} has no slot {name!r}")


@dataclass(frozen=True)
class Schema:
    intents: tuple[Intent, ...]
    path: str = ""
    _by_name: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        self._by_name.update({i.name: i for i in self.intents})

    @property
    def names(self) -> list[str]:
        return [i.name for i in self.intents]

    def __getitem__(self, name: str) -> Intent:
        return self._by_name[name]

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def validate_output(self, intent: str, slots: dict[str, str]) -> list[str]:
        """Return the problems of a predicted (intent, slots) pair against the schema (empty = valid)."""
        if intent not in self:
            return [f"unknown intent {intent!r}"]
        problems = []
        spec = self[intent]
        for name, value in slots.items():
            try:
                slot = spec.slot(name)
            except KeyError as e:
                problems.append(str(e.args[0]))
                continue
            if slot.type == "enum" and value not in slot.values:
                problems.append(f"slot {name!r}: {value!r} is not one of {list(slot.values)}")
            if slot.type == "number" and not NUMBER_RE.fullmatch(str(value)):
                problems.append(f"slot {name!r}: {value!r} is not a number")
        return problems

    def out_of_range(self, intent: str, slots: dict[str, str]) -> list[Slot]:
        """Return the number slots of (intent, slots) whose value is outside the schema's min/max."""
        if intent not in self:
            return []
        out = []
        for slot in self[intent].slots:
            value = slots.get(slot.name)
            if slot.type == "number" and value is not None:
                try:
                    number = float(value)
                except ValueError:
                    continue  # validate_output reports it
                if not slot.in_range(number):
                    out.append(slot)
        return out


def default_schema_path() -> Path:
    """Return config/intents.yaml of the source tree, or of the installed share/globalgen_ros."""
    candidates = [Path(__file__).resolve().parent.parent / "config" / "intents.yaml",
                  Path(sys.prefix) / "share" / "globalgen_ros" / "config" / "intents.yaml"]
    for path in candidates:
        if path.is_file():
            return path
    return candidates[0]


def _slot(where: str, name: str, spec) -> Slot:
    if not NAME_RE.match(str(name)):
        raise SchemaError(f"{where}: slot name {name!r} must match {NAME_RE.pattern}")
    if not isinstance(spec, dict):
        raise SchemaError(f"{where}.{name}: expected a mapping like {{type: text}}, got {spec!r}")
    unknown = set(spec) - {"type", "values", "optional", "description", "min", "max", "unit", "label", "said"}
    if unknown:
        raise SchemaError(f"{where}.{name}: unknown keys {sorted(unknown)}")
    kind = spec.get("type")
    if kind not in SLOT_TYPES:
        raise SchemaError(f"{where}.{name}: type must be one of {list(SLOT_TYPES)}, got {kind!r}")
    values = spec.get("values", [])
    if kind == "enum":
        if not isinstance(values, list) or not values:
            raise SchemaError(f"{where}.{name}: an enum slot needs a non-empty list `values`")
        values = [str(v) if not isinstance(v, bool) else ("on" if v else "off") for v in values]
        bad = [v for v in values if not VALUE_RE.match(v)]
        if bad:
            raise SchemaError(f"{where}.{name}: enum values must match {VALUE_RE.pattern}: {bad}")
        if len(set(values)) != len(values):
            raise SchemaError(f"{where}.{name}: duplicate enum values in {values}")
    elif values:
        raise SchemaError(f"{where}.{name}: only enum slots take `values`")
    optional = spec.get("optional", False)
    if not isinstance(optional, bool):
        raise SchemaError(f"{where}.{name}: optional must be true or false")
    bounds = {k: spec[k] for k in ("min", "max") if k in spec}
    if bounds and kind != "number":
        raise SchemaError(f"{where}.{name}: only number slots take min/max")
    for k, v in bounds.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise SchemaError(f"{where}.{name}.{k}: must be a number, got {v!r}")
    if len(bounds) == 2 and bounds["min"] > bounds["max"]:
        raise SchemaError(f"{where}.{name}: min {bounds['min']} is greater than max {bounds['max']}")
    said = spec.get("said", {})
    if said and (kind != "enum" or not isinstance(said, dict) or not all(
            lang in ("zh", "en") and isinstance(words, dict) and set(words) <= set(values)
            and all(isinstance(w, str) for w in words.values()) for lang, words in said.items())):
        raise SchemaError(f"{where}.{name}.said: expected, on an enum slot, a mapping like "
                          f"{{zh: {{{values[0] if values else 'value'}: ...}}}} of its values, got {said!r}")
    return Slot(str(name), kind, tuple(values), optional, bounds.get("min"), bounds.get("max"),
                str(spec.get("unit", "")), _per_language(f"{where}.{name}.label", spec.get("label", {})),
                tuple((lang, v, w) for lang, words in sorted(said.items()) for v, w in words.items()))


def _per_language(where: str, value, several: bool = False) -> tuple[tuple[str, str], ...]:
    """Check a {language: text} mapping (languages zh, en; with `several`, a text or a list of them) and return
    it as (language, text) pairs, in the order given within a language."""
    def texts(v) -> list | None:
        v = v if several and isinstance(v, list) and v else [v]
        return v if all(isinstance(t, str) for t in v) else None

    if not isinstance(value, dict) or not all(k in ("zh", "en") and texts(v) for k, v in value.items()):
        raise SchemaError(f"{where}: expected a mapping like {{en: ..., zh: ...}}, got {value!r}")
    return tuple((k, t) for k in sorted(value) for t in texts(value[k]))


def _intent(name: str, spec) -> Intent:
    where = f"intents.{name}"
    if not NAME_RE.match(str(name)):
        raise SchemaError(f"{where}: intent name must match {NAME_RE.pattern}")
    spec = spec or {}
    if not isinstance(spec, dict):
        raise SchemaError(f"{where}: expected a mapping, got {spec!r}")
    unknown = set(spec) - {"slots", "description", "requires_confirmation", "safety", "confirm", "confirm_below"}
    if unknown:
        raise SchemaError(f"{where}: unknown keys {sorted(unknown)}")
    slots = spec.get("slots") or {}
    if not isinstance(slots, dict):
        raise SchemaError(f"{where}.slots: expected a mapping of slot name to spec")
    flags = {k: spec.get(k, False) for k in ("requires_confirmation", "safety")}
    for k, v in flags.items():
        if not isinstance(v, bool):
            raise SchemaError(f"{where}.{k}: must be true or false, got {v!r}")
    below = spec.get("confirm_below", 0.0)
    if isinstance(below, bool) or not isinstance(below, (int, float)) or not 0.0 <= below <= 1.0:
        raise SchemaError(f"{where}.confirm_below: must be a confidence from 0 to 1, got {below!r}")
    intent = Intent(str(name), tuple(_slot(f"{where}.slots", n, s) for n, s in slots.items()),
                    str(spec.get("description", "")), **flags,
                    confirm=_per_language(f"{where}.confirm", spec.get("confirm", {}), several=True),
                    confirm_below=float(below))
    for lang, question in intent.confirm:
        try:
            question.format(**{slot.name: "" for slot in intent.slots})
        except (KeyError, IndexError, ValueError) as e:
            raise SchemaError(f"{where}.confirm.{lang}: {question!r} names no slot of {name} ({e})") from None
    return intent


def parse_schema(data, path: str = "<schema>") -> Schema:
    """Validate a parsed YAML document and return the Schema."""
    try:
        if not isinstance(data, dict) or not isinstance(data.get("intents"), dict) or not data["intents"]:
            raise SchemaError("top level must be a mapping with a non-empty `intents` mapping")
        intents = tuple(_intent(n, s) for n, s in data["intents"].items())
        if "none" not in data["intents"]:
            raise SchemaError("intents: the fallback intent `none` is required")
        if intents[[i.name for i in intents].index("none")].slots:
            raise SchemaError("intents.none: the fallback intent takes no slots")
    except SchemaError as e:
        raise SchemaError(f"{path}: {e}") from None
    return Schema(intents, str(path))


def load_schema(path: str | Path | None = None) -> Schema:
    """Load and validate an intent schema (default: config/intents.yaml)."""
    path = Path(path) if path else default_schema_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SchemaError(f"{path}: schema file not found (pass --schema or restore config/intents.yaml)") from None
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise SchemaError(f"{path}: not valid YAML: {e}") from None
    return parse_schema(data, str(path))
