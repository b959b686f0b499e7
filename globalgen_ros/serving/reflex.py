"""Safety reflex: recognise stop commands without the language model, from word lists kept in data.

An utterance fires when, after optional lead words ("whoa", "哎"), it starts with a stop phrase and then says
nothing but more stop phrases and fillers, pauses (punctuation), or names a hazard ("stop stop there's a wall",
"马上停车，前面有人摔倒了"). "stop the music", "导航到停车场" and "停车位还有吗" go to the model as usual. The lists
are in config/reflex.yaml; Chinese phrases match on jieba word boundaries only (停车场 is not 停车 + 场).
"""

from __future__ import annotations

import re
import sys
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import jieba
import opencc
import yaml

MAX_REFLEX_CHARS = 120  # a stop command is short; longer text is never a reflex match
KINDS = ("stop", "lead", "filler", "hazard", "alarm")
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_LATIN = rf"(?:(?![{_CJK}])[^\W_])+"  # letters and digits, not Chinese
_UNIT = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_LATIN}(?:['-]{_LATIN})*)|(?P<mark>\S)")

jieba.setLogLevel(60)
_T2S = opencc.OpenCC("t2s")  # traditional characters read as simplified: 停車 is 停车


class ReflexWordsError(ValueError):
    """The reflex word lists are missing or malformed; the message names the file and the entry."""


@dataclass
class Unit:
    text: str            # a Latin word or number, or one CJK character
    word_end: bool       # a word ends after this unit (always for Latin words; jieba decides for CJK)
    pause: bool = False  # punctuation follows


def units(text: str) -> list[Unit]:
    """Split normalised text into words and CJK characters with word boundaries and pauses."""
    text = _T2S.convert(unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'"))
    out: list[Unit] = []
    for m in _UNIT.finditer(text):
        if m.group("cjk"):
            if out and _is_cjk(out[-1].text) and text[m.start() - 1].isspace():
                out[-1].pause = True  # "停住 别走了": a space between Chinese words is a pause
            for word in jieba.lcut(m.group("cjk"), HMM=False):
                out.extend(Unit(ch, k == len(word) - 1) for k, ch in enumerate(word))
        elif m.group("word"):
            parts = m.group("word").split("-")
            stutter = len(parts) > 1 and all(parts[-1].startswith(p) for p in parts[:-1])
            out.append(Unit(parts[-1] if stutter else m.group("word"), True))  # "s-s-stop" is "stop"
        elif out and unicodedata.category(m.group("mark"))[0] in "PS":
            out[-1].pause = True
    return out


def _is_cjk(unit: str) -> bool:
    return bool(re.fullmatch(f"[{_CJK}]", unit))


def default_words_path() -> Path:
    """Return config/reflex.yaml of the source tree, or of the installed share/globalgen_ros."""
    candidates = [Path(__file__).resolve().parents[2] / "config" / "reflex.yaml",
                  Path(sys.prefix) / "share" / "globalgen_ros" / "config" / "reflex.yaml"]
    return next((path for path in candidates if path.is_file()), candidates[0])


def load_words(path: str | Path | None = None) -> dict[str, list[str]]:
    """Read the word lists of every language and merge them by kind (stop, lead, filler, hazard)."""
    path = Path(path) if path else default_words_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ReflexWordsError(f"{path}: cannot read the reflex word lists ({e})") from None
    if not isinstance(data, dict):
        raise ReflexWordsError(f"{path}: expected a mapping of language to word lists")
    words: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for lang, lists in data.items():
        if lang == "version":
            continue
        if not isinstance(lists, dict) or set(lists) - set(KINDS):
            raise ReflexWordsError(f"{path}: {lang}: expected lists named {', '.join(KINDS)}")
        for kind, phrases in lists.items():
            bad = [p for p in phrases if not isinstance(p, str) or not p.strip()] if isinstance(phrases, list) else [
                phrases]
            if bad:
                raise ReflexWordsError(f"{path}: {lang}.{kind}: expected a list of non-blank strings, got {bad[0]!r} "
                                       "(quote words YAML reads as booleans: \"no\", \"on\", \"yes\")")
            words[kind] += phrases
    if not words["stop"]:
        raise ReflexWordsError(f"{path}: no stop phrases (the safety reflex needs at least one)")
    return words


def _index(phrases: list[str]) -> dict[str, list[tuple[str, ...]]]:
    """Index phrases (as unit tuples) by their first unit, longest first."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in {tuple(u.text for u in units(p)) for p in phrases} - {()}:
        out.setdefault(phrase[0], []).append(phrase)
    return {k: sorted(v, key=len, reverse=True) for k, v in out.items()}


class StopReflex:
    """Match utterances against the stop word lists; remember which utterances already fired."""

    def __init__(self, words: dict[str, list[str]] | None = None, remember: int = 256):
        self._lock = threading.Lock()
        self._fired: OrderedDict[str, None] = OrderedDict()
        self._remember = remember
        self.configure(words if words is not None else load_words())

    def configure(self, words: dict[str, list[str]]) -> None:
        """Replace the word lists (live parameter update)."""
        self._lists = {kind: _index(words.get(kind, [])) for kind in KINDS}
        self._known = {w for index in self._lists.values() for phrase in index.values() for p in phrase for w in p}

    def matches(self, text: str) -> bool:
        """Return True if the utterance is a stop command (see the module docstring)."""
        if len(text) > MAX_REFLEX_CHARS:
            return False
        return self._fires(self._destutter(units(text)), 0, "lead", {})

    def _destutter(self, u: list[Unit]) -> list[Unit]:
        """Read "stopp" / "stooop" as "stop" and drop a cut-off start of the next word ("sto stop")."""
        for x in u:
            squeezed = re.sub(r"(.)\1+", r"\1", x.text)
            if x.text not in self._known and squeezed in self._known:
                x.text = squeezed
        return [x for k, x in enumerate(u) if not (k + 1 < len(u) and x.text.isalpha() and not _is_cjk(x.text[0])
                                                   and u[k + 1].text.startswith(x.text) and x.text != u[k + 1].text
                                                   and u[k + 1].text in self._known)]

    def _match(self, u: list[Unit], i: int, kind: str) -> list[int]:
        """Return the ends of the `kind` phrases that match at unit i and end on a word boundary."""
        ends = []
        for phrase in self._lists[kind].get(u[i].text, ()) if i < len(u) else ():
            j = i + len(phrase)
            if tuple(x.text for x in u[i:j]) == phrase and (u[j - 1].word_end or self._repeats(u, j, kind)):
                ends.append(j)
        return ends

    def _repeats(self, u: list[Unit], j: int, kind: str) -> bool:
        """A stop phrase or another `kind` phrase starts at j, boundary or not (停停停: jieba reads 停停 + 停)."""
        first = u[j].text if j < len(u) else ""
        return any(tuple(x.text for x in u[j:j + len(p)]) == p
                   for k in {"stop", kind} for p in self._lists[k].get(first, ()))

    def _fires(self, u: list[Unit], i: int, state: str, memo: dict) -> bool:
        """Return True if u[i:] completes a stop command; state: "lead" (nothing said yet), "stop" (a stop phrase
        was said), "alarm" (only alarm words: a stop if nothing else, or a hazard, follows)."""
        key = (i, state)
        if key not in memo:
            memo[key] = False  # every step consumes units, so no cycle can reach this entry
            end = self._name_then_pause(u, i) if state == "lead" else 0
            if end:  # "小智，别动", "robbie, stop"
                if self._fires(u, end, "lead", memo):
                    memo[key] = True
                    return True
            steps = {"lead": (("stop", "stop"), ("alarm", "alarm"), ("lead", "lead")),
                     "stop": (("stop", "stop"), ("filler", "stop"), ("alarm", "stop")),
                     "alarm": (("stop", "stop"), ("alarm", "alarm"), ("filler", "alarm"))}[state]
            if state != "lead" and (i == len(u) or (state == "stop" and u[i - 1].pause) or self._hazard(u, i)):
                memo[key] = True
            else:
                memo[key] = any(self._fires(u, j, after, memo)
                                for kind, after in steps for j in self._match(u, i, kind))
        return memo[key]

    def _name_then_pause(self, u: list[Unit], i: int) -> int:
        """Return the end of a name-like stretch (one Latin word, or up to 4 Chinese characters) that starts at unit
        i and that a pause ends ("小智，", "robbie,"), or 0."""
        if i >= len(u):
            return 0
        if not _is_cjk(u[i].text):
            return i + 1 if u[i].pause and i + 1 < len(u) else 0
        for j in range(i, min(i + 4, len(u) - 1)):
            if not _is_cjk(u[j].text):
                return 0
            if u[j].pause:
                return j + 1
        return 0

    def _hazard(self, u: list[Unit], i: int) -> bool:
        """Return True if a hazard phrase starts on a word boundary anywhere from unit i on."""
        return any((k == 0 or u[k - 1].word_end) and self._match(u, k, "hazard") for k in range(i, len(u)))

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
