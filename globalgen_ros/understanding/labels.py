"""Label layout of the understanding heads: intents, BIO tags of text/number slots, enum groups per intent.slot."""

from __future__ import annotations

from dataclasses import dataclass, field

ABSENT = "<absent>"
NOT_STOP_ID = -2  # intent label of a stop-list near miss: "anything but stop" (a partial label)
SPAN_TYPES = ("text", "number")


@dataclass
class Layout:
    intents: list[str]
    tags: list[str]  # "O", "B-<slot>", "I-<slot>" for text and number slots
    enums: dict[str, dict]  # "intent.slot" -> {"offset": k, "values": ["<absent>", ...]}
    slot_types: dict[str, dict[str, str]]  # intent -> slot -> text | enum | number
    _tag_id: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self._tag_id.update({t: i for i, t in enumerate(self.tags)})

    @property
    def n_enum(self) -> int:
        """Width of the concatenated enum logits."""
        return sum(len(g["values"]) for g in self.enums.values())

    @property
    def groups(self) -> list[str]:
        """Enum group keys in layout order."""
        return list(self.enums)

    def tag_id(self, tag: str) -> int:
        """Index of a BIO tag."""
        return self._tag_id[tag]

    def to_json(self) -> dict:
        """Serialisable form (for nlu.json)."""
        return {"intents": self.intents, "tags": self.tags, "enums": self.enums, "slot_types": self.slot_types}

    @classmethod
    def from_json(cls, d: dict) -> Layout:
        """Inverse of to_json."""
        return cls(d["intents"], d["tags"], d["enums"], d["slot_types"])


def layout_from_schema(schema) -> Layout:
    """Build the layout from a globalgen_ros.schema.Schema (intent order = schema order)."""
    span_slots: list[str] = []
    enums: dict[str, dict] = {}
    slot_types: dict[str, dict[str, str]] = {}
    offset = 0
    for intent in schema.intents:
        slot_types[intent.name] = {s.name: s.type for s in intent.slots}
        for s in intent.slots:
            if s.type in SPAN_TYPES and s.name not in span_slots:
                span_slots.append(s.name)
            elif s.type == "enum":
                values = [ABSENT, *s.values]
                enums[f"{intent.name}.{s.name}"] = {"offset": offset, "values": values}
                offset += len(values)
    tags = ["O"] + [f"{p}-{n}" for n in span_slots for p in ("B", "I")]
    return Layout(schema.names, tags, enums, slot_types)


def decode_bio(tag_names: list[str]) -> list[tuple[str, int, int]]:
    """(slot, first token, last token + 1) runs of B-/I- tags; an I- without a matching B- starts a run."""
    runs: list[tuple[str, int, int]] = []
    cur: list | None = None
    for t, tag in enumerate(tag_names):
        kind, _, name = tag.partition("-")
        if kind == "I" and cur is not None and cur[0] == name and cur[2] == t:
            cur[2] = t + 1
            continue
        if cur is not None:
            runs.append(tuple(cur))
            cur = None
        if kind in ("B", "I"):
            cur = [name, t, t + 1]
    if cur is not None:
        runs.append(tuple(cur))
    return merge_adjacent(runs)


def merge_adjacent(runs: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Join runs of one slot that touch (B B I: "the | nearest gas station"): the words between them are none,
    so they are one contiguous span of the utterance, not two values."""
    out: list[tuple[str, int, int]] = []
    for name, t0, t1 in runs:
        if out and out[-1][0] == name and out[-1][2] == t0:
            out[-1] = (name, out[-1][1], t1)
        else:
            out.append((name, t0, t1))
    return out
