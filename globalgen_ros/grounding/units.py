"""Lengths said with their unit (五十厘米, 30 cm, ten feet, a hundred metres), converted with pint to a slot's unit.

A number slot holds a value in the schema's unit (`distance` in metres). "后退五十公分" says 50 in centimetres: the
slot is 0.5, not 50 (which the range check would refuse as 50 m). "go forward a hundred meters" says a distance the
model may leave untagged: the slot is then filled from the words, so that the range check sees 100 m. Numerals are
read by cn2an / text2num first (grounding/numbers.py), units by pint; only the Chinese unit words, which pint does not
know, are named here. Lengths only: temperatures in Fahrenheit are left to the model and the range check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import pint

from globalgen_ros.grounding.numbers import canonical, to_digits

# pint's names of the length units people say; other words pint reads as lengths ("hand", "point", "link") are not.
SPOKEN = frozenset({"millimeter", "centimeter", "meter", "kilometer", "inch", "foot", "yard", "mile"})
AMBIGUOUS = frozenset({"in"})  # "move 3 in front": pint reads "in" as inches
ZH_UNITS = {"毫米": "millimeter", "厘米": "centimeter", "公分": "centimeter", "公尺": "meter", "千米": "kilometer",
            "公里": "kilometer", "英尺": "foot", "英寸": "inch", "米": "meter"}
SLOT_UNITS = {"m": "meter"}  # a number slot's `unit:` in the schema -> pint's name; other units are left alone
_ZH = "|".join(sorted(ZH_UNITS, key=len, reverse=True))  # longest first: 厘米 before 米
_QUANTITY = re.compile(rf"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:({_ZH})|([A-Za-z]+)\b)")


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str  # pint's name
    said: str  # as written after the numerals became digits ("50厘米", "100 meters")


_REGISTRY = pint.UnitRegistry()  # built once, on import (about half a second), not at a user's first number


def registry() -> pint.UnitRegistry:
    """Return pint's unit registry."""
    return _REGISTRY


@lru_cache(maxsize=512)
def _length_unit(word: str) -> str | None:
    """Return pint's name of an English length unit word ("metres" -> "meter"), or None."""
    if word.lower() in AMBIGUOUS:
        return None
    try:
        name = str(registry().parse_units(word.lower()))
    except Exception:  # pint raises its own errors (UndefinedUnitError, DefinitionSyntaxError, ...) for non-units
        return None
    return name if name in SPOKEN else None


_ONE = re.compile(r"\b(half an?|an?)\s+([A-Za-z]+)\b", re.IGNORECASE)  # "a kilometre", "half a mile"


def _article_as_number(match: re.Match) -> str:
    """ "a mile" -> "1 mile", "half a foot" -> "0.5 foot"; an article before any other word stays."""
    if not _length_unit(match.group(2)):
        return match.group(0)
    return ("0.5 " if match.group(1).lower().startswith("half") else "1 ") + match.group(2)


def lengths_said(text: str) -> list[Quantity]:
    """Return every length the utterance says with a unit, in order ("往左走五十厘米" -> [50 centimeter], "go forward
    a kilometre" -> [1 kilometer])."""
    out = []
    for m in _QUANTITY.finditer(_ONE.sub(_article_as_number, to_digits(text))):
        unit = ZH_UNITS[m.group(2)] if m.group(2) else _length_unit(m.group(3))
        if unit:
            out.append(Quantity(float(m.group(1)), unit, m.group(0)))
    return out


def convert(q: Quantity, slot_unit: str) -> str:
    """Return q in the slot's unit, canonical ("0.5" for 50 centimeter in m)."""
    value = registry().Quantity(q.value, q.unit).to(SLOT_UNITS[slot_unit]).magnitude
    return canonical(str(round(value, 6)))


def in_slot_unit(value: str, text: str, slot_unit: str) -> tuple[str, Quantity] | None:
    """If the number `value` was said with another unit than the slot's, return (converted value, that quantity)."""
    if slot_unit not in SLOT_UNITS:
        return None
    for q in lengths_said(text):
        if canonical(str(q.value)) == canonical(value) and q.unit != SLOT_UNITS[slot_unit]:
            return convert(q, slot_unit), q
    return None


def the_one_said(text: str, slot_unit: str) -> tuple[str, Quantity] | None:
    """If the utterance says exactly one length, return it in the slot's unit (and the quantity said)."""
    if slot_unit not in SLOT_UNITS:
        return None
    said = lengths_said(text)
    return (convert(said[0], slot_unit), said[0]) if len(said) == 1 else None


def said_in_unit(value: str, text: str, slot_unit: str) -> bool:
    """Return True if `value` is a length the utterance says, converted to the slot's unit (50厘米 -> 0.5 m)."""
    if slot_unit not in SLOT_UNITS:
        return False
    try:
        return any(convert(q, slot_unit) == canonical(value) for q in lengths_said(text))
    except ValueError:
        return False
