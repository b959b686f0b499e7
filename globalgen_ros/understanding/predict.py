"""Run the exported understanding model (numpy + onnxruntime, no torch): text -> intent, confidence, slots, spans.

python -m globalgen_ros.understanding.predict models/nlu_v1 "navigate to the central station"
"""

import copy
import hashlib
import json
import re
import sys
import threading
import unicodedata
from collections import OrderedDict
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from globalgen_ros.grounding.numbers import numbers_said
from globalgen_ros.grounding.words import close_marks, conventional_span, drop_restart, join_names, widen_to_words
from globalgen_ros.understanding.clauses import read_clause, warm_clauses
from globalgen_ros.understanding.labels import ABSENT, Layout, decode_bio
from globalgen_ros.understanding.normalise import normalise, to_original_span
from globalgen_ros.watchdog.language import is_cjk

NUMERAL_CHARS = set("0123456789０１２３４５６７８９零〇一二两三四五六七八九十百千万点.．")


def widen_to_cjk_words(text: str, a: int, b: int) -> tuple[int, int]:
    """Extend [a, b) so it never cuts inside a Chinese word as jieba segments the utterance (上官婉儿, not 官婉儿)."""
    import jieba

    pos = 0
    for word in jieba.lcut(text, HMM=False):
        s, e = pos, pos + len(word)
        pos = e
        if all(is_cjk(ch) for ch in word):
            if s < a < e:
                a = s
            if s < b < e:
                b = e
    return a, b


def widen_to_numeral(text: str, a: int, b: int) -> tuple[int, int]:
    """Extend [a, b) over the numeral it cuts (十八 inside 三十八 is 38, a number said, not 18)."""
    while a > 0 and text[a - 1] in NUMERAL_CHARS and text[a] in NUMERAL_CHARS:
        a -= 1
    while b < len(text) and text[b] in NUMERAL_CHARS and text[b - 1] in NUMERAL_CHARS:
        b += 1
    return a, b


def widen_to_measure(text: str, a: int, b: int, reach: int = 16) -> int:
    """Return the end of [a, b) extended over a spoken measure that completes its number (二十二 + 度五 is 22.5,
    "one" + " and a half" is 1.5): the longest extension within `reach` characters that still reads as one number,
    the same whole part and a decimal."""
    said = numbers_said(text[a:b])
    if len(said) != 1 or "." in said[0] or not any("." in n for n in numbers_said(text[a : b + reach])):
        return b  # one look at the whole reach settles the common case (no spoken decimal after the number)
    best = b
    for end in range(b + 1, min(len(text), b + reach) + 1):
        longer = numbers_said(text[a:end])
        if len(longer) == 1 and "." in longer[0] and longer[0].split(".")[0] == said[0]:
            best = end
    return best


def check_files(model_dir: Path, sha256: dict[str, str]) -> None:
    """Raise ValueError naming the file if a file of the model is missing or does not match nlu.json's sha256."""
    for name, digest in sha256.items():
        path = model_dir / name
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except OSError as e:
            raise ValueError(f"{path} is missing or unreadable ({e.__class__.__name__})") from None
        if h.hexdigest() != digest:
            raise ValueError(f"{path} does not match its sha256 in nlu.json (corrupt or from another model)")


MAX_INSIDE_GAP = 3  # untagged tokens an inside tag may reach across to the run it continues
# Fillers and corrections: a run before them was abandoned ("jon uh john smith", "虹桥机场哦不是浦东机场").
HESITATION = re.compile(r"(?i)\b(?:uh+|um+|er+|erm|hmm+|i mean|no|sorry|wait|actually)\b|呃|嗯|哦|不是|不对|我是说")


def mend_inside_tags(names: list[str], offsets, idx: list[int], text: str, types: dict) -> list[str]:
    """Tags with each inside tag joined to the run it continues: an I- of a slot after a few untagged tokens with no
    pause between (周杰伦的 | 开不了 | 口, 张三 | 的 | 老婆: one name, not its last piece), and an I- of a slot the
    intent lacks straight after a run of one it has (la | cocina). A B- still starts a new run (a correction)."""
    out = list(names)
    first = next((i for i, (s, e) in enumerate(offsets) if e > s), 0)  # the utterance's first word
    for t, tag in enumerate(out):
        kind, _, name = tag.partition("-")
        if kind != "I" or t == 0:
            continue
        prev_kind, _, prev = out[t - 1].partition("-")
        if name not in types and prev_kind in ("B", "I") and prev in types:
            out[t] = f"I-{prev}"
            continue
        if prev_kind != "O" or name not in types:
            continue
        j = t - 1
        while j >= 0 and out[j] == "O" and t - j <= MAX_INSIDE_GAP:
            j -= 1
        if j < 0 or out[j] not in (f"B-{name}", f"I-{name}") or offsets[t][0] <= offsets[j][1]:
            continue
        start = j
        while start > first and out[start - 1] in (f"B-{name}", f"I-{name}") and out[start] != f"B-{name}":
            start -= 1
        a, b = to_original_span(idx, offsets[j][1], offsets[t][0])
        gap = text[a:b]
        if start > first and not any(unicodedata.category(ch)[0] == "P" for ch in gap) and not HESITATION.search(gap):
            out[j + 1 : t] = [f"I-{name}"] * (t - j - 1)
    return out


def last_spans(text: str, found: list[tuple[str, int, int, object]]) -> dict[str, tuple[int, int, object]]:
    """One span per slot from its tagged runs in utterance order: the last one wins (a correction or the command
    after its context comes last: "call Anna, no, Maria"), and a text slot's runs with only spaces between them are
    one name said in pieces ("D'Angelo | Jean-Baptiste"). Number runs carry their parsed value; text runs None."""
    out: dict[str, tuple[int, int, object]] = {}
    for name, a, b, value in found:
        prev = out.get(name)
        if value is None and prev is not None and prev[2] is None and not text[prev[1] : a].strip():
            a = min(a, prev[0])
            b = max(b, prev[1])
        out[name] = (a, b, value)
    return out


MAX_SLOT_BIAS = 4.0  # logit raised on a required slot's tags at most before it counts as not said (fill)
SLOT_BIAS_STEP = 0.25
ARTICLE_BEFORE = re.compile(r"(?i)\b(?:the|a|an)\s+$")
ARTICLE_ONLY = re.compile(r"(?i)^(?:the|a|an)$")

RECENT = 32  # predictions kept for a later predict() of the same text (remember=True)


def softmax(z: np.ndarray) -> np.ndarray:
    """Softmax of a vector."""
    e = np.exp(z - z.max())
    return e / e.sum()


class Understanding:
    """The int8 understanding model of a model directory (nlu.int8.onnx, tokenizer.json, nlu.json)."""

    def __init__(self, model_dir: str | Path, threads: int = 1, verify: bool = True):
        d = Path(model_dir)
        self.meta = json.loads((d / "nlu.json").read_text(encoding="utf-8"))
        if verify:
            check_files(d, self.meta.get("sha256", {}))
        self.layout = Layout.from_json(self.meta)
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.no_truncation()
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        self.sess = ort.InferenceSession(str(d / "nlu.int8.onnx"), so, providers=["CPUExecutionProvider"])
        self.temperature = float(self.meta["temperature"])
        self.max_len = int(self.meta["max_len"])
        self.min_confidence = float(self.meta.get("min_confidence", 0.0))  # measured: calibrate.py
        # a stop the model decides needs this much (measured on the blind stop lists; docs/model.md, session 16)
        self.stop_min_confidence = float(self.meta.get("stop_min_confidence", 0.0))
        self._recent: OrderedDict[str, dict] = OrderedDict()  # kept for one later predict(): see predict()
        self._recent_lock = threading.Lock()
        warm_clauses()  # the English word list of the last-clause reading, loaded now rather than on a request

    def encode(self, norm: str) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """Token ids (1, T) and char offsets into the normalised text, truncated to max_len (keeps </s>)."""
        enc = self.tok.encode(norm)
        ids, offsets = list(enc.ids), list(enc.offsets)
        if len(ids) > self.max_len:
            ids, offsets = ids[: self.max_len - 1] + ids[-1:], offsets[: self.max_len - 1] + [(0, 0)]
        return np.array([ids], dtype=np.int64), offsets

    def span_slots(self, text: str, idx: list[int], offsets, tags: np.ndarray, types: dict) -> tuple[dict, dict]:
        """Text / number slots of the predicted intent from BIO runs; values and original-text spans."""
        found: list[tuple[str, int, int, object]] = []
        names = mend_inside_tags([self.layout.tags[int(t)] for t in tags], offsets, idx, text, types)
        for name, t0, t1 in decode_bio(names):
            if types.get(name) not in ("text", "number"):
                continue
            toks = [offsets[t] for t in range(t0, t1) if offsets[t][1] > offsets[t][0]]
            if not toks:
                continue
            a, b = to_original_span(idx, min(s for s, _ in toks), max(e for _, e in toks))
            a, b = widen_to_words(text, a, b)
            if a >= b:
                continue
            if types[name] == "number":
                a, b = widen_to_numeral(text, a, b)
                b = widen_to_measure(text, a, b)
                said = numbers_said(text[a:b])
                if said:
                    found.append((name, a, b, said[0]))
                continue
            a, b = widen_to_words(text, *join_names(text, a, b))
            if is_cjk(text[a]) or is_cjk(text[b - 1]):
                a, b = widen_to_cjk_words(text, a, b)
            a, b = drop_restart(text, *close_marks(text, a, b))
            a, b = conventional_span(text, a, b, name)
            found.append((name, a, b, None))
        spans = last_spans(text, found)
        slots = {name: (value if value is not None else text[a:b]) for name, (a, b, value) in spans.items()}
        return slots, {name: (a, b) for name, (a, b, _) in spans.items()}

    def fill(self, text: str, intent: str, names: list[str], taken: dict | None = None) -> dict:
        """Find the slots `names` of `intent` that the reading left out: raise their tags' logits step by step until
        a span appears that overlaps no span in `taken` ({slot: (start, end)}); an English text span keeps the
        article said before it. A slot with no span below MAX_SLOT_BIAS stays out of the returned {slot: value}."""
        r = self.run(text)
        types = self.layout.slot_types.get(intent, {})
        taken = dict(taken or {})
        found: dict = {}
        for name in names:
            cols = [k for k, tag in enumerate(self.layout.tags) if tag.partition("-")[2] == name]
            for bias in np.arange(SLOT_BIAS_STEP, MAX_SLOT_BIAS + 1e-9, SLOT_BIAS_STEP):
                tags = r["tags"].copy()  # (T, tags)
                tags[:, cols] += bias
                slots, spans = self.span_slots(text, r["idx"], r["offsets"], tags.argmax(-1), types)
                if name not in spans:
                    continue
                a, b = spans[name]
                if any(a < e and s < b for s, e in taken.values()) or ARTICLE_ONLY.match(text[a:b]):
                    continue
                article = ARTICLE_BEFORE.search(text, 0, a) if types[name] == "text" and text[a:b].isascii() else None
                a = article.start() if article else a
                found[name] = slots[name] if types[name] == "number" else text[a:b]
                taken[name] = (a, b)
                break
        return found

    def enum_slots(self, intent: str, enum_logits: np.ndarray) -> dict:
        """Enum slots of the intent from its groups of the enum head (<absent> -> not set)."""
        out = {}
        for key, g in self.layout.enums.items():
            it, _, slot = key.partition(".")
            if it != intent:
                continue
            k, vals = g["offset"], g["values"]
            v = vals[int(enum_logits[k : k + len(vals)].argmax())]
            if v != ABSENT:
                out[slot] = v
        return out

    def run(self, text: str) -> dict:
        """Normalised text, char map, token offsets and the three raw logit arrays for one utterance."""
        norm, idx = normalise(text)
        ids, offsets = self.encode(norm)
        il, tl, el = self.sess.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})
        return {"norm": norm, "idx": idx, "offsets": offsets, "intent": il[0], "tags": tl[0], "enum": el[0]}

    def predict(self, text: str, remember: bool = False) -> dict:
        """{"intent", "confidence", "slots": {name: value}, "spans": {name: (start, end)}} for one utterance;
        with `none` first, "second": {"intent", "confidence", "slots"} names the command that came second.

        remember: keep the result for the next predict() of the same text, which takes it instead of running the
        model again (the node's stop check on the callback thread, then its worker; nothing else is cached)."""
        with self._recent_lock:
            kept = self._recent.pop(text, None)
        if kept is not None:
            return kept
        out = self._predict(text)
        if remember:
            with self._recent_lock:
                self._recent[text] = copy.deepcopy(out)
                while len(self._recent) > RECENT:
                    self._recent.popitem(last=False)
        return out

    def _predict(self, text: str) -> dict:
        """predict() without the memory of recent utterances: the whole utterance, then, if it is declined (`none`
        first, or a command below min_confidence), one of its clauses alone (understanding/clauses.py)."""
        out = self._read(text)
        if out["intent"] == "none" or out["confidence"] < self.min_confidence:
            return read_clause(self._read, text) or out
        return out

    def _read(self, text: str) -> dict:
        """The model's reading of one text."""
        r = self.run(text)
        norm, idx, offsets, tl, el = r["norm"], r["idx"], r["offsets"], r["tags"], r["enum"]
        p = softmax(r["intent"] / self.temperature)
        intent = self.layout.intents[int(p.argmax())]
        types = self.layout.slot_types.get(intent, {})
        slots, spans = self.span_slots(text, idx, offsets, tl.argmax(-1), types) if norm else ({}, {})
        slots.update(self.enum_slots(intent, el))
        order = list(types)
        slots = {k: slots[k] for k in order if k in slots}
        out = {"intent": intent, "confidence": float(p.max()), "slots": slots, "spans": spans}
        if intent == "none" and norm:  # the command that came second, for a question instead of a decline
            second = self.layout.intents[int(np.argsort(-p)[1])]
            if second not in ("none", "stop"):
                types = self.layout.slot_types.get(second, {})
                alt, _ = self.span_slots(text, idx, offsets, tl.argmax(-1), types)
                alt.update(self.enum_slots(second, el))
                out["second"] = {"intent": second, "confidence": float(np.sort(p)[-2]),
                                 "slots": {k: alt[k] for k in types if k in alt}}
        return out


def main() -> None:
    u = Understanding(sys.argv[1])
    for text in sys.argv[2:]:
        print(json.dumps(u.predict(text), ensure_ascii=False))


if __name__ == "__main__":
    main()
