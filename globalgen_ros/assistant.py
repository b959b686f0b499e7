"""The one API used by the CLI, the benchmarks and the ROS node: transcript in, reply + intent out."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace

import numpy as np

from globalgen_ros.cache.attention import Layer0Attention
from globalgen_ros.cache.context import build_context, history_digest
from globalgen_ros.cache.tiered import CacheConfig, TieredKVCache
from globalgen_ros.cache.window import WindowPlan
from globalgen_ros.decoding.calibration import CostModel
from globalgen_ros.decoding.datastore import NgramDatastore
from globalgen_ros.decoding.engine import STRATEGIES, DecodeOptions, Decoder, GenerationStats
from globalgen_ros.runtime.artifacts import ModelArtifactError, is_imported, load_artifacts
from globalgen_ros.runtime.constraints import ForcedPrefix, HeaderConstraint, SchemaTries
from globalgen_ros.runtime.format import header_tokens, parse_output, prompt_tokens
from globalgen_ros.runtime.onnx_model import OnnxModel
from globalgen_ros.runtime.tokenizer import Tokenizer, TokenizerError
from globalgen_ros.schema import load_schema
from globalgen_ros.watchdog.language import detect_language, is_ideograph, language_code

DRAFTS_FILE = "drafts.npz"
NLU_DIR = "nlu"  # the understanding model inside a model directory (globalgen_ros/understanding/)
MAX_TEXT_CHARS = 1000

__all__ = ["Assistant", "CacheConfig", "ContextTooLong", "InputError", "ModelArtifactError", "Reply"]


class InputError(ValueError):
    """The transcript cannot be answered as given (empty, too long, undecodable); the message says what to do."""


class ContextTooLong(InputError):
    """The new turn and its reply do not fit the largest context window: defer it (watchdog), never truncate it."""


@dataclass
class Reply:
    intent: str
    slots: dict[str, str]
    text: str                  # the spoken reply
    language: str
    confidence: float          # probability of the chosen intent (first header decision)
    tokens: int
    forwards: int
    latency_ms: float
    ttft_ms: float
    finish_reason: str         # 'end' | 'max_tokens' | 'deadline' | 'cancelled'
    strategy: str
    raw: str                   # decoded model output (header + reply)
    stats: GenerationStats = field(repr=False, default_factory=GenerationStats)
    token_ids: list[int] = field(repr=False, default_factory=list)  # generated token ids (<|end|> included)
    understanding_ms: float = 0.0  # time the understanding model took (0: the decoder decided the header)
    header: str = "decoder"        # who decided intent and slots: understanding | understanding+copy | decoder
    second: dict | None = None     # declined by the understanding model: the command it put second (predict())
    clause: str = ""               # the answer was read from this clause of a declined utterance
    guessed: tuple[str, ...] = ()  # slots the understanding model left out and found only when pushed (asked first)


def check_text(text: str | bytes) -> str:
    """Return the transcript as str, or raise InputError saying what is wrong with it."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"transcript is not valid UTF-8 ({e.reason} at byte {e.start}); send UTF-8 text") from None
    if not isinstance(text, str):
        raise InputError(f"transcript must be text, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError("transcript contains unpaired surrogates (broken UTF-16); send valid Unicode text") from None
    if not text.strip():
        raise InputError("transcript is empty; send the recognised words")
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"transcript has {len(text)} characters, more than {MAX_TEXT_CHARS}; split it or defer it "
                         f"to the cloud model")
    return text


def cache_config(cache: CacheConfig | dict | None, max_len: int) -> CacheConfig:
    """Build the cache parameters (a CacheConfig, a dict of its fields, or None for the defaults).

    Default windows longer than the model's context are left out; configured ones must fit it.
    """
    config = cache if isinstance(cache, CacheConfig) else CacheConfig.from_dict(cache or {})
    if config.windows == CacheConfig.windows:
        config = replace(config, windows=tuple(w for w in config.windows if w <= max_len) or (max_len,))
    config.validate()
    if max(config.windows) > max_len:
        raise ValueError(f"cache windows {config.windows} exceed the model's {max_len}-token context")
    return config


def cjk_tokens(tok: Tokenizer) -> np.ndarray:
    """Return (V,) bool: which tokens spell a CJK character (the template drafter's language test)."""
    return np.array([any(map(is_ideograph, tok.token_text(i))) for i in range(tok.vocab_size)], bool)


def decoding_options(strategy: str, options: dict) -> DecodeOptions:
    """Build DecodeOptions from keyword options; unknown names raise ValueError listing the valid ones."""
    known = {f.name for f in fields(DecodeOptions)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown decoding options {unknown}; valid: {sorted(known)}")
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose one of {list(STRATEGIES)}")
    if "sources" in options:
        options = dict(options, sources=tuple(options["sources"]))
    return DecodeOptions(strategy=strategy, **options)


def load_understanding(artifacts, understanding: str | bool, threads: int):
    """Return the understanding model of a model directory (or of the given directory), or None."""
    from pathlib import Path

    if understanding is False:
        return None
    path = artifacts.root / NLU_DIR if understanding is True else Path(understanding)
    if understanding is True and not (path / "nlu.json").is_file():
        return None
    from globalgen_ros.understanding.predict import Understanding

    files = artifacts.manifest.get("files", {})
    checked = understanding is True and all(f"{NLU_DIR}/{name}" in files and (path / name).is_file()
                                            for name in ("nlu.int8.onnx", "tokenizer.json"))
    try:  # files the manifest lists were hashed by load_artifacts already: do not hash 27 MiB twice
        return Understanding(path, threads=threads, verify=not checked)
    except (OSError, ValueError, KeyError) as e:
        raise ModelArtifactError(f"{path}: the understanding model cannot be loaded ({e}); restore it or pass "
                                 f"understanding=False") from None


class Assistant:
    """Answer transcripts with the on-board model: constrained intent header, then a spoken reply.

    For an imported chat model (`globalgen import`; its manifest has a `chat` entry) `Assistant(...)` returns a
    `ChatAssistant` (importer/assistant.py): the understanding model decides, the chat model speaks."""

    def __new__(cls, model_dir: str | None = None, *args, **kwargs):
        if cls is Assistant and is_imported(model_dir):
            from globalgen_ros.importer.assistant import ChatAssistant

            return super().__new__(ChatAssistant)
        return super().__new__(cls)

    def __init__(self, model_dir: str | None = None, *, schema_path: str | None = None,
                 strategy: str = "parallel", threads: int = 1, calibration: str | None = "measure",
                 history_replies: int = 256, cache: CacheConfig | dict | None = None,
                 understanding: str | bool = True, min_confidence: float | None = None,
                 stop_min_confidence: float | None = None, **decoding_opts):
        """Load and check the model; `calibration`: "measure" (time forwards now), a JSON file, or None.

        understanding: True uses the model directory's `nlu/` when it has one (intent and slots from the
        understanding model, the reply from the decoder), False never, a path that directory. min_confidence:
        below it the understanding model's intent is declined (`none`); None: the value measured at training.
        stop_min_confidence: the same for a `stop` the model decides (the reflex's stops never wait for it); None:
        the model's own (nlu.json), or none."""
        self.options = decoding_options(strategy, decoding_opts)
        self.artifacts = load_artifacts(model_dir)
        self.schema = load_schema(schema_path)
        self.understanding = load_understanding(self.artifacts, understanding, threads)
        self.min_confidence = (min_confidence if min_confidence is not None else
                               getattr(self.understanding, "min_confidence", 0.0))
        self.stop_min_confidence = (stop_min_confidence if stop_min_confidence is not None else
                                    getattr(self.understanding, "stop_min_confidence", 0.0))
        try:
            self.tokenizer = Tokenizer(self.artifacts.path("tokenizer.json"))
        except TokenizerError as e:
            raise ModelArtifactError(str(e)) from None
        self.schema_tries = SchemaTries.build(self.schema, self.tokenizer)  # once, not per request
        self.model = OnnxModel(self.artifacts, threads=threads)
        drafts = self.artifacts.optional.get(DRAFTS_FILE)
        datastore = NgramDatastore.load(drafts, history_replies) if drafts else NgramDatastore(history=history_replies)
        tok = self.tokenizer
        model_id = self.artifacts.manifest["files"].get("model.int8.onnx", {}).get("sha256", "")
        self.cache = TieredKVCache(self.model.dims.kv_row_shape, cache_config(cache, self.model.dims.max_len),
                                   model_id=model_id, scorer=Layer0Attention.from_model_dir(self.artifacts.root,
                                                                                            self.artifacts.config))
        self.decoder = Decoder(self.model, end_id=tok.end, options=self.options, datastore=datastore,
                               cache=self.cache, stop_ids=(tok.bos, tok.user, tok.assistant, tok.pad),
                               special_ids={"reply": tok.reply, "user": tok.user, "assistant": tok.assistant,
                                            "value": tok.value},
                               cjk=cjk_tokens(tok))
        if calibration == "measure":
            self.decoder.calibrate()
        elif calibration:
            self.decoder.cost = CostModel.load(calibration)
        self._lock = threading.Lock()  # one KV cache: one generation at a time
        self._pending = None  # (context, generation, text, session) of a turn answered with save_later

    def prompt_tokens(self, text: str, history: list[tuple[str, str]] = ()) -> int:
        """Return the number of prompt tokens a request would use (for deferral decisions)."""
        return len(prompt_tokens(self.tokenizer, check_text(text), list(history))[0])

    def plan_context(self, text: str, history: list[tuple[str, str]] = (), session_id: str = "",
                     max_new_tokens: int = 64) -> WindowPlan:
        """Return the context window a request would get (plan.defer: it fits none, defer it to the cloud)."""
        expected = min(max_new_tokens, self.cache.config.expected_reply)
        with self._lock:
            self._save_pending()
            return build_context(self.cache, self.tokenizer, check_text(text), list(history), session_id,
                                 expected).plan

    def cache_stats(self) -> dict:
        """Return the KV cache's byte use and per-tier hits / misses / evictions, flat (for /diagnostics)."""
        return self.cache.flat_stats()

    def respond(self, text: str, *, history: list[tuple[str, str]] = (), session_id: str = "",
                strategy: str | None = None, max_new_tokens: int = 64,
                on_text: Callable[[str], None] | None = None, deadline: float | None = None,
                cancel: Callable[[], bool] | None = None, save_later: bool = False) -> Reply:
        """Decode the reply to one transcript; partial output is returned on deadline or cancel.

        save_later: return before filing this turn's K/V in the cache (~1 ms of int8 quantization); it is filed
        by `save_pending()` (the node calls it after publishing the answer) or at the start of the next call.
        """
        t0 = time.perf_counter()
        text = check_text(text)
        tok = self.tokenizer
        nlu = self.understanding.predict(text) if self.understanding is not None else None
        nlu = self._fill_required(nlu, text)
        nlu_ms = (time.perf_counter() - t0) * 1e3 if nlu is not None else 0.0
        expected = min(max_new_tokens, self.cache.config.expected_reply)
        on_tokens = self._streamer(on_text) if on_text else None
        with self._lock:
            self._save_pending()
            ctx = build_context(self.cache, tok, text, list(history), session_id, expected)
            if ctx.plan.defer:
                raise ContextTooLong(f"the new turn ({len(ctx.user_ids) + 2} tokens) and a {expected}-token reply "
                                     f"do not fit the largest context window ({self.cache.capacity} tokens); defer "
                                     f"it to the cloud model or shorten the transcript")
            nlu, constraint, header = self.header_constraint(nlu, ctx.user_ids)
            gen = self.decoder.generate(ctx.ids, constraint=constraint, strategy=strategy,
                                        max_new_tokens=min(max_new_tokens, self.cache.capacity - len(ctx.ids)),
                                        on_tokens=on_tokens, deadline=deadline, cancel=cancel)
            if gen.finish_reason == "end":
                self.decoder.datastore.add([tok.assistant] + gen.tokens)
            if save_later:
                self._pending = (ctx, gen, text, session_id)
            else:
                self._remember(ctx, gen, text, session_id)
        body = gen.tokens[:-1] if gen.tokens and gen.tokens[-1] == tok.end else gen.tokens
        raw = tok.decode(body)
        parsed = parse_output(raw)
        valid = parsed.intent in self.schema and not self.schema.validate_output(parsed.intent, parsed.slots)
        confidence = gen.stats.first_prob if valid else 0.0
        decided = valid and nlu is not None and parsed.complete and parsed.intent == nlu["intent"]  # header not cut
        guessed = tuple(nlu.get("guessed", ())) if decided else ()
        if decided and header == "understanding":  # the exact words said, as the understanding model found them
            parsed.slots, confidence = dict(nlu["slots"]), nlu["confidence"]
            parsed.reply = self._checked_reply(text, parsed.intent, parsed.slots, parsed.reply)
        elif decided and header == "understanding+copy":  # the decoder copied the slots: a guess, asked first
            confidence, guessed = nlu["confidence"], tuple(parsed.slots)
            parsed.reply = self._checked_reply(text, parsed.intent, parsed.slots, parsed.reply)
        return Reply(intent=parsed.intent if valid else "none", slots=parsed.slots if valid else {},
                     text=parsed.reply, language=language_code(detect_language(text)),
                     confidence=confidence, tokens=len(gen.tokens),
                     forwards=gen.stats.forwards, latency_ms=(time.perf_counter() - t0) * 1e3,
                     ttft_ms=gen.stats.ttft_ms, finish_reason=gen.finish_reason,
                     strategy=gen.stats.strategy, raw=raw, stats=gen.stats, token_ids=gen.tokens,
                     understanding_ms=nlu_ms, header=header,
                     second=nlu.get("second") if nlu is not None and valid and parsed.intent == "none" else None,
                     clause=nlu.get("clause", "") if decided else "", guessed=guessed)

    def _fill_required(self, nlu: dict | None, text: str) -> dict | None:
        """Return `nlu` with the required slots it left out looked for again (Understanding.fill) and named in
        "guessed": the answer is asked before it is acted on. A reading of one clause is left as it is."""
        if nlu is None or nlu["intent"] not in self.schema or nlu.get("clause"):
            return nlu
        if nlu["confidence"] < self.confidence_floor(nlu["intent"]):
            return nlu  # declined in header_constraint: no second encoder run for slots nobody will see
        spec = self.schema[nlu["intent"]]
        missing = [s.name for s in spec.slots if not s.optional and s.type != "enum" and s.name not in nlu["slots"]]
        if not missing:
            return nlu
        found = self.understanding.fill(text, nlu["intent"], missing, nlu.get("spans"))
        slots = {**nlu["slots"], **found}
        return dict(nlu, slots={s.name: slots[s.name] for s in spec.slots if s.name in slots}, guessed=missing)

    def _checked_reply(self, text: str, intent: str, slots: dict[str, str], reply: str) -> str:
        """Return the decoder's reply if it knows the intent, answers in the user's language and repeats every text
        slot verbatim and every number as a whole number ("1.5", not "15"), else the reply template of the intent
        (corpus/templates.py or its phrasing file)."""
        from globalgen_ros.corpus.templates import BUILT_IN
        from globalgen_ros.corpus.templates import reply as template_reply

        lang = language_code(detect_language(text))
        texts = [v for k, v in slots.items() if self.schema[intent].slot(k).type == "text"]
        numbers = [v for k, v in slots.items() if self.schema[intent].slot(k).type == "number"]
        known = intent in BUILT_IN or intent == "none"  # an intent added since: the decoder never learnt its reply
        same_language = language_code(detect_language(reply)) == lang
        said = all(re.search(rf"(?<![\d.]){re.escape(v)}(?![\d]|\.\d)", reply) for v in numbers)
        if known and same_language and said and all(v.casefold() in reply.casefold() for v in texts):
            return reply

        try:
            return template_reply(intent, lang, slots)
        except (KeyError, IndexError):  # an intent the corpus has no reply for: keep the decoder's
            return reply

    def confidence_floor(self, intent: str) -> float:
        """Return the confidence below which the understanding model's `intent` is declined, not acted on."""
        return max(self.min_confidence, self.stop_min_confidence) if intent == "stop" else self.min_confidence

    def header_constraint(self, nlu: dict | None, user_ids: list[int]):
        """Return (nlu, the header constraint, who decides the header) for a request whose transcript tokens are
        `user_ids` (format.prompt_tokens) and whose understanding-model prediction is `nlu` (None: the decoder).

        The header the understanding model decided is forced; below confidence_floor its intent is declined
        (`none`). A text value that is not a token span of the decoder's prompt leaves the slots to the decoder's
        schema-constrained copy, behind the forced intent."""
        tok = self.tokenizer
        constraint = HeaderConstraint(self.schema, tok, user_ids, self.schema_tries)
        if nlu is None:
            return nlu, constraint, "decoder"
        if nlu["intent"] != "none" and nlu["confidence"] < self.confidence_floor(nlu["intent"]):
            nlu = dict(nlu, intent="none", slots={}, declined=nlu["intent"])
        intent, slots = nlu["intent"], nlu["slots"]
        if intent not in self.schema:
            return nlu, constraint, "decoder"
        required = {s.name for s in self.schema[intent].slots if not s.optional}
        try:
            if self.schema.validate_output(intent, slots) or not required <= set(slots):
                raise ValueError("slots incomplete")
            prefix = header_tokens(tok, self.schema, intent, slots, user_ids) + [tok.reply]
            return nlu, ForcedPrefix(constraint, prefix), "understanding"
        except ValueError:
            return nlu, ForcedPrefix(constraint, [tok.intent] + tok.encode(intent)), "understanding+copy"

    def save_pending(self) -> None:
        """File the K/V of the last turn answered with save_later=True (nothing if there is none)."""
        with self._lock:
            self._save_pending()

    def _save_pending(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._remember(*pending)

    def _remember(self, ctx, gen, text: str, session_id: str) -> None:
        """File this turn's K/V in the cache; a finished turn also becomes its session's history."""
        tok = self.tokenizer
        ended = gen.tokens[-1:] == [tok.end]
        ids = ctx.ids + gen.tokens + ([] if ended else [tok.end])  # the turn closed as format.prompt_tokens does
        finished = gen.finish_reason in ("end", "max_tokens")
        digest = history_digest([(text, tok.decode(gen.tokens[:-1] if ended else gen.tokens))], ctx.digest)
        self.cache.save(ids, session_id if finished else "", ctx.turn_starts, digest)

    def _streamer(self, on_text: Callable[[str], None]) -> Callable[[list[int]], None]:
        """Turn accepted output tokens into calls of on_text(reply text so far) when the text grows."""
        tok, last = self.tokenizer, [""]

        def on_tokens(output: list[int]) -> None:
            if tok.reply not in output:
                return
            start = output.index(tok.reply) + 1
            body = [t for t in output[start:] if t != tok.end]
            text = tok.decode(body).strip().rstrip("\ufffd")  # an unfinished UTF-8 character waits for its bytes
            if text != last[0]:
                last[0] = text
                on_text(text)
        return on_tokens
