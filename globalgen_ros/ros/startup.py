"""Start-up of globalgen_node: clear parameter errors, model loading and warm-up, self-activation."""

from __future__ import annotations

import os
import time

from rclpy.exceptions import ParameterException
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn

from globalgen_ros.ros.params import BY_NAME
from globalgen_ros.watchdog.cloud import CloudConfig, CloudError, api_key
from globalgen_ros.watchdog.redact import safe_url
from globalgen_ros.watchdog.supervisor import WatchdogConfig

PARAMETER_ERRORS = (ParameterException,)
WARMUP_TEXTS = ("你好", "hello")


class ConfigureError(RuntimeError):
    """The node cannot be configured (model, schema or parameters); the message says what to fix."""


def describe_parameter_error(exc: ParameterException) -> str:
    """Return a one-paragraph explanation of a parameter rejected at start."""
    message, _, name = str(exc).rpartition(": ")  # ParameterException appends ": <parameter name>"
    hint = ""
    if "expecting type 'DOUBLE'" in message and "type 'INTEGER'" in message:
        hint = " (write a decimal point, e.g. 5.0 instead of 5)"
    spec = BY_NAME.get(name)
    if spec is not None:
        allowed = f"; allowed: {spec.range[0]} <= value <= {spec.range[1]}" if spec.range else ""
        kind = {bool: "bool", int: "integer", float: "double", str: "string", list: "string array"}
        hint += f". {name}: {spec.description} (type {kind[type(spec.default)]}{allowed})"
    return (f"globalgen_node: invalid parameter '{name}': {message}{hint}. Fix it in the params file or the "
            "-p override; docs/node.md lists every parameter with its type and range.")


def load_assistant(p: dict):
    """Load the schema and the model and warm them up; return (schema, assistant, warm-up ms)."""
    from globalgen_ros.assistant import Assistant, InputError  # heavy imports only when configuring
    from globalgen_ros.runtime.artifacts import ModelArtifactError
    from globalgen_ros.schema import SchemaError

    try:
        cache = {name[len("cache."):]: value for name, value in p.items() if name.startswith("cache.")}
        assistant = Assistant(p["model_dir"] or None, schema_path=p["schema_path"] or None,
                              strategy=p["strategy"], threads=p["threads"], cache=cache,
                              understanding=p["understanding"])
        schema = assistant.schema  # loaded once, by the assistant
        start = time.perf_counter()
        for text in WARMUP_TEXTS:  # first ORT runs allocate and pick kernels: keep that out of user latency
            assistant.respond(text, max_new_tokens=8)
        warm_ms = (time.perf_counter() - start) * 1000.0
    except (ModelArtifactError, SchemaError, InputError, OSError, ValueError) as exc:
        raise ConfigureError(f"{exc.__class__.__name__}: {exc}") from exc
    return schema, assistant, warm_ms


def load_onboard(p: dict):
    """Load the on-board general model of onboard.model_dir (a ChatAssistant), or return None when it is empty."""
    if not p["onboard.model_dir"]:
        return None
    from globalgen_ros.importer.assistant import ChatAssistant
    from globalgen_ros.runtime.artifacts import ModelArtifactError

    try:
        return ChatAssistant(p["onboard.model_dir"], strategy="parallel", threads=p["threads"],
                             schema_path=p["schema_path"] or None)
    except (ModelArtifactError, OSError, ValueError, KeyError) as exc:
        raise ConfigureError(f"onboard.model_dir: {exc.__class__.__name__}: {exc} (an imported chat model is "
                             f"needed: globalgen import ... --out DIR)") from exc


def watchdog_config(p: dict, assistant) -> WatchdogConfig:
    """Return the watchdog settings: the parameters, bounded by what the edge model can hold."""
    from globalgen_ros.assistant import MAX_TEXT_CHARS
    window = assistant.model.dims.max_len - p["max_new_tokens"]  # the reply must fit the context too
    return WatchdogConfig(max_edge_tokens=min(p["watchdog.max_edge_tokens"], window),
                          deadline_ms=p["watchdog.deadline_ms"], min_confidence=p["watchdog.min_confidence"],
                          cloud_enabled=p["cloud.enabled"], max_edge_chars=MAX_TEXT_CHARS,
                          onboard_deadline_ms=p["onboard.deadline_ms"],
                          onboard_max_new_tokens=p["onboard.max_new_tokens"],
                          onboard_languages=tuple(p["onboard.languages"] or ()))


def cloud_config(p: dict) -> CloudConfig:
    """Return the cloud client settings from the parameters."""
    return CloudConfig(base_url=p["cloud.base_url"], model=p["cloud.model"], api_key_env=p["cloud.api_key_env"],
                       timeout_s=p["cloud.timeout_s"], deadline_s=p["cloud.deadline_s"], retries=p["cloud.retries"],
                       backoff_s=p["cloud.backoff_s"],
                       max_tokens=p["cloud.max_tokens"], json_mode=p["cloud.json_mode"])


def describe_cloud(p: dict) -> str:
    """Describe the cloud settings for the log, saying whether the key is set, never what it is."""
    if not p["cloud.enabled"]:
        return "cloud disabled: deferred requests get FALLBACK"
    env = p["cloud.api_key_env"]
    key = f"API key from ${env}: {'set' if os.environ.get(env, '').strip() else 'not set'}" if env else "no API key"
    return f"cloud {safe_url(p['cloud.base_url'])} model {p['cloud.model']} ({key})"


def check_cloud_key(p: dict) -> str:
    """Return the cloud API key (stripped) when the cloud is enabled; ConfigureError naming the variable if it
    cannot be sent."""
    if not p["cloud.enabled"]:
        return ""
    try:
        return api_key(p["cloud.api_key_env"])
    except CloudError as exc:
        raise ConfigureError(str(exc)) from None


def autostart(node: LifecycleNode, interrupted=lambda: False) -> bool:
    """Configure and activate `node`; log and return False if either transition fails. A Ctrl-C while the model
    loads (`interrupted()` true after configuring) leaves the node inactive: nothing is subscribed or started."""
    for name, trigger in (("configure", node.trigger_configure), ("activate", node.trigger_activate)):
        if name == "activate" and interrupted():
            return True
        if trigger() != TransitionCallbackReturn.SUCCESS:
            node.get_logger().fatal(f"autostart: {name} failed (see the error above); exiting")
            return False
    return True
