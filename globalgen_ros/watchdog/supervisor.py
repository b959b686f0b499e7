"""Answer one utterance on the edge model, or defer it to the cloud when the watchdog rules say so."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from globalgen_ros.assistant import ContextTooLong
from globalgen_ros.watchdog.cloud import CloudClient, CloudError
from globalgen_ros.watchdog.cloud_format import build_messages, parse_answer
from globalgen_ros.watchdog.language import APOLOGY, say

OK, DEFERRED, FALLBACK, REJECTED, ERROR = "ok", "deferred_to_cloud", "fallback", "rejected", "error"
EDGE, CLOUD, NODE, REFLEX, ONBOARD = "edge", "cloud", "node", "reflex", "onboard"


@dataclass
class WatchdogConfig:
    max_edge_tokens: int = 256   # prompt + session history above this goes to the cloud at once
    deadline_ms: float = 400.0   # edge decode running longer is cancelled and deferred
    min_confidence: float = 0.0  # intent confidence below this is deferred (0 = never)
    cloud_enabled: bool = False
    max_edge_chars: int = 1000   # the edge model refuses longer transcripts (assistant.MAX_TEXT_CHARS)
    onboard_deadline_ms: float = 3000.0  # the on-board general model's reply is given up past this (then FALLBACK)
    onboard_max_new_tokens: int = 48
    onboard_languages: tuple[str, ...] = ("en",)  # language tags (prefixes) the on-board model answers


@dataclass
class Turn:
    user: str
    reply: str       # spoken reply text (what the cloud sees as history)
    raw: str = ""    # edge model output (header + reply) for edge history; empty for cloud answers


@dataclass
class Request:
    text: str
    language: str
    history: list[Turn] = field(default_factory=list)
    session_id: str = ""
    strategy: str | None = None
    max_new_tokens: int = 64


@dataclass
class Outcome:
    status: str
    source: str
    text: str
    language: str
    intent: str = "none"
    slots: dict[str, str] = field(default_factory=dict)
    confidence: float = 0.0
    error: str = ""            # why, when status is not OK (for DEFERRED: why it was deferred)
    strategy: str = ""
    tokens: int = 0
    forwards: int = 0
    ttft_ms: float = 0.0
    raw: str = ""
    confirmed: bool | None = None  # None: not a confirmation matter; False: published as a question; True: confirmed
    notes: list[str] = field(default_factory=list)  # what the checks changed (logged)
    second: dict | None = None  # an edge decline: the command the understanding model put second (clarify)
    clause: str = ""            # an edge answer read from one clause of a declined utterance (asked if motion)
    guessed: tuple[str, ...] = ()  # an edge answer's slots the understanding model had to be pushed to find (asked)


@dataclass
class Deferral:
    reason: str               # human-readable: which rule fired and with what numbers
    partial: str = ""         # edge text produced before the deadline (never published as final)
    decline: Outcome | None = None  # the edge's own honest decline, answered when the cloud cannot be reached


class Watchdog:
    """Apply the deferral rules around Assistant.respond and turn cloud answers into schema intents."""

    def __init__(self, assistant, schema, cloud: CloudClient | None, config: WatchdogConfig, onboard=None):
        self.assistant = assistant
        self.schema = schema
        self.cloud = cloud
        self.config = config
        self.onboard = onboard  # a general chat model (importer.assistant.ChatAssistant) for declined open requests

    def answer(self, req: Request, on_text: Callable[[str], None] | None = None,
               cancel: Callable[[], bool] | None = None) -> Outcome:
        """Return the final outcome for `req`: edge answer, cloud answer, fallback or error."""
        result = self.edge(req, on_text, cancel)
        return self.defer(req, result) if isinstance(result, Deferral) else result

    def edge(self, req: Request, on_text: Callable[[str], None] | None = None,
             cancel: Callable[[], bool] | None = None, save_later: bool = False) -> Outcome | Deferral:
        """Run the edge model under the rules; return its outcome or a Deferral saying why not.

        save_later: the caller files the turn's K/V itself after answering (`assistant.save_pending()`)."""
        cfg = self.config
        history = [(turn.user, turn.raw) for turn in req.history if turn.raw]
        if len(req.text) > cfg.max_edge_chars:
            return Deferral(f"long context: {len(req.text)} characters > the edge model's {cfg.max_edge_chars}")
        n = self.assistant.prompt_tokens(req.text, history)
        if n > cfg.max_edge_tokens:
            return Deferral(f"long context: {n} prompt tokens > watchdog.max_edge_tokens={cfg.max_edge_tokens}")
        start = time.monotonic()
        try:
            reply = self.assistant.respond(req.text, history=history, session_id=req.session_id,
                                           strategy=req.strategy, max_new_tokens=req.max_new_tokens,
                                           on_text=on_text, deadline=start + cfg.deadline_ms / 1000.0, cancel=cancel,
                                           save_later=save_later)
        except ContextTooLong as exc:  # the edge window cannot hold it: the cloud's job, never a truncation
            return Deferral(f"long context: {exc}")
        if reply.finish_reason == "cancelled":
            return Outcome(REJECTED, NODE, "", req.language, error="cancelled", strategy=reply.strategy,
                           tokens=reply.tokens, forwards=reply.forwards)
        if reply.finish_reason == "deadline":
            elapsed = (time.monotonic() - start) * 1000.0
            return Deferral(f"deadline: edge decode passed watchdog.deadline_ms={cfg.deadline_ms:g} "
                            f"({elapsed:.0f} ms, {reply.tokens} tokens)", reply.text)
        if cfg.cloud_enabled and reply.confidence < cfg.min_confidence:
            return Deferral(f"low confidence: intent {reply.intent} at {reply.confidence:.2f} "
                            f"< watchdog.min_confidence={cfg.min_confidence:g}")
        outcome = Outcome(OK, EDGE, reply.text, req.language, intent=reply.intent,
                          slots=dict(reply.slots), confidence=reply.confidence, strategy=reply.strategy,
                          tokens=reply.tokens, forwards=reply.forwards, ttft_ms=reply.ttft_ms, raw=reply.raw,
                          second=reply.second, clause=reply.clause, guessed=reply.guessed)
        if (cfg.cloud_enabled or self.onboard is not None) and is_decline(outcome):  # an open question or a
            return Deferral(f"declined on the edge ({reply.text!r})", decline=outcome)  # request outside the schema
        return outcome

    def defer(self, req: Request, deferral: Deferral) -> Outcome:
        """Ask the cloud; on any failure return a FALLBACK apology in the user's language."""
        if not self.config.cloud_enabled or self.cloud is None:
            return self.on_board(req, f"{deferral.reason}; cloud disabled (cloud.enabled is false)", deferral)
        messages = build_messages(self.schema, req.text, req.language,
                                  [(turn.user, turn.reply) for turn in req.history])
        try:
            answer = parse_answer(self.cloud.chat(messages), self.schema, req.language)
        except CloudError as exc:  # the on-board model, else the edge's own decline, beats a generic apology
            return self.on_board(req, f"{deferral.reason}; cloud failed: {exc}", deferral)
        error = "; ".join([f"deferred: {deferral.reason}", *answer.notes])
        return Outcome(DEFERRED, CLOUD, answer.text, req.language, intent=answer.intent, slots=answer.slots,
                       confidence=answer.confidence, error=error,
                       strategy="cloud")

    def on_board(self, req: Request, reason: str, deferral: Deferral) -> Outcome:
        """Answer a declined open request with the on-board general model when there is one and it speaks the
        language, within onboard_deadline_ms; its answer never acts (intent none). Else FALLBACK."""
        cfg = self.config
        if self.onboard is None or deferral.decline is None or not req.language.startswith(cfg.onboard_languages):
            return self.fallback(req, reason, deferral)
        start = time.monotonic()
        try:
            reply = self.onboard.respond(req.text, history=[(t.user, t.reply) for t in req.history],
                                         max_new_tokens=cfg.onboard_max_new_tokens,
                                         deadline=start + cfg.onboard_deadline_ms / 1000.0)
        except Exception as exc:  # noqa: BLE001 - the request still gets its decline
            return self.fallback(req, f"{reason}; on-board model failed: {exc.__class__.__name__}: {exc}", deferral)
        if reply.finish_reason not in ("end", "max_tokens") or not reply.text.strip():
            return self.fallback(req, f"{reason}; on-board model gave no reply within onboard.deadline_ms="
                                      f"{cfg.onboard_deadline_ms:g} ({reply.finish_reason})", deferral)
        return Outcome(OK, ONBOARD, reply.text, req.language, intent="none", confidence=reply.confidence,
                       strategy=reply.strategy, tokens=reply.tokens, forwards=reply.forwards, ttft_ms=reply.ttft_ms,
                       notes=[f"answered by the on-board model: {reason}"])

    def fallback(self, req: Request, reason: str, deferral: Deferral | None = None) -> Outcome:
        """Return a FALLBACK outcome: the edge's decline or a short apology in the user's language; `reason` as the
        error."""
        if deferral is not None and deferral.decline is not None:
            return replace(deferral.decline, status=FALLBACK, source=NODE, error=reason)
        return Outcome(FALLBACK, NODE, say(APOLOGY, req.language), req.language, error=reason, strategy="none")


DECLINE_OPENERS = ("sorry", "抱歉", "对不起", "不好意思")


def is_decline(outcome: Outcome) -> bool:
    """Return True if the edge answered `none` with a decline ("Sorry, I can't …"), not small talk."""
    return outcome.intent == "none" and outcome.text.strip().casefold().startswith(DECLINE_OPENERS)
