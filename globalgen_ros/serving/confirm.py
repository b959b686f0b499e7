"""Confirmation of risky intents within a session: ask first, act on "yes" only.

An intent whose schema says `requires_confirmation` is published first as a question (flag set, reply "Call
Mom?"), and so is one the edge model decided with a confidence below the intent's `confirm_below` (uncertain
motion: "Go to the kitchen?") or declined with that command second (`clarify`: "Should I turn the volume up?").
The session's next utterance decides: "yes / 好的 / 打吧" publishes the same intent with the flag cleared,
"no / 取消 / 算了" cancels, anything else cancels and is answered as a new request, and the question expires
after `timeout_s`. A lone "yes" with nothing pending confirms nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from globalgen_ros.serving.checks import check_answer
from globalgen_ros.serving.reflex import units
from globalgen_ros.watchdog.language import CANCELLED, CONFIRM, NOTHING_TO_CONFIRM, base_language, say
from globalgen_ros.watchdog.supervisor import EDGE, NODE, OK, Outcome

ANSWERS = ("yes", "no")
CLARIFY_ABOVE = 0.0  # confirm.clarify_above's default: 0 = a decline stands (docs/model.md, session 26)


class ConfirmWordsError(ValueError):
    """The confirmation word lists are missing or malformed; the message names the file."""


def default_words_path() -> Path:
    """Return config/confirm.yaml of the source tree, or of the installed share/globalgen_ros."""
    candidates = [Path(__file__).resolve().parents[2] / "config" / "confirm.yaml",
                  Path(sys.prefix) / "share" / "globalgen_ros" / "config" / "confirm.yaml"]
    return next((path for path in candidates if path.is_file()), candidates[0])


def load_words(path: str | Path | None = None) -> dict[str, set[tuple[str, ...]]]:
    """Read the yes / no / filler lists of every language, merged, as tuples of words."""
    path = Path(path) if path else default_words_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        words: dict[str, set[tuple[str, ...]]] = {kind: set() for kind in (*ANSWERS, "filler")}
        for lang, lists in data.items():
            if lang != "version":
                for kind, phrases in lists.items():
                    words[kind] |= {tuple(u.text for u in units(str(p))) for p in phrases} - {()}
    except (OSError, UnicodeDecodeError, yaml.YAMLError, AttributeError, KeyError, TypeError) as e:
        raise ConfirmWordsError(f"{path}: cannot read the confirmation word lists ({e.__class__.__name__}: {e})"
                                ) from None
    return words


@dataclass
class Pending:
    outcome: Outcome     # the answer that asked (intent, slots, the model's own reply for after the "yes")
    expires: float


class Confirmations:
    """Remember one pending question per session and decide what the next utterance of it means."""

    def __init__(self, schema, timeout_s: float = 10.0, words: dict | None = None, max_sessions: int = 1024,
                 clock: Callable[[], float] = time.monotonic):
        self.schema, self.timeout_s, self.max_sessions, self.clock = schema, timeout_s, max_sessions, clock
        self.words = words if words is not None else load_words()
        self._pending: OrderedDict[str, Pending] = OrderedDict()
        self._lock = threading.Lock()

    def classify(self, text: str) -> str | None:
        """Return "yes" or "no" if the whole utterance is made of that answer's phrases and fillers, else None."""
        words = tuple(u.text for u in units(text))
        for kind in ANSWERS:
            if words and _made_of(words, self.words[kind], self.words["filler"]):
                return kind
        return None

    def needs_asking(self, outcome: Outcome) -> bool:
        """Return True if `outcome` is an answered intent whose schema asks for confirmation first: always
        (`requires_confirmation`), or when the edge model decided it below the intent's `confirm_below`, read it
        from one clause of an utterance it declined (an intent with a `confirm_below`: motion), or had to be pushed
        to find a required slot (`guessed`)."""
        if outcome.intent not in self.schema or outcome.confirmed is not None:
            return False
        spec = self.schema[outcome.intent]
        uncertain = outcome.confidence < spec.confirm_below or (bool(outcome.clause) and spec.confirm_below > 0)
        uncertain = uncertain or bool(outcome.guessed)  # a slot found only when pushed: "Put the cake boxes there?"
        return spec.requires_confirmation or (outcome.source == EDGE and uncertain)

    def clarify(self, outcome: Outcome, text: str, above: float) -> Outcome | None:
        """Return the command the edge model put second, as an answer to ask about, when it declined `text` (an
        OK edge `none`) with that command at probability >= `above` (> 0) and the command's slots pass the answer
        checks (complete, numbers said, in range); else None: the decline stands."""
        second = outcome.second
        if (above <= 0.0 or second is None or outcome.status != OK or outcome.source != EDGE
                or outcome.intent != "none" or second["confidence"] < above or second["intent"] not in self.schema):
            return None
        candidate = check_answer(replace(outcome, intent=second["intent"], slots=dict(second["slots"]),
                                         confidence=second["confidence"], second=None), text, self.schema)
        if candidate.intent != second["intent"]:
            return None  # a slot missing or out of range: nothing to ask about
        return replace(candidate, notes=[*candidate.notes, f"declined, {second['intent']} second at "
                                         f"{second['confidence']:.2f}: asked (confirm.clarify_above={above:g})"])

    def ask(self, session_id: str, outcome: Outcome) -> Outcome:
        """Remember `outcome` for the session; return it as the question (flag set, the reply asks)."""
        spec = self.schema[outcome.intent]
        lang = "zh" if base_language(outcome.language).startswith("zh") else "en"
        question = spec.question(lang, outcome.slots) or say(CONFIRM, outcome.language)
        with self._lock:
            self._pending[session_id] = Pending(outcome, self.clock() + self.timeout_s)
            self._pending.move_to_end(session_id)
            while len(self._pending) > self.max_sessions:
                self._pending.popitem(last=False)
        return replace(outcome, text=question, confirmed=False)

    def answer(self, session_id: str, text: str, language: str) -> Outcome | None:
        """Return the outcome of a yes/no answer in the session, or None for anything else (which cancels)."""
        kind = self.classify(text)
        with self._lock:
            pending = self._pending.pop(session_id, None)
        if pending is not None and pending.expires < self.clock():
            pending = None  # timed out: as if nothing were pending
        if kind is None:
            return None
        if pending is None:
            return Outcome(OK, NODE, say(NOTHING_TO_CONFIRM, language), language, strategy="confirm")
        if kind == "no":
            return Outcome(OK, NODE, say(CANCELLED, language), language, strategy="confirm")
        return replace(pending.outcome, confirmed=True, strategy="confirm", tokens=0, forwards=0, ttft_ms=0.0)

    def cancel_all(self) -> int:
        """Forget every pending question (a stop command); return how many there were."""
        with self._lock:
            n = len(self._pending)
            self._pending.clear()
        return n

    def __len__(self) -> int:
        return len(self._pending)


def _made_of(words: tuple[str, ...], answers: set[tuple[str, ...]], fillers: set[tuple[str, ...]]) -> bool:
    """Return True if `words` splits into answer phrases and fillers, at least one answer ("yeah, go ahead")."""
    reach = {0: False}  # position -> an answer phrase was used to get there
    for i in range(len(words)):
        if i not in reach:
            continue
        for phrases, is_answer in ((answers, True), (fillers, False)):
            for p in phrases:
                if words[i:i + len(p)] == p:
                    reach[i + len(p)] = reach.get(i + len(p), False) or reach[i] or is_answer
    return reach.get(len(words), False)
