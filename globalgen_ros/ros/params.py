"""Declare every parameter of globalgen_node with a descriptor, and validate changes with reasons."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult
from rclpy.exceptions import ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter

from globalgen_ros.serving.confirm import CLARIFY_ABOVE
from globalgen_ros.serving.reflex import ReflexWordsError, load_words
from globalgen_ros.serving.stop_ngrams import DEFAULT_THRESHOLD
from globalgen_ros.watchdog.cloud import parse_base_url

STRATEGIES = ("ar", "parallel", "confident")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BCP47 = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


def _one_of(*allowed: str) -> Callable[[Any], str]:
    return lambda v: "" if v in allowed else f"must be one of {', '.join(allowed)}; got {v!r}"


def _url(v: str) -> str:
    try:
        parse_base_url(v)
    except ValueError as exc:
        return str(exc)
    return ""


def _env(v: str) -> str:
    return "" if v == "" or _ENV_NAME.match(v) else f"must be an environment variable NAME (not the key); got {v!r}"


def _lang(v: str) -> str:
    return "" if _BCP47.match(v) else f"must be a BCP-47 tag such as en-US or zh-CN; got {v!r}"


def _windows(v: list[int]) -> str:
    if not v or any(int(w) < 8 for w in v) or list(v) != sorted(set(v)):
        return f"must be a non-empty ascending list of distinct sizes >= 8 tokens; got {list(v)!r}"
    return ""


def _reflex_words(v: str) -> str:
    try:
        load_words(v or None)
    except ReflexWordsError as exc:
        return f"must name a readable reflex word list: {exc}"
    return ""


def _names(v: list[str]) -> str:
    bad = [n for n in v or [] if not n.strip() or len(n) > 32]
    return f"must be names of 1-32 characters; got {bad[0]!r}" if bad else ""


@dataclass
class Spec:
    name: str
    default: Any
    description: str
    range: tuple[float, float] | None = None
    read_only: bool = False   # takes effect at start only (from the params file or -p)
    check: Callable[[Any], str] | None = None  # returns "" when fine, else the reason


SPECS = [
    Spec("autostart", True, "configure and activate the lifecycle node by itself on start", read_only=True),
    Spec("model_dir", "", "model directory (manifest.json inside); empty = the shipped models/default",
         read_only=True),
    Spec("understanding", True, "let the model directory's understanding model (nlu/) decide intent and slots (the "
         "decoder writes the reply); false: the decoder decides them too, as before model v10", read_only=True),
    Spec("schema_path", "", "intent schema YAML; empty = the shipped config/intents.yaml", read_only=True),
    Spec("threads", 1, "ONNX Runtime intra-op threads of the edge model (1 is fastest for the default model)",
         (1, 64), read_only=True),
    Spec("strategy", "parallel", "edge decoding strategy: ar, parallel or confident", check=_one_of(*STRATEGIES)),
    Spec("max_new_tokens", 64, "most tokens the edge model generates per reply", (1, 512)),
    Spec("queue.max_size", 16, "transcripts waiting for the model; beyond this they are REJECTED", (1, 10000),
         read_only=True),
    Spec("input.max_chars", 65536, "denial-of-service guard: longer transcripts are answered with ERROR (long ones "
         "below it are deferred to the cloud)", (1, 1_000_000)),
    Spec("language.default", "en-US", "language when a transcript has none and it cannot be detected",
         check=_lang),
    Spec("reflex.words_path", "", "word lists of the stop reflex (stop, lead, filler, hazard, alarm words per "
         "language); empty = the shipped config/reflex.yaml", check=_reflex_words),
    Spec("reflex.names", [], "the robot's names, said before a stop without a pause (\"rover stop\", \"小G停车\"); "
         "added to the word lists' names", check=_names),
    Spec("reflex.model_threshold", 0.0, "final transcripts that the understanding model reads as stop with at least "
         "this confidence (0.9 measured) fire the reflex too (warnings without a stop word), checked on a thread of "
         "their own; on a 2-core CPU it slows word-list stops said right after a request by ~1-3 ms; 0 = word "
         "lists only", (0.0, 1.0)),
    Spec("reflex.ngram_threshold", DEFAULT_THRESHOLD, "transcripts that the n-gram stop model "
         "(model_dir/reflex/stop_ngrams.npz, learnt from the spent blind stop lists) reads as stop with at least "
         "this probability fire the reflex too, on the callback thread (a fraction of a millisecond); 0 = off",
         (0.0, 1.0)),
    Spec("reflex.on_partial", True, "also fire the stop reflex on partial transcripts (earlier, may be spurious)"),
    Spec("reflex.cancel_pending", True, "a stop cancels the decode in flight and rejects requests received "
         "before it, so no motion intent is published after a stop"),
    Spec("confirm.timeout_s", 10.0, "a question asked before a requires_confirmation intent (call) waits this long "
         "for yes or no in its session; then it is cancelled", (0.5, 3600.0)),
    Spec("confirm.clarify_above", CLARIFY_ABOVE, "when the edge model declines with a schema command second at this "
         "probability or more (slots complete and in range) and no cloud answered, ask about that command instead "
         "(\"Turn the volume up?\"); 0 = decline as before (docs/model.md, session 26)", (0.0, 1.0)),
    Spec("confirm.words_path", "", "yes / no word lists of the confirmation; empty = the shipped config/confirm.yaml",
         read_only=True),
    Spec("session.max_turns", 2, "most earlier turns of a session passed as context (0 = none); past it the "
         "history restarts from its latest half, so the turns in between reuse the session's cached K/V",
         (0, 256)),
    Spec("session.max_sessions", 64, "sessions remembered (least recently used are forgotten)", (1, 100000)),
    Spec("session.ttl_s", 600.0, "a session idle longer than this is forgotten", (1.0, 86400.0)),
    Spec("watchdog.max_edge_tokens", 256, "prompt plus history tokens above this are deferred to the cloud at "
         "once", (1, 100000)),
    Spec("watchdog.deadline_ms", 400.0, "edge decode running longer is cancelled and deferred (measured from the "
         "start of the edge decode)", (1.0, 600000.0)),
    Spec("watchdog.min_confidence", 0.0, "defer when the intent confidence is below this (0 = never; only with "
         "cloud.enabled)", (0.0, 1.0)),
    Spec("onboard.model_dir", "", "an imported general chat model (globalgen import) that answers the open requests "
         "the edge declines when the cloud is disabled or fails; its answers never act (intent none); empty = off",
         read_only=True),
    Spec("onboard.deadline_ms", 3000.0, "the on-board model's reply is given up past this (the edge's decline is "
         "answered instead)", (10.0, 600000.0)),
    Spec("onboard.max_new_tokens", 48, "most tokens of an on-board reply", (1, 512)),
    Spec("onboard.languages", ["en"], "language tags (prefixes) the on-board model answers (SmolLM2: English only)",
         check=_names),
    Spec("cloud.enabled", False, "use the OpenAI-compatible endpoint for deferred requests (else FALLBACK); "
         "read-only, like the URL and the key variable, so no participant of the DDS domain can redirect the key",
         read_only=True),
    Spec("cloud.base_url", "http://127.0.0.1:8000/v1", "OpenAI-compatible base URL (…/v1)", check=_url,
         read_only=True),
    Spec("cloud.model", "default", "model name sent to the endpoint"),
    Spec("cloud.api_key_env", "GLOBALGEN_CLOUD_API_KEY", "NAME of the environment variable holding the API key "
         "(the key itself never appears in parameters or logs); empty = no key", check=_env, read_only=True),
    Spec("cloud.timeout_s", 5.0, "bound on connecting and on each read of one attempt", (0.05, 300.0)),
    Spec("cloud.deadline_s", 8.0, "bound on one whole cloud request: connect, send, every byte of the answer and "
         "the retries (a server trickling its answer is cut off here)", (0.1, 600.0)),
    Spec("cloud.retries", 1, "extra attempts after a transient failure (timeout, refused, 429, 5xx)", (0, 10)),
    Spec("cloud.backoff_s", 0.2, "wait before retry i is backoff_s * 2^i", (0.0, 60.0)),
    Spec("cloud.max_tokens", 256, "max_tokens sent to the endpoint", (16, 8192)),
    Spec("cloud.json_mode", True, 'send response_format={"type": "json_object"} (turn off for servers that '
         "reject it)"),
    Spec("cloud.breaker_failures", 3, "consecutive failed requests that open the circuit", (1, 1000)),
    Spec("cloud.breaker_reset_s", 30.0, "an open circuit lets one probe through after this", (0.1, 86400.0)),
    Spec("cloud.max_pending", 8, "deferred requests waiting for the cloud; beyond this they get FALLBACK at once",
         (1, 10000)),
    Spec("cloud.concurrency", 2, "cloud requests in flight at once (the edge model keeps serving meanwhile)",
         (1, 64), read_only=True),
    Spec("diagnostics.period_s", 1.0, "period of /diagnostics messages", (0.05, 3600.0), read_only=True),
    Spec("diagnostics.window", 500, "final responses the latency percentiles are computed over", (10, 100000),
         read_only=True),
    Spec("cache.windows", [64, 128, 256], "context window sizes in tokens: each request gets the smallest that "
         "fits its prompt and expected reply; the hot buffer holds the largest", read_only=True, check=_windows),
    Spec("cache.warm_bytes", 16 << 20, "RAM budget of the warm tier (K/V of recent sessions and shared prefixes)",
         (0, 1 << 40), read_only=True),
    Spec("cache.warm_format", "int8", "warm tier storage: int8 (KIVI-style, ~3.5x smaller) or fp32 (exact)",
         read_only=True, check=_one_of("int8", "fp32")),
    Spec("cache.tail_format", "fp32", "storage of each saved prompt's partial last block, its most recent tokens "
         "(fp32: KIVI's full-precision residual; int8: like the rest)", read_only=True,
         check=_one_of("int8", "fp32")),
    Spec("cache.block_size", 16, "tokens per cache block (prefix-hash granularity and int8 K-scale group)", (4, 256),
         read_only=True),
    Spec("cache.cold_dir", "", "directory of the on-disk tier that survives a restart (checksummed); empty = off",
         read_only=True),
    Spec("cache.cold_bytes", 64 << 20, "disk budget of the cold tier", (0, 1 << 40), read_only=True),
    Spec("cache.max_sessions", 256, "sessions whose K/V the cache remembers (least recently used go first)",
         (1, 1000000), read_only=True),
    Spec("cache.expected_reply", 48, "tokens reserved for the reply when choosing a window", (1, 4096),
         read_only=True),
    Spec("cache.recent_turns", 2, "earlier turns always kept when a long history is compacted", (0, 64),
         read_only=True),
    Spec("cache.compact_fill", 0.75, "a compacted history fills at most this share of the largest window",
         (0.1, 1.0), read_only=True),
    Spec("cache.reuse", True, "reuse cached K/V of prefixes and sessions (false: recompute every prompt)",
         read_only=True),
    Spec("qos.depth", 1000, "history depth of transcripts, final responses and intents (reliable)", (1, 100000),
         read_only=True),
    Spec("qos.partial_depth", 50, "history depth of partial transcripts (their own content-filtered subscription, "
         "so they never evict finals)", (1, 100000), read_only=True),
    Spec("qos.stream_depth", 20, "history depth of globalgen/response_stream", (1, 10000), read_only=True),
]
BY_NAME = {spec.name: spec for spec in SPECS}


def descriptor(spec: Spec) -> ParameterDescriptor:
    """Return the ParameterDescriptor of `spec` (description, range, read-only flag)."""
    desc = ParameterDescriptor(description=spec.description, read_only=spec.read_only)
    if spec.range is not None and isinstance(spec.default, int) and not isinstance(spec.default, bool):
        desc.integer_range = [IntegerRange(from_value=int(spec.range[0]), to_value=int(spec.range[1]), step=1)]
    elif spec.range is not None:
        desc.floating_point_range = [FloatingPointRange(from_value=float(spec.range[0]),
                                                        to_value=float(spec.range[1]), step=0.0)]
    if spec.range is not None:
        desc.additional_constraints = f"{spec.range[0]} <= value <= {spec.range[1]}"
    return desc


def validate(params: list[Parameter]) -> SetParametersResult:
    """Check values beyond type and range (allowed names, URLs, phrase lists); say why when rejecting."""
    reasons = []
    for param in params:
        spec = BY_NAME.get(param.name)
        if spec is not None and spec.check is not None:
            reason = spec.check(param.value)
            if reason:
                reasons.append(f"{param.name} {reason}")
    return SetParametersResult(successful=not reasons, reason="; ".join(reasons))


def declare(node: Node) -> dict[str, Any]:
    """Declare all parameters (validation callback first, so the params file is checked too); return values."""
    node.add_on_set_parameters_callback(validate)
    values = {}
    for spec in SPECS:
        if spec.default == []:  # an empty list has no type of its own: a list of strings, unset until given
            node.declare_parameter(spec.name, Parameter.Type.STRING_ARRAY, descriptor(spec))
        else:
            node.declare_parameter(spec.name, spec.default, descriptor(spec))
        try:
            values[spec.name] = node.get_parameter(spec.name).value
        except ParameterUninitializedException:
            values[spec.name] = list(spec.default)
    return values
