"""Checks on every answer before a robot sees it: whole words, numbers the user said, the schema's number ranges.

Applied to edge and cloud answers alike. A text slot that cuts a Latin-script word wherever it occurs in the
utterance (a model copied "Zo" of "Zoë") is widened to the whole words said. A number slot must hold a number the
utterance says (in digits or in words); when the model wrote another one and the utterance says exactly one number,
that one is used. A length said in another unit than the slot's is converted ("五十公分" -> distance 0.5 m), and an
optional number slot the model left empty takes the one length the utterance says ("a hundred metres": 100), so that
the range check sees what was said (grounding/units.py). A value outside the slot's `min`/`max` is never acted on:
the answer becomes `none` with a reply that says the range. A command for later (an utterance that opens with a
condition or a later time and says nothing of now: "in ten minutes, set it to 20") is declined with a reply that says
so: nothing here schedules (grounding/timing.py). A command read from a one-sentence question about how to do it
("How do I make the robot go to the garage?") is declined the same way (grounding/questions.py), as is one said to
an animal or a person ("bad dog, get off the sofa, go to your bed", "Mom, call grandpa", 老周你倒一下车;
grounding/addressee.py) and one forbidden in the clause that says it ("whatever you do, don't pick up the vase";
grounding/prohibition.py).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from globalgen_ros.grounding.addressee import said_to_a_person, said_to_an_animal
from globalgen_ros.grounding.numbers import canonical, corrected, is_said, numbers_said
from globalgen_ros.grounding.prohibition import forbids
from globalgen_ros.grounding.questions import asks_how, weighs_options
from globalgen_ros.grounding.timing import for_later
from globalgen_ros.grounding.units import in_slot_unit, said_in_unit, the_one_said
from globalgen_ros.grounding.words import is_latin_word_char, whole_words
from globalgen_ros.watchdog.language import (
    ASKS_HOW,
    FOR_LATER,
    FORBIDDEN,
    MISSING,
    NUMBER_UNCLEAR,
    OUT_OF_RANGE,
    TO_A_PERSON,
    TO_AN_ANIMAL,
    WEIGHS_OPTIONS,
    base_language,
    say,
)
from globalgen_ros.watchdog.supervisor import Outcome


def _lang(language: str) -> str:
    return "zh" if base_language(language).startswith("zh") else "en"


def _decline(outcome: Outcome, reply: str, note: str) -> Outcome:
    return replace(outcome, intent="none", slots={}, text=reply, confirmed=None, notes=[*outcome.notes, note])


def _replace_alone(reply: str, value: str, whole: str) -> str:
    """Replace `value` in `reply` where no Latin letter touches it (not inside "the coot" for "the c")."""
    cuts = [m.start() for m in re.finditer(re.escape(value), reply)
            if not (m.start() > 0 and is_latin_word_char(reply[m.start() - 1]) and is_latin_word_char(value[0]))
            and not (m.end() < len(reply) and is_latin_word_char(reply[m.end()]) and is_latin_word_char(value[-1]))]
    for start in reversed(cuts):
        reply = reply[:start] + whole + reply[start + len(value):]
    return reply


def ground_words(outcome: Outcome, text: str, schema) -> Outcome:
    """Widen text slots that cut a Latin-script word of the utterance to the whole words (the reply too)."""
    if outcome.intent not in schema:
        return outcome
    slots, reply, notes = dict(outcome.slots), outcome.text, list(outcome.notes)
    for slot in schema[outcome.intent].slots:
        value = slots.get(slot.name)
        if slot.type != "text" or not isinstance(value, str):
            continue
        whole = whole_words(text, value)
        if whole != value:
            slots[slot.name] = whole
            if value.strip() and whole not in reply:
                reply = _replace_alone(reply, value.strip(), whole)
            notes.append(f"{slot.name}={value!r} cut a word: {whole!r} was said")
    return replace(outcome, slots=slots, text=reply, notes=notes)


def ground_numbers(outcome: Outcome, text: str, schema) -> Outcome:
    """Keep only numbers the utterance says in number slots (or decline saying the number was not understood)."""
    if outcome.intent not in schema:
        return outcome
    slots = dict(outcome.slots)
    for slot in schema[outcome.intent].slots:
        value = slots.get(slot.name)
        if slot.type != "number":
            continue
        if value is None:
            found = the_one_said(text, slot.unit) if slot.optional else None
            if found:  # "go forward a hundred meters" with the distance left untagged
                slots[slot.name] = found[0]
                note = f"{slot.name} was left out: {found[1].said} was said"
                outcome = replace(outcome, notes=[*outcome.notes, note])
            continue
        if is_said(value, text):
            settled = corrected(value, text)  # "17, no, make that 22": the corrected one
            if settled != value:
                slots[slot.name] = settled
                outcome = replace(outcome, text=outcome.text.replace(value, settled),
                                  notes=[*outcome.notes, f"{slot.name}={value} was corrected by the speaker to "
                                                         f"{settled}"])
            converted = in_slot_unit(settled, text, slot.unit)
            if converted:  # "后退五十公分": 50 cm is 0.5 m
                slots[slot.name] = converted[0]
                outcome = replace(outcome, text=outcome.text.replace(settled, converted[0]),
                                  notes=[*outcome.notes, f"{slot.name}={settled} was said in {converted[1].unit}: "
                                                         f"{converted[0]} {slot.unit}"])
            continue
        if said_in_unit(value, text, slot.unit):  # a cloud answer that converted 50厘米 to 0.5 itself
            continue
        said = sorted(set(numbers_said(text)))
        if len(said) == 1:  # the reply repeats the slot verbatim: say the number that was said there too
            slots[slot.name] = said[0]
            outcome = replace(outcome, text=outcome.text.replace(value, said[0]),
                              notes=[*outcome.notes, f"{slot.name}={value} was not said: {said[0]} was"])
            continue
        label = slot.name_in(_lang(outcome.language))
        return _decline(outcome, say(NUMBER_UNCLEAR, outcome.language).format(label=label),
                        f"{slot.name}={value} was not said (numbers said: {said or 'none'})")
    return replace(outcome, slots=slots)


def check_ranges(outcome: Outcome, schema) -> Outcome:
    """Decline an answer whose number slot is outside the schema's range, with a reply that says the range."""
    for slot in schema.out_of_range(outcome.intent, outcome.slots):
        value = outcome.slots[slot.name]
        lo = "" if slot.min is None else canonical(str(slot.min))
        hi = "" if slot.max is None else canonical(str(slot.max))
        label = slot.name_in(_lang(outcome.language))
        reply = say(OUT_OF_RANGE, outcome.language).format(label=label, min=lo, max=hi, unit=slot.unit, value=value)
        where = Path(schema.path).name or "the schema"
        return _decline(outcome, reply, f"{slot.name}={value} is outside {lo}..{hi} ({where})")
    return outcome


def check_required(outcome: Outcome, schema) -> Outcome:
    """Decline an answer that lacks a slot its intent requires (a cloud answer may leave one out)."""
    if outcome.intent not in schema:
        return outcome
    for slot in schema[outcome.intent].slots:
        if not slot.optional and not str(outcome.slots.get(slot.name, "")).strip():
            label = slot.name_in(_lang(outcome.language))
            return _decline(outcome, say(NUMBER_UNCLEAR if slot.type == "number" else MISSING, outcome.language)
                            .format(label=label), f"{outcome.intent} without its required slot {slot.name}")
    return outcome


# What declines a command whatever the model read, checked in this order: (finder, reply, note); a stop is never
# declined here (the machine stops whoever was meant), and a decline has nothing to decline.
_NOT_FOR_NOW = (
    (for_later, FOR_LATER, "asked for later ({found!r}): nothing is scheduled"),  # "in ten minutes, …"
    (asks_how, ASKS_HOW, "read from a question ({found!r})"),  # "How do I make the robot go to …?"
    (weighs_options, WEIGHS_OPTIONS, "read from a choice still open ({found!r})"),  # "…放窗台上还是阳台上好呢"
    (said_to_an_animal, TO_AN_ANIMAL, "said to an animal ({found!r})"),  # "bad dog, go to your bed"
    (said_to_a_person, TO_A_PERSON, "said to a person ({found!r})"),  # "Mom, call grandpa"
)


def check_not_for_now(outcome: Outcome, text: str, schema) -> Outcome:
    """Decline a command asked for later, read from a question about how or a choice still open, said to an animal
    or a person, or forbidden in the clause that says it, saying why."""
    if outcome.intent not in schema or outcome.intent in ("stop", "none"):
        return outcome
    for find, reply, note in _NOT_FOR_NOW:
        if found := find(text):
            return _decline(outcome, say(reply, outcome.language).format(found=found),
                            f"{outcome.intent} " + note.format(found=found))
    # A song's title may itself forbid ("we don't talk about Bruno", 不要说话): music is left to the model.
    words = [v for s in schema[outcome.intent].slots if s.type == "text" and outcome.intent != "play_music"
             and isinstance(v := outcome.slots.get(s.name), str) and v.strip() and v in text]
    if words and (found := forbids(text, words[0])):  # "你千万别把那个花瓶拿起来"
        return _decline(outcome, say(FORBIDDEN, outcome.language).format(found=found),
                        f"{outcome.intent} forbidden as it is said ({found!r})")
    return outcome


def check_answer(outcome: Outcome, text: str, schema) -> Outcome:
    """Apply every check to an answered outcome (edge or cloud)."""
    outcome = check_not_for_now(outcome, text, schema)
    grounded = ground_numbers(ground_words(check_required(outcome, schema), text, schema), text, schema)
    return check_ranges(grounded, schema)
