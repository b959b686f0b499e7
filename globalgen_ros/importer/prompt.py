"""The system prompt of an imported chat model: a fixed preamble, then the intent the understanding model decided.

An imported general model was never trained for the intent task, so it does not choose the intent: the shipped
understanding model does (understanding/), and the chat model only speaks the reply, told in its system prompt
what was understood and what the robot does about it. The fixed preamble comes first so that its K/V is the
prefix every request shares (the tiered cache restores it instead of prefilling it again).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from globalgen_ros.schema import Schema

PREAMBLE = "You are the voice assistant of a car and a home robot. Answer in one short sentence."
# Worded for a 135 M model: it tends to repeat the stated action, which reads as the confirmation (docs/import.md)


@dataclass
class Decision:
    """What the understanding model decided for one transcript, checked against the schema."""

    intent: str = "none"         # the intent acted on ("none": nothing is done)
    slots: dict[str, str] = field(default_factory=dict)
    confidence: float = 0.0
    wanted: str = ""             # an intent recognised but not acted on (slots missing or invalid, unsure)
    problems: list[str] = field(default_factory=list)


def decide(schema: Schema, nlu: dict | None, min_confidence: float) -> Decision:
    """Return the decision for an understanding-model prediction (None: no understanding model: nothing)."""
    if nlu is None or nlu["intent"] == "none" or nlu["intent"] not in schema:
        return Decision(confidence=nlu["confidence"] if nlu else 0.0)
    intent, slots, confidence = nlu["intent"], dict(nlu["slots"]), float(nlu["confidence"])
    if confidence < min_confidence:
        return Decision(confidence=confidence, wanted=intent, problems=["unsure what was asked"])
    spec = schema[intent]
    problems = schema.validate_output(intent, slots)
    problems += [f"{s.name.replace('_', ' ')} not given" for s in spec.slots if not s.optional and s.name not in slots]
    if problems:
        return Decision(confidence=confidence, wanted=intent, problems=problems)
    return Decision(intent=intent, slots=slots, confidence=confidence)


def slot_text(slots: dict[str, str], schema: Schema, intent: str) -> str:
    """Return the slots as 'name: value' pairs with units ("temperature: 22 °C, zone: driver")."""
    parts = []
    for name, value in slots.items():
        unit = schema[intent].slot(name).unit
        parts.append(f"{name.replace('_', ' ')}: {value}{' ' + unit if unit else ''}")
    return ", ".join(parts)


def what_of(schema: Schema, intent: str, slots: dict[str, str]) -> str:
    """Return an intent and its slots in words: "set the cabin temperature in degrees celsius (temperature: 22 °C)"."""
    spec = schema[intent]
    what = (spec.description.rstrip(".") or intent.replace("_", " ")).lower()
    text = slot_text(slots, schema, intent)
    return f"{what} ({text})" if text else what


def system_prompt(schema: Schema, decision: Decision) -> str:
    """Return the system prompt stating the decided intent (the preamble first, shared by every request)."""
    if decision.intent != "none":
        spec, what = schema[decision.intent], what_of(schema, decision.intent, decision.slots)
        out_of_range = schema.out_of_range(decision.intent, decision.slots)
        if out_of_range:
            limits = "; ".join(f"{s.name.replace('_', ' ')} must be from {s.min:g} to {s.max:g}"
                               f"{' ' + s.unit if s.unit else ''}" for s in out_of_range)
            return f"{PREAMBLE}\nThe command cannot be carried out: {what}; {limits}. Tell the user."
        if spec.requires_confirmation:
            question = spec.question("en", decision.slots) or "Shall I do it?"
            return f"{PREAMBLE}\nThe command waits for the user's confirmation: {what}. Ask the user: {question}"
        return f"{PREAMBLE}\nThe command is being carried out now: {what}. Tell the user what you are doing."
    if decision.wanted:
        what = what_of(schema, decision.wanted, {})
        return (f"{PREAMBLE}\nThe command is not carried out: {what}; {'; '.join(decision.problems)}. Ask the user "
                f"what is missing.")
    return f"{PREAMBLE}\nThis is not a command: answer the user's question."
