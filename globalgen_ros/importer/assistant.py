"""`Assistant(model_dir=IMPORTED)`: an imported chat model speaks the reply, the understanding model decides.

`Assistant(...)` returns a `ChatAssistant` when the model directory's manifest has a `chat` entry (an import).
Per request: the understanding model (the model directory's `nlu/`, else the shipped models/default/nlu, or
the `understanding=` path) decides intent and slots; `importer/prompt.py` states the decision in the system
prompt; the conversation is rendered with the model's own chat template and tokenizer and decoded greedily
under `AnyToken` (ar, parallel or confident: prompt/context look-up and the reply datastore draft, and the
model's draft heads once `globalgen heads` trained them) until any of its end-of-sequence ids. The tiered KV
cache holds K/V rows of the model's KV heads.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from globalgen_ros.assistant import (
    NLU_DIR,
    Assistant,
    CacheConfig,
    ContextTooLong,
    Reply,
    cache_config,
    check_text,
    decoding_options,
    load_understanding,
)
from globalgen_ros.cache.tiered import TieredKVCache
from globalgen_ros.cache.window import WindowPlan
from globalgen_ros.decoding.calibration import CostModel
from globalgen_ros.decoding.datastore import NgramDatastore
from globalgen_ros.decoding.engine import Decoder
from globalgen_ros.importer.chat import ChatFormat
from globalgen_ros.importer.plain import AnyToken
from globalgen_ros.importer.prompt import Decision, decide, system_prompt
from globalgen_ros.runtime.artifacts import load_artifacts, shipped_model_dir
from globalgen_ros.runtime.onnx_model import OnnxModel
from globalgen_ros.schema import load_schema
from globalgen_ros.watchdog.language import detect_language, language_code

MAX_TURNS = 8  # earlier (user, reply) turns a session keeps (older ones are dropped first when they do not fit)
DATASTORE_CONTEXT = 3  # prompt tokens before the reply filed with it in the datastore (the reply's opening context)


def chat_understanding(artifacts, understanding: str | bool, threads: int):
    """Return the understanding model for an imported model: its own nlu/, else the shipped one, or the path."""
    if understanding is True and not (artifacts.root / NLU_DIR / "nlu.json").is_file():
        shipped = shipped_model_dir() / NLU_DIR
        understanding = str(shipped) if (shipped / "nlu.json").is_file() else False
    return load_understanding(artifacts, understanding, threads)


class ChatAssistant(Assistant):
    """Answer transcripts with an imported chat model; intent and slots from the understanding model."""

    def __init__(self, model_dir: str | None = None, *, schema_path: str | None = None,
                 strategy: str = "parallel", threads: int = 1, calibration: str | None = "measure",
                 history_replies: int = 256, cache: CacheConfig | dict | None = None,
                 understanding: str | bool = True, min_confidence: float | None = None,
                 stop_min_confidence: float | None = None, **decoding_opts):
        """Load and check the imported model (the decoder its manifest names) and the understanding model."""
        self.options = decoding_options(strategy, decoding_opts)
        self.artifacts = load_artifacts(model_dir, required=("config.json", "tokenizer.json"))
        self.schema = load_schema(schema_path)
        self.understanding = chat_understanding(self.artifacts, understanding, threads)
        self.min_confidence = (min_confidence if min_confidence is not None else
                               getattr(self.understanding, "min_confidence", 0.0))
        self.stop_min_confidence = (stop_min_confidence if stop_min_confidence is not None else
                                    getattr(self.understanding, "stop_min_confidence", 0.0))
        self.chat = self.tokenizer = ChatFormat(self.artifacts)
        self.model = OnnxModel(self.artifacts, threads=threads)
        self.constraint = AnyToken(self.model.dims.vocab_size)
        model_id = self.artifacts.manifest["files"].get(self.model.decoder_file, {}).get("sha256", "")
        self.cache = TieredKVCache(self.model.dims.kv_row_shape, cache_config(cache, self.model.dims.max_len),
                                   model_id=model_id)  # rows (L, 2, KV heads, D): sized by the KV heads
        first, *more = self.chat.end_ids
        starts = tuple(i for i in self.chat.special_ids if i not in self.chat.end_ids)  # a look-up stops there
        self.decoder = Decoder(self.model, end_id=first, more_ends=tuple(more), options=self.options,
                               datastore=NgramDatastore(history=history_replies), cache=self.cache, stop_ids=starts)
        self.learn_replies = True  # file finished replies in the datastore (the llm bench files them itself)
        if calibration == "measure":
            self.decoder.calibrate()
        elif calibration:
            self.decoder.cost = CostModel.load(calibration)
        self.sessions: OrderedDict[str, list[tuple[str, str]]] = OrderedDict()  # session -> (user, reply) turns
        self._lock = threading.Lock()
        self._pending = None

    def decision(self, text: str) -> tuple[Decision, dict | None, float]:
        """Return the understanding model's decision for a transcript, its raw prediction and its ms."""
        t0 = time.perf_counter()
        nlu = self.understanding.predict(text) if self.understanding is not None else None
        ms = (time.perf_counter() - t0) * 1e3 if nlu is not None else 0.0
        return decide(self.schema, nlu, self.confidence_floor(nlu["intent"]) if nlu else 0.0), nlu, ms

    def chat_prompt(self, text: str, decision: Decision, history: list[tuple[str, str]],
                    max_new_tokens: int) -> list[int]:
        """Return the prompt ids: system prompt, as many recent turns as fit the cache with the reply, the user.

        Raises ContextTooLong when even the new turn alone (with its system prompt) leaves no room."""
        system = system_prompt(self.schema, decision)
        expected = min(max_new_tokens, self.cache.config.expected_reply)
        for first in range(len(history) + 1):  # drop the oldest turns first
            ids = self.chat.encode(self.chat.conversation(system, list(history[first:]), text))
            if len(ids) + expected <= self.cache.capacity:
                return ids
        raise ContextTooLong(f"the new turn ({len(ids)} tokens with the system prompt) and a {expected}-token reply "
                             f"do not fit the largest context window ({self.cache.capacity} tokens); defer it to the "
                             f"cloud model or shorten the transcript")

    def turns(self, history, session_id: str) -> list[tuple[str, str]]:
        """Return the earlier turns of a request: the history given, else the session's remembered turns."""
        return list(history) if history else list(self.sessions.get(session_id, []))

    def prompt_tokens(self, text: str, history: list[tuple[str, str]] = ()) -> int:
        """Return the number of prompt tokens a request would use (for deferral decisions)."""
        text = check_text(text)
        return len(self.chat_prompt(text, self.decision(text)[0], list(history), 0))

    def plan_context(self, text: str, history: list[tuple[str, str]] = (), session_id: str = "",
                     max_new_tokens: int = 64) -> WindowPlan:
        """Return the context window a request would get (plan.defer: it fits none, defer it to the cloud)."""
        text = check_text(text)
        expected = min(max_new_tokens, self.cache.config.expected_reply)
        decision = self.decision(text)[0]
        try:
            with self._lock:
                n = len(self.chat_prompt(text, decision, self.turns(history, session_id), max_new_tokens))
        except ContextTooLong:
            return self.cache.plan([], self.cache.capacity + 1, None, expected)
        return self.cache.plan([], n, None, expected)

    def header_constraint(self, nlu, user_ids):
        """Not for an imported model: it writes no intent header (the understanding model decides)."""
        raise NotImplementedError("an imported chat model writes no intent header: intent and slots come from the "
                                  "understanding model (importer/prompt.py)")

    def respond(self, text: str, *, history: list[tuple[str, str]] = (), session_id: str = "",
                strategy: str | None = None, max_new_tokens: int = 64,
                on_text: Callable[[str], None] | None = None, deadline: float | None = None,
                cancel: Callable[[], bool] | None = None, save_later: bool = False) -> Reply:
        """Decide intent and slots, then decode the chat model's spoken reply (partial on deadline or cancel)."""
        t0 = time.perf_counter()
        text = check_text(text)
        decision, nlu, nlu_ms = self.decision(text)
        on_tokens = self._streamer(on_text) if on_text else None
        with self._lock:
            self._save_pending()
            turns = self.turns(history, session_id)
            ids = self.chat_prompt(text, decision, turns, max_new_tokens)
            gen = self.decoder.generate(ids, constraint=self.constraint, strategy=strategy,
                                        max_new_tokens=min(max_new_tokens, self.cache.capacity - len(ids)),
                                        on_tokens=on_tokens, deadline=deadline, cancel=cancel)
            reply = self.reply_text(gen.tokens)
            if gen.finish_reason == "end" and self.learn_replies:
                self.learn(ids, gen.tokens)
            pending = (ids, gen, text, session_id, turns, reply)
            if save_later:
                self._pending = pending
            else:
                self._remember(*pending)
        language = language_code(detect_language(text))
        return Reply(intent=decision.intent, slots=decision.slots, text=reply, language=language,
                     confidence=decision.confidence, tokens=len(gen.tokens), forwards=gen.stats.forwards,
                     latency_ms=(time.perf_counter() - t0) * 1e3, ttft_ms=gen.stats.ttft_ms,
                     finish_reason=gen.finish_reason, strategy=gen.stats.strategy,
                     raw=self.chat.decode(gen.tokens), stats=gen.stats,  # raw = the reply: history-safe
                     token_ids=gen.tokens, understanding_ms=nlu_ms, header="understanding" if nlu else "none")

    def learn(self, prompt: list[int], tokens: list[int]) -> None:
        """File a finished reply (with the prompt tokens just before it) in the reply datastore."""
        self.decoder.datastore.add(prompt[-DATASTORE_CONTEXT:] + tokens)

    def reply_text(self, tokens: list[int]) -> str:
        """Return the spoken reply of generated tokens (the end-of-sequence token and special tokens left out)."""
        body = tokens[:-1] if tokens and tokens[-1] in self.chat.end_ids else tokens
        return self.chat.decode(body).strip()

    def _remember(self, ids, gen, text: str, session_id: str, turns, reply: str) -> None:
        """File this turn's K/V in the cache (its prefix serves the next prompt); a finished turn joins its session."""
        self.cache.save(ids + gen.tokens)
        if session_id and gen.finish_reason in ("end", "max_tokens"):
            self.sessions[session_id] = (turns + [(text, reply)])[-MAX_TURNS:]
            self.sessions.move_to_end(session_id)
            while len(self.sessions) > self.cache.config.max_sessions:
                self.sessions.popitem(last=False)

    def _streamer(self, on_text: Callable[[str], None]) -> Callable[[list[int]], None]:
        """Turn accepted output tokens into calls of on_text(reply text so far) when the text grows."""
        last = [""]

        def on_tokens(output: list[int]) -> None:
            text = self.reply_text(output).rstrip("\ufffd")  # an unfinished UTF-8 character waits for its bytes
            if text != last[0]:
                last[0] = text
                on_text(text)
        return on_tokens


__all__ = ["ChatAssistant"]
