"""Safety reflex: recognise stop commands without the language model, from word lists kept in data.

An utterance fires when, after optional lead words ("whoa", "哎") or the robot's names, it starts with a stop phrase
and then says nothing but more stop phrases and fillers, pauses (punctuation), names a hazard ("stop stop there's a
wall", "马上停车，前面有人摔倒了") or goes on with a reason: an English clause ("stop the light's red", "stop you're
dragging my leg") or, after a `halt` phrase (停车, 停下, 刹车 …: a stop whatever follows), any Chinese clause that does
not turn it into something else (`not_after`: 停车了再说, 停下去吃饭) and is not a question. "stop the music",
"导航到停车场" and "停车位还有吗" go to the model as usual. The lists are in config/reflex.yaml; Chinese phrases
match on jieba word boundaries only (停车场 is not 停车 + 场). `matches` also asks the n-gram stop model
(serving/stop_ngrams.py) when one is given: it learnt from data what these rules were written from.
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
import jieba.posseg
import opencc
import yaml

from globalgen_ros.serving.homophones import sounds_like
from globalgen_ros.watchdog.language import IDEOGRAPHS, is_ideograph

MAX_REFLEX_CHARS = 120  # a stop command is short; longer text is never a reflex match
MAX_WARNING_UNITS = 16  # a warning without a stop word is short: "kid in the road!", "前面有小孩！"
MAX_REPEAT_GAP = 2  # a hazard said twice warns when close: "deer deer", "有人！有人！", not "call grandma … grandma"
KINDS = ("stop", "halt", "lead", "names", "filler", "hazard", "alarm", "repeated", "reason", "not_after",
         "not_before", "question", "imminent", "negation", "request", "machine", "condition", "banter", "set_phrase",
         "reported", "rebuke", "appliance", "person")
MAX_LAST_CLAUSE_CHARS = 40  # in a longer text, an exclaimed last clause may still be a stop: "…, stop it now!"
MAX_OBJECT_MODIFIERS = 2  # "stop the bloody mower", "stop the conveyor arm": words between the article and the machine
_CJK = IDEOGRAPHS
_LATIN = rf"(?:(?![{_CJK}])[^\W_])+"  # letters and digits, not Chinese
_UNIT = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_LATIN}(?:['-]{_LATIN})*)|(?P<mark>\S)")

# Closed-class words of the clause rules (StopReflex._reason, _chinese_clause); the vocabulary is in the yaml.
# da, di, tha: "stop di truck"
_DETERMINERS = frozenset("the a an my your his her our their that this some da di tha".split())
_ARTICLES = frozenset("the a an".split())  # a cut-off last article: "stop the car stop the"; "get away from her" ends
_COPULAS = frozenset("is are was were isn't aren't wasn't has have got keeps".split())
_WH = frozenset("what's whats who's where's how's when's why's".split())
_DEMONSTRATIVES = frozenset("这那辆台的")  # "这辆车刹车很灵" describes a machine, says nothing to it
_AUXILIARIES = frozenset("can could will would does do did should shall may might must is are".split())
_PERSONS_OWN = frozenset("your each yourself yourselves".split())  # "stop hitting your brother": a person's habit
_FIRST_PERSON = frozenset("i i'm im i'll we we're we'll let's".split())  # "i'm gonna hit the gym" is no warning


def _clause_word(word: str) -> bool:
    """A contraction that starts a clause ("it's", "light's", "you're", "i'm"), not a question word ("what's")."""
    return word not in _WH and re.search(r"[a-z]'(s|re|m)$", word) is not None


jieba.setLogLevel(60)
_WORD_TAGS = jieba.posseg.dt.word_tag_tab  # part of speech of jieba's dictionary words: "nr" is a person's name
_T2S = opencc.OpenCC("t2s")  # traditional characters read as simplified: 停車 is 停车


class ReflexWordsError(ValueError):
    """The reflex word lists are missing or malformed; the message names the file and the entry."""


@dataclass
class Unit:
    text: str            # a Latin word or number, or one CJK character
    word_end: bool       # a word ends after this unit (always for Latin words; jieba decides for CJK)
    pause: bool = False  # punctuation follows


def normalise(text: str) -> str:
    """Fold width, case, typographic apostrophes and traditional characters (停車 is 停车)."""
    return _T2S.convert(unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'"))


def units(text: str) -> list[Unit]:
    """Split normalised text into words and CJK characters with word boundaries and pauses."""
    text = normalise(text)
    out: list[Unit] = []
    for m in _UNIT.finditer(text):
        if m.group("cjk"):
            if out and text[m.start() - 1].isspace():
                out[-1].pause = True  # "停住 别走了", "stop stop 机械臂停": a space before Chinese words is a pause
            for word in jieba.lcut(m.group("cjk"), HMM=False):
                out.extend(Unit(ch, k == len(word) - 1) for k, ch in enumerate(word))
        elif m.group("word"):
            parts = m.group("word").split("-")
            stutter = len(parts) > 1 and all(parts[-1].startswith(p) for p in parts[:-1])
            out.append(Unit(parts[-1] if stutter else m.group("word"), True))  # "s-s-stop" is "stop"
        elif out and unicodedata.category(m.group("mark"))[0] in "PS" and not _quote(m.group("mark")):
            out[-1].pause = True  # quotes and brackets are no pause: play "Stop" by the Spice Girls
    return out


def _ing_object(word: str) -> bool:
    """Return True for an English -ing word ("scrolling", "laughing"; the caller rules out fillers such as "moving")."""
    return len(word) > 4 and word.endswith("ing") and word.isascii() and word.isalpha()


def _quote(mark: str) -> bool:
    return mark in "\"'`" or unicodedata.category(mark) in ("Ps", "Pe", "Pi", "Pf")


_QUOTED = re.compile(r'["“”「」『』]([^"“”「」『』]{1,24})["“”「」『』]')  # ASCII ' and ‘’ are apostrophes too


def _numeral(word: str) -> bool:
    """Return True for a number said in digits or as one English word ("7", "seven", "twelve")."""
    from text_to_num import alpha2digit

    return word.isdigit() or (word.isalpha() and alpha2digit(word, "en", threshold=0).isdigit())


def _is_cjk(unit: str) -> bool:
    return len(unit) == 1 and is_ideograph(unit)


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
    if not words["stop"] and not words["halt"]:
        raise ReflexWordsError(f"{path}: no stop phrases (the safety reflex needs at least one)")
    return words


def with_names(words: dict[str, list[str]], names: list[str]) -> dict[str, list[str]]:
    """The word lists with the robot's names (node parameter reflex.names) added ("robbie stop", "小智停车")."""
    extra = [n for n in names if isinstance(n, str) and n.strip()]
    return words | {"names": list(words.get("names", [])) + extra}


def _index(phrases: list[str]) -> dict[str, list[tuple[str, ...]]]:
    """Index phrases (as unit tuples) by their first unit, longest first."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in {tuple(u.text for u in units(p)) for p in phrases} - {()}:
        out.setdefault(phrase[0], []).append(phrase)
    return {k: sorted(v, key=len, reverse=True) for k, v in out.items()}


class StopReflex:
    """Match utterances against the stop word lists; remember which utterances already fired."""

    def __init__(self, words: dict[str, list[str]] | None = None, remember: int = 256, ngrams=None):
        self._lock = threading.Lock()
        self._fired: OrderedDict[str, None] = OrderedDict()
        self._remember = remember
        self.ngrams = ngrams  # serving.stop_ngrams.StopNgrams, or None: the word lists alone
        self.configure(words if words is not None else load_words())

    def configure(self, words: dict[str, list[str]]) -> None:
        """Replace the word lists (live parameter update)."""
        self._lists = {kind: _index(words.get(kind, [])) for kind in KINDS}
        self._known = {w for index in self._lists.values() for phrase in index.values() for p in phrase for w in p}
        self._cjk_known = "".join(sorted({ch for kind in ("stop", "halt") for p in words.get(kind, [])
                                          for ch in _T2S.convert(p) if _is_cjk(ch)}))

    def matches(self, text: str) -> bool:
        """Return True if the word lists or the n-gram stop model (when there is one) read a stop command."""
        if self.words_match(text):
            return True
        return self.ngrams is not None and self.ngrams.is_stop(text) and not self._no_stop_for_now(text)

    def _no_stop_for_now(self, text: str) -> bool:
        """Return True if the word lists read a condition anywhere ("如果有孩子跑上冰面，马上停下"), a set phrase,
        banter or reported speech with no hazard, or a person told off: the n-gram model, which sees words but not
        these, is overruled."""
        u = self._destutter(units(text))
        return bool(u) and (self._condition(u, 0) or self._said_in_jest(u) or self._told_off(u, person=True)
                            or self._to_a_person(u))

    def words_match(self, text: str) -> bool:
        """Return True if the word lists read a stop command (see the module docstring)."""
        if len(text) > MAX_REFLEX_CHARS:
            return self._last_clause_stops(text)
        u = self._destutter(units(text))
        question = text.rstrip().endswith(("?", "？"))
        if not u or self._said_in_jest(u) or self._mentioned(text) or self._to_a_person(u):
            return False
        if self._fires(u, 0, "lead", {}, question) or self._stop_after_warning(u, question) or self._thrice(u):
            return True
        if text.rstrip().endswith(("!", "！")) and self._last_sentence_stops(u):
            return True
        if re.search(r"[?？][!！]|[!！][?？]", text) and self._rebukes(u):
            return True
        if self._warns(u, question, text.rstrip().endswith(("!", "！"))):
            return True
        simplified = _T2S.convert(text)
        heard = sounds_like(simplified, self._cjk_known)  # ASR homophones: 挺挺挺, 杀车杀车
        if heard == simplified or sum(map(_is_cjk, heard)) < 2:  # a lone 听 is no stop
            return False
        read = self._destutter(units(heard))
        return self._fires(read, 0, "lead", {}, question, strict=not self._misheard_before_hazard(read, u))

    def _said_in_jest(self, u: list[Unit]) -> bool:
        """Return True for a set phrase ("stop, drop and roll", 一二三木头人), or banter, reported speech or a device
        that does not move that names no danger ("oh stop, you flatter me", "停停停，别夸了", "'freeze!' the cop yelled
        in the movie", "空调开，哦不对，关掉关掉"): stop words that halt nothing."""
        starts = [k for k in range(len(u)) if k == 0 or u[k - 1].word_end]
        if any(self._match(u, k, "set_phrase") for k in starts):
            return True
        return any(self._match(u, k, kind) for k in starts for kind in ("banter", "reported", "appliance")) and not any(
            self._match(u, k, kind) for k in starts for kind in ("hazard", "imminent"))

    def _to_a_person(self, u: list[Unit]) -> bool:
        """Return True if the utterance opens by calling a person by a kin or pet word (`person`) that a pause or the
        stop itself follows ("babe, stop", 宝宝别动; not 宝宝在后面 快停, where the child is the danger) and names no
        danger and no machine after it: a stop said to a child or a partner halts no machine."""
        e = max(self._match(u, 0, "person"), default=0)
        if not e or not (u[e - 1].pause or any(self._match(u, e, kind) for kind in ("stop", "halt", "negation"))):
            return False
        after = [k for k in range(e, len(u)) if u[k - 1].word_end]
        return not any(self._match(u, k, kind) for k in after for kind in ("hazard", "imminent", "alarm", "machine"))

    def _mentioned(self, text: str) -> bool:
        """Return True if a stop word is quoted inside a sentence about it: words run into the opening quote
        (写个大大的“停”字, 'write "stop" on the gate'), or into the closing one of a quote not exclaimed ('"Stop" is
        the first word we teach'); '"Stop!" there's a kid' and “停！”前面有人 are said, not mentioned."""
        for m in _QUOTED.finditer(text):
            before, after = text[:m.start()].rstrip(), text[m.end():].lstrip()
            runs_in = bool(before) and before[-1].isalnum()
            runs_on = bool(after) and after[0].isalnum() and not m.group(1).rstrip().endswith(tuple("!！.。"))
            if (runs_in or runs_on) and self._fires(units(m.group(1)), 0, "lead", {}):
                return True
        return False

    def _last_sentence_stops(self, u: list[Unit]) -> bool:
        """Return True if the last sentence, exclaimed, is a stop on its own ("叫你停下没听见吗！停！")."""
        k = max((j + 1 for j in range(len(u) - 1) if u[j].pause), default=0)
        return 0 < k < len(u) and self._fires(u, k, "lead", {}, False)

    def _last_clause_stops(self, text: str) -> bool:
        """Return True if a text too long for the reflex ends with a short exclaimed clause that is a stop on its
        own ("…, it's going to fall down, somebody stop it!"); anything else in it is the model's to read."""
        if not text.rstrip().endswith(("!", "！")):
            return False
        clause = re.split(r"[,.;:!?，。；：！？]\s*", text.rstrip().rstrip("!！"))[-1].strip()
        return 0 < len(clause) <= MAX_LAST_CLAUSE_CHARS and self.words_match(clause + "!")

    def _rebukes(self, u: list[Unit]) -> bool:
        """Return True for an exclaimed question whose stop phrase (or a `rebuke` word: "stopping") ends a sentence:
        a reproach that the machine still moves ("Are you not going to stop?!", "你还不停？！", "Is anyone going to
        stop that arm?!"); "can you stop the music?!" names no machine and stays with the model."""
        memo: dict = {}
        for k in range(len(u)):
            if k and not u[k - 1].word_end:
                continue
            ends = [j for kind in ("stop", "halt", "rebuke") for j in self._match(u, k, kind)]
            if any(u[j - 1].pause or self._fires(u, j, "stop", memo, True, strict=True)
                   or any(u[m - 1].pause for m in self._machine_object(u, j)) for j in ends):
                return True
        return False

    def _thrice(self, u: list[Unit]) -> bool:
        """Return True if the utterance starts with one stop phrase said three times ("stop stop stop slide"):
        whatever follows, that is a stop (banter was ruled out before)."""
        j, n = 0, 0
        for end in self._match(u, 0, "stop") + self._match(u, 0, "halt"):
            phrase = [x.text for x in u[:end]]
            j, n = 0, 0
            while [x.text for x in u[j:j + end]] == phrase:
                j, n = j + end, n + 1
            if n >= 3:
                return True
        return False

    def _misheard_before_hazard(self, read: list[Unit], written: list[Unit]) -> bool:
        """Return True if the text read by sound starts with one stop character said three times (挺挺挺 → 停停停), a
        halt phrase said twice (亭车亭车) or a misheard halt phrase of two characters or more after at most two
        lead characters that ends a written word (快听车 → 快停车), and the text as written names a hazard after it
        (前面有人): the rest is read as written text is ("听听听这首歌" is not: 首 only sounds like the 手 of 住手)."""
        said = [x.text for x in read[:4]]
        tripled = len(read) >= 4 and said[0] in self._cjk_known and said[1] == said[2] == said[0]
        twice = any([x.text for x in read[:n]] == [x.text for x in read[n:2 * n]]
                    for n in self._match(read, 0, "halt"))  # 亭车亭车 → 停车停车, 婷下来婷下来 → 停下来停下来
        misheard = [j for k in range(min(3, len(read))) if k == 0 or self._match(read, 0, "lead") == [k]
                    for j in self._match(read, k, "halt") if j - k >= 2 and j <= len(written)
                    and written[j - 1].word_end  # not 快听歌 → 快停 + 割
                    and [x.text for x in read[k:j]] != [x.text for x in written[k:j]]]
        start = 3 if tripled or twice else min(misheard, default=len(written))
        return any(self._match(written, k, "hazard") for k in range(start, len(written)))

    def _warns(self, u: list[Unit], question: bool, exclaimed: bool) -> bool:
        """Return True for a warning of danger without a stop word: an `imminent` phrase ("you're about to hit",
        "it's got my hand", "要撞上了"), or a hazard that is exclaimed in a short utterance ("kid in the road!",
        "前面有小孩！") or said twice in a row ("有人！有人！", "deer deer"). Never for a question, an utterance that
        says not to stop ("don't brake, there's a truck behind us") or a long one."""
        if question or len(u) > MAX_WARNING_UNITS or self._asks(u, 0) or self._match(u, 0, "request"):
            return False  # a `request` verb first is no warning: "play baby shark again!"
        if self._told_off(u):
            return False  # "Kids, stop fighting now!": told to stop a habit, no danger named after it
        starts = [k for k in range(len(u)) if k == 0 or u[k - 1].word_end]
        imminent = [(k, j) for k in starts for j in self._match(u, k, "imminent")
                    if k == 0 or u[k - 1].text not in _FIRST_PERSON]
        inside = {m for k, j in imminent for m in range(k, j)}  # "it won't let go": the negation is the danger
        if any(self._match(u, k, kind) for j in starts if j not in inside for k in self._match(u, j, "negation")
               for kind in ("stop", "halt")):
            return False
        if imminent and self._condition(u, 0):
            return False  # "someday that forklift is going to hit someone", "if it slips it'll fall": not now
        if any(not any(k in self._match(u, j, "negation") for j in range(max(0, k - 3), k)) for k, _ in imminent):
            return True  # "it's not going to fall" is no warning
        leads = [(k, j) for k in starts for j in self._match(u, k, "lead")]  # "holy cow" names no cow; 小心 warns
        said = [(k, tuple(x.text for x in u[k:j])) for k in starts for j in self._match(u, k, "hazard")
                if not any(a <= k and j <= b and b - a > j - k for a, b in leads)]
        return bool(said) and (exclaimed or any(p == q and 0 < m - k <= len(p) + MAX_REPEAT_GAP
                                                for k, p in said for m, q in said))

    def _told_off(self, u: list[Unit], person: bool = False) -> bool:
        """Return True if a stop phrase governs a person's habit and no danger is named after it ("Kids, stop
        fighting now!"); `person`: only a habit with a person's own after it ("stop hitting your brother", "stop
        pushing each other"), not one of a machine ("stop raising the bed, his head's against the shelf!")."""
        starts = [k for k in range(len(u)) if k == 0 or u[k - 1].word_end]
        habits = [j for k in starts for j in self._match(u, k, "stop") if self._habit(u, j)
                  and (not person or (j + 1 < len(u) and u[j + 1].text in _PERSONS_OWN))]
        return bool(habits) and not any(self._match(u, k, kind) for k in starts if k > habits[0]
                                        for kind in ("hazard", "imminent"))

    def _stop_after_warning(self, u: list[Unit], question: bool) -> bool:
        """Return True if a stop phrase that completes the utterance follows a warning: a pause ("there's a kid —
        stop!", "别再往前了 停") or a hazard, alarm or reason said before it ("前面有人快停", "ouch stop"), or a
        clause or a repeated word before a stop that ends the utterance with nothing but stop phrases and fillers ("the
        toddler's right behind you stop"), unless a `not_before` word comes right before it or before the run of stop
        phrases it continues ("the next stop", "别停", "一直喊停停停") or it is a question."""
        if question or self._asks(u, 0):
            return False
        memo: dict = {}  # _fires results depend on (position, state) only: shared by every candidate k
        ruled_out = 0  # end of the stop phrases a `not_before` word governs: "the emergency stop button's sticky"
        for k in range(1, len(u)):
            ends = self._match(u, k, "stop") + self._match(u, k, "halt") if u[k - 1].word_end else []
            if not ends:
                continue
            if k <= ruled_out or any(k in self._match(u, j, "not_before") for j in range(max(0, k - 4), k)):
                ruled_out = max([ruled_out, *ends])  # 喊停停停: the whole run was said of someone else
                continue
            if any((j == 0 or u[j - 1].word_end) and self._match(u, j, "condition") for j in range(k)):
                return False  # "if a kid runs out, stop": a rule for later
            starts = [j for j in range(k) if j == 0 or u[j - 1].word_end]
            warned = u[k - 1].pause or any(self._match(u, j, kind) for kind in ("hazard", "alarm", "reason", "names")
                                           for j in starts)
            if warned and self._fires(u, k, "lead", memo, question):
                return True
            # a clause or a repeated word before a stop that ends the utterance: "the toddler's behind you stop"
            if any(_clause_word(u[j].text) or self._repeated(u, j) for j in starts) and self._fires(
                    u, k, "lead", {}, question, strict=True):
                return True
        return False

    def _destutter(self, u: list[Unit]) -> list[Unit]:
        """Read "stopp" / "stooop" as "stop", "stopstop" as "stop stop", and drop cut-off starts of the next word
        ("sto stop", "st st stop")."""
        split: list[Unit] = []
        for x in u:
            squeezed = re.sub(r"(.)\1+", r"\1", x.text)
            if x.text not in self._known and squeezed in self._known:
                x.text = squeezed
            elif x.text not in self._known and x.text.endswith("in") and x.text + "g" in self._known:
                x.text += "g"  # "stop movin"
            run = re.fullmatch(r"([a-z]{2,}?)\1+", x.text)  # "nonononono"
            if x.text not in self._known and run and run.group(1) in self._known:
                split += [Unit(run.group(1), True) for _ in range(len(x.text) // len(run.group(1)))]
                split[-1].pause = x.pause
            else:
                split.append(x)
        u, kept = split, []
        for x in reversed(u):  # from the end, so that every cut-off start before a known word goes
            if not (kept and x.text.isalpha() and not _is_cjk(x.text[0]) and x.text not in self._known
                    and kept[-1].text.startswith(x.text) and kept[-1].text in self._known):
                kept.append(x)
        u = kept[::-1]
        if len(u) > 1 and u[-1].text.isalpha() and not _is_cjk(u[-1].text[0]) and u[-1].text not in self._known \
                and len(u[-1].text) >= 2 and any(x.text in self._known and x.text.startswith(u[-1].text)
                                                 for x in u[:-1]):
            u = u[:-1]  # "stop sto-", "emergency stop emergen-": a cut-off repeat at the end
        # "stop the the car", "stop the car stop the": a doubled or a cut-off last article is dropped
        return [x for k, x in enumerate(u) if not (x.text in _DETERMINERS and (
            (k + 1 < len(u) and u[k + 1].text == x.text) or (k == len(u) - 1 and k > 0 and x.text in _ARTICLES)))]

    def _match(self, u: list[Unit], i: int, kind: str) -> list[int]:
        """Return the ends of the `kind` phrases that match at unit i and end on a word boundary."""
        ends = []
        for phrase in self._lists[kind].get(u[i].text, ()) if i < len(u) else ():
            j = i + len(phrase)
            if tuple(x.text for x in u[i:j]) == phrase and (u[j - 1].word_end or self._repeats(u, j, kind)
                                                             or kind == "imminent"):  # 要撞 in 要/撞墙
                ends.append(j)
        return ends

    def _repeats(self, u: list[Unit], j: int, kind: str) -> bool:
        """A stop phrase or another `kind` phrase starts at j, boundary or not (停停停: jieba reads 停停 + 停)."""
        first = u[j].text if j < len(u) else ""
        return any(tuple(x.text for x in u[j:j + len(p)]) == p
                   for k in {"stop", "halt", kind} for p in self._lists[k].get(first, ()))

    def _fires(self, u: list[Unit], i: int, state: str, memo: dict, question: bool = False,
               strict: bool = False) -> bool:
        """Return True if u[i:] completes a stop command; state: "lead" (nothing said yet), "stop" (a stop phrase
        was said), "alarm" (only alarm words: a stop if nothing else, or a hazard, follows). `strict`: only stop
        phrases and fillers to the end (for text read by sound, where a clause may be a misheard word)."""
        key = (i, state)
        if key not in memo:
            memo[key] = False  # every step consumes units, so no cycle can reach this entry
            names = (self._name_then_pause, self._name_before_repeated_halt, self._nickname_before_stop,
                     self._unknown_name_before_stop, self._machine_address) if state == "lead" else ()
            for end in {name(u, i) for name in names} - {0}:  # "小智，别动", "robbie, stop", "小乐停车停车", "小白停下"
                if self._fires(u, end, "lead", memo, question, strict):
                    memo[key] = True
                    return True
            if state == "lead" and (end := self._repeated(u, i)):  # "wait wait wait", "等等等等"
                if self._fires(u, end, "alarm", memo, question, strict):
                    memo[key] = True
                    return True
            steps = {"lead": (("halt", "halt"), ("stop", "stop"), ("alarm", "alarm"), ("lead", "lead"),
                              ("names", "lead")),
                     "stop": (("halt", "halt"), ("stop", "stop"), ("filler", "stop"), ("alarm", "stop")),
                     "halt": (("halt", "halt"), ("stop", "stop"), ("filler", "halt"), ("alarm", "stop")),
                     "alarm": (("halt", "halt"), ("stop", "stop"), ("alarm", "alarm"), ("filler", "alarm"))}[state]
            if state in ("stop", "halt") and self._match(u, i, "condition"):
                return False  # "stop if the dog walks in front of you": an instruction for later, not a stop now
            if state == "stop" and self._habit(u, i):
                memo[key] = False  # "stop scrolling and help me", "stop laughing": a habit of a person, no halt
                return False
            if state != "lead" and (i == len(u) or (not strict and (
                    (state != "alarm" and u[i - 1].pause) or (self._hazard(u, i) and not self._condition(u, i))
                    or (state != "alarm" and self._reason(u, i))
                    or (state == "halt" and self._chinese_clause(u, i, question))))):
                memo[key] = True
            else:
                memo[key] = any(self._fires(u, j, after, memo, question, strict)
                                for kind, after in steps for j in self._match(u, i, kind)) or (
                    state in ("stop", "halt") and any(self._fires(u, j, state, memo, question, strict)
                                                      for j in self._machine_object(u, i)))
        return memo[key]

    def _habit(self, u: list[Unit], i: int) -> bool:
        """Return True if the -ing word at unit i, right after a stop phrase, is a person's habit ("stop laughing");
        a hazard word too when a person's own follows ("stop hitting your brother", "stop pushing each other")."""
        if not (0 < i < len(u) and not u[i - 1].pause and _ing_object(u[i].text)) or any(
                self._match(u, i, kind) for kind in ("filler", "stop", "halt", "alarm", "reason")):
            return False
        return not self._match(u, i, "hazard") or (i + 1 < len(u) and u[i + 1].text in _PERSONS_OWN)

    def _machine_object(self, u: list[Unit], i: int) -> list[int]:
        """Return the ends of an object that names a machine after a stop phrase: an article, at most two more words
        and a `machine` noun ("stop the bloody mower", "stop the conveyor arm"); "stop the music" has none."""
        if i >= len(u) or (u[i].text not in _DETERMINERS and u[i].text != "you"):  # "stop you stupid machine"
            return []
        return [j for k in range(i + 1, min(i + 2 + MAX_OBJECT_MODIFIERS, len(u)))
                for j in self._match(u, k, "machine")]

    def _repeated(self, u: list[Unit], i: int) -> int:
        """Return the end of a `repeated` phrase said three times in a row at unit i (twice if it has two units or
        more, 小心小心, or if a hazard follows), or 0."""
        for phrase in self._lists["repeated"].get(u[i].text, ()) if i < len(u) else ():
            n, j = 0, i
            while tuple(x.text for x in u[j:j + len(phrase)]) == phrase:
                n, j = n + 1, j + len(phrase)
            if n >= (2 if len(phrase) > 1 else 3) or (n == 2 and self._hazard(u, j)):  # "Wait! Wait! Grandma's …"
                return j
        return 0

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

    def _name_before_repeated_halt(self, u: list[Unit], i: int) -> int:
        """Return the end of a name no list holds (2 or 3 Chinese characters ending a word) at the start of the
        utterance when a halt phrase said twice follows it ("小乐停车停车"; "音乐停下来" stays with the model), or of
        a two-character name said twice before one stop phrase ("小度小度停车"), or 0."""
        if i != 0:
            return 0
        said = [x.text for x in u[:4]]
        if len(u) > 4 and all(map(_is_cjk, said)) and said[:2] == said[2:] and (
                self._match(u, 4, "halt") or self._match(u, 4, "stop")):
            return 4  # a wake word said twice: "小度小度停车"
        for j in (2, 3):
            if j < len(u) and all(_is_cjk(x.text) for x in u[:j]) and u[j - 1].word_end and any(
                    self._match(u, k, kind) for k in self._match(u, j, "halt") for kind in ("halt", "stop")):
                return j
        return 0

    def _nickname_before_stop(self, u: list[Unit], i: int) -> int:
        """Return 2 if the utterance starts with a nickname, 小, 阿 or 大 and one more character that jieba does not
        know as a word or knows as a name (小白, 阿福, 大黄), right before a stop phrase or a lead word ("小白停下！",
        "小乐快停下"; 小区, 小孩 and 小时 are other words), else 0."""
        if i != 0 or len(u) < 3 or u[0].text not in ("小", "阿", "大") or not u[1].word_end:
            return 0
        if not _is_cjk(u[1].text) or u[1].text in self._cjk_known:
            return 0
        paused = [j for kind in ("stop", "halt") for j in self._match(u, 2, kind) if u[j - 1].pause]
        if not u[0].word_end and _WORD_TAGS.get(u[0].text + u[1].text) != "nr" and not paused:
            return 0  # a known word counts only as a person's name (小宝), not 小区, unless a pause follows: 小乐停 …
        return 2 if paused or any(self._match(u, 2, kind) for kind in ("stop", "halt", "lead")) else 0

    def _unknown_name_before_stop(self, u: list[Unit], i: int) -> int:
        """Return 1 if the utterance starts with one Latin word no list holds (and no `not_before` word: "bus stop")
        right before a stop phrase ("Rosie stop moving right now", "Zippy halt!"), else 0."""
        if i != 0 or len(u) < 2 or _is_cjk(u[0].text) or not u[0].text.isalpha() or u[0].text in self._known:
            return 0
        return 1 if self._match(u, 1, "stop") or self._match(u, 1, "halt") else 0

    def _machine_address(self, u: list[Unit], i: int) -> int:
        """Return the end of a `machine` noun with at most three Chinese characters or two English words before it,
        said to the machine (送药机器人, 坏机器人, "sidewalk robot", "truck six"), when a stop phrase (in Chinese also a
        lead word) follows it and nothing is asked, else 0."""
        if i >= len(u) or self._asks(u, 0):  # "怎么让机器人停下来" asks
            return 0
        if not _is_cjk(u[i].text) and u[i].text not in _AUXILIARIES:  # "sidewalk robot stop"; "can the car stop"
            for k in range(i, min(i + 3, len(u))):
                for j in self._match(u, k, "machine"):
                    said_to = all(x.text.isalpha() and not x.pause for x in u[i:j - 1])
                    numbered = j < len(u) and not u[j - 1].pause and _numeral(u[j].text)  # "truck six stop"
                    end = j + 1 if numbered else j
                    if said_to and (numbered or not self._match(u, j - 1, "not_before")) and (  # "bus stop": a place
                            self._match(u, end, "stop") or self._match(u, end, "halt")):
                        return end
            return 0
        for k in range(i, min(i + 4, len(u))):  # at most three characters before the noun: 送药机器人, 高尔夫车
            for j in self._match(u, k, "machine"):
                said_to = all(_is_cjk(x.text) and x.text not in _DEMONSTRATIVES for x in u[i:j])
                if said_to and any(self._match(u, j, kind) for kind in ("stop", "halt", "lead")):
                    return j
        return 0

    def _reason(self, u: list[Unit], i: int) -> bool:
        """Return True if an English clause starts at unit i: a `reason` phrase ("it's", "you're", "wrong way"), a
        contraction ("the forklift's coming"), or a determiner, a noun and a copula ("the shelf is tipping")."""
        if i >= len(u) or _is_cjk(u[i].text) or _is_cjk(u[i - 1].text):
            return False
        if self._match(u, i, "reason") or _clause_word(u[i].text):
            return True
        j = i + 1
        return u[i].text in _DETERMINERS and j < len(u) and (_clause_word(u[j].text) or (
            j + 1 < len(u) and u[j + 1].text in _COPULAS))

    def _chinese_clause(self, u: list[Unit], i: int, question: bool) -> bool:
        """Return True if, after a halt phrase, a Chinese clause follows that is no `not_after` continuation (停车了
        再说, 停下去吃饭) and no question (…吗, …?)."""
        if i >= len(u) or not _is_cjk(u[i].text) or not u[i - 1].word_end or self._match(u, i, "not_after"):
            return False
        return not question and not self._asks(u, i)

    def _asks(self, u: list[Unit], i: int) -> bool:
        """Return True if a `question` word starts on a word boundary anywhere from unit i on, outside the lead and
        filler words (天哪 is no question)."""
        said = {k for j in range(len(u)) for kind in ("lead", "filler") for end in self._match(u, j, kind)
                for k in range(j + 1, end)}
        return any((k == 0 or u[k - 1].word_end) and k not in said and self._match(u, k, "question")
                   for k in range(i, len(u)))

    def _condition(self, u: list[Unit], i: int) -> bool:
        """Return True if a condition ("if", "when") starts on a word boundary anywhere from unit i on: the hazard
        after it is a case for later ("stop me if you've heard this one: a horse walks into a bar")."""
        return any((k == 0 or u[k - 1].word_end) and self._match(u, k, "condition") for k in range(i, len(u)))

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
