"""Safety reflex: recognise stop and emergency phrases without the language model.

The match is on the whole utterance, not a substring, so "导航到停车场" (a car park) and "stop the music"
never trigger an emergency stop, while "stop!", "Stop, stop!", "请马上停车" and "freeze now" do. Polite and
urgent words around the phrase are ignored; anything else sends the utterance to the model as usual.
"""

from __future__ import annotations

import threading
import unicodedata
from collections import OrderedDict

MAX_REFLEX_CHARS = 80  # a stop command is short; longer text is never a reflex match
FILLERS = ("please", "right now", "now", "immediately", "robot", "hey", "okay", "ok", "just",
           "请", "快点", "快", "马上", "立刻", "立即", "赶紧", "给我", "吧", "啊", "呀", "了", "一下")


def normalize(text: str) -> str:
    """Casefold, drop punctuation, symbols and all whitespace (so "Stop, stop!" -> "stopstop")."""
    return "".join(ch for ch in text.casefold() if unicodedata.category(ch)[0] not in "PSZC")


def _strip_fillers(s: str, fillers: tuple[str, ...]) -> list[str]:
    """Return s and what it becomes as fillers are stripped from its ends, one at a time (a phrase may end in a
    filler word itself: "stop the robot")."""
    out, changed = [s], True
    while changed and s:
        changed = False
        for filler in fillers:
            if s.startswith(filler) and len(s) > len(filler):
                s, changed = s[len(filler):], True
                out.append(s)
            if s.endswith(filler) and len(s) > len(filler):
                s, changed = s[:-len(filler)], True
                out.append(s)
    return out


class StopReflex:
    """Match utterances against configurable stop phrases; remember which utterances already fired."""

    def __init__(self, phrases: list[str], remember: int = 256):
        self._lock = threading.Lock()
        self._fired: OrderedDict[str, None] = OrderedDict()
        self._remember = remember
        self.configure(phrases)

    def configure(self, phrases: list[str]) -> None:
        """Replace the phrase list (live parameter update)."""
        normalized = sorted({normalize(p) for p in phrases} - {""}, key=len, reverse=True)
        fillers = tuple(sorted({normalize(f) for f in FILLERS}, key=len, reverse=True))
        self._phrases, self._fillers = normalized, fillers

    def matches(self, text: str) -> bool:
        """Return True if the whole utterance is a stop phrase (possibly repeated, with fillers around it)."""
        if len(text) > MAX_REFLEX_CHARS:
            return False
        for s in _strip_fillers(normalize(text), self._fillers):
            for phrase in self._phrases if s else ():
                if len(s) % len(phrase) == 0 and s == phrase * (len(s) // len(phrase)):
                    return True
        return False

    def first_fire(self, utterance_id: str) -> bool:
        """Record that `utterance_id` fired; return False if it had already (partial then final)."""
        if not utterance_id:
            return True
        with self._lock:
            if utterance_id in self._fired:
                return False
            self._fired[utterance_id] = None
            if len(self._fired) > self._remember:
                self._fired.popitem(last=False)
            return True
