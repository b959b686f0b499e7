"""OpenAI-compatible chat-completions client (vLLM, Ollama, hosted APIs) with retries and a circuit breaker."""

from __future__ import annotations

import http.client
import json
import os
import time
import urllib.parse
from dataclasses import dataclass

from globalgen_ros.watchdog.breaker import CircuitBreaker
from globalgen_ros.watchdog.redact import safe_url

MAX_BODY_BYTES = 1 << 20  # a chat completion for one utterance is a few kB; refuse anything absurd


class CloudError(Exception):
    """The cloud could not give an answer; the message says why (never contains the API key)."""


@dataclass
class CloudConfig:
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "default"
    api_key_env: str = "GLOBALGEN_CLOUD_API_KEY"  # name of the environment variable, not the key
    timeout_s: float = 5.0       # bounds the connection and each read of one attempt
    deadline_s: float = 8.0      # bounds the whole call: connect, send, every byte of the answer, retries
    retries: int = 1             # extra attempts after a transient failure
    backoff_s: float = 0.2       # wait before retry i is backoff_s * 2**i
    max_tokens: int = 256
    json_mode: bool = True       # send response_format={"type": "json_object"}


def parse_base_url(base_url: str) -> urllib.parse.SplitResult:
    """Split and check a base URL such as http://127.0.0.1:8000/v1; raise ValueError with the reason."""
    url = urllib.parse.urlsplit(base_url)
    if url.scheme not in ("http", "https"):
        raise ValueError(f"must start with http:// or https://, got {base_url!r}")
    if not url.hostname:
        raise ValueError(f"has no host: {base_url!r}")
    if url.query or url.fragment:
        raise ValueError(f"must not have a query or fragment: {base_url!r}")
    return url


class _Transient(CloudError):
    """A failure worth retrying (connection refused, timeout, 429, 5xx)."""


def api_key(env_name: str) -> str:
    """Return the API key held by the environment variable `env_name` ("" if unset), surrounding whitespace
    stripped; raise CloudError naming the variable (never the value) if it cannot go into an HTTP header."""
    key = os.environ.get(env_name, "").strip() if env_name else ""
    if any(ch in key for ch in "\r\n\x00"):
        raise CloudError(f"the API key in ${env_name} contains a line break or NUL inside it: fix the variable "
                         "(its value is not shown)")
    try:
        key.encode("latin-1")
    except UnicodeEncodeError:
        raise CloudError(f"the API key in ${env_name} has characters outside Latin-1, which an HTTP header cannot "
                         "carry: fix the variable (its value is not shown)") from None
    return key


class CloudClient:
    """Send chat completions to `base_url` + /chat/completions; retry transient failures with backoff."""

    def __init__(self, config: CloudConfig, breaker: CircuitBreaker | None = None):
        self.config = config
        self.breaker = breaker or CircuitBreaker()
        self.calls = 0
        self.failures = 0

    def chat(self, messages: list[dict]) -> str:
        """Return the assistant message content for `messages` within cloud.deadline_s; raise CloudError if there
        is none. Every failed call, whatever went wrong, counts for the circuit breaker."""
        if not self.breaker.allow():
            raise CloudError(f"cloud circuit open after repeated failures; next try in "
                             f"{self.breaker.retry_in_s():.1f} s")
        self.calls += 1
        deadline = time.monotonic() + self.config.deadline_s
        try:
            content = self._attempts(messages, deadline)
        except BaseException:
            self.failures += 1
            self.breaker.record_failure()
            raise
        self.breaker.record_success()
        return content

    def _attempts(self, messages: list[dict], deadline: float) -> str:
        cfg = self.config
        body = {"model": cfg.model, "messages": messages, "temperature": 0, "max_tokens": cfg.max_tokens,
                "stream": False}
        if cfg.json_mode:
            body["response_format"] = {"type": "json_object"}
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        key = api_key(cfg.api_key_env)
        error: CloudError = CloudError("no attempt made")
        attempt = 0
        for attempt in range(cfg.retries + 1):
            if attempt:
                wait = cfg.backoff_s * 2 ** (attempt - 1)
                if time.monotonic() + wait >= deadline:
                    break
                time.sleep(wait)
            try:
                return _content(self._post(payload, key, deadline))
            except _Transient as exc:
                error = exc
            except CloudError as exc:
                error = exc
                break
            except Exception as exc:  # noqa: BLE001 - e.g. RecursionError from a deeply nested body
                error = CloudError(f"cloud answer could not be read: {exc.__class__.__name__}")
                break
        raise CloudError(f"{error} (after {attempt + 1} attempt(s))")

    def _post(self, payload: bytes, key: str, deadline: float) -> dict:
        """POST one request and return the decoded JSON body, all of it before `deadline` (monotonic)."""
        cfg = self.config
        url = parse_base_url(cfg.base_url)
        where = safe_url(f"{url.scheme}://{url.netloc}")
        path = url.path.rstrip("/") + "/chat/completions"
        conn_cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"

        late = CloudError(f"cloud did not answer in full within cloud.deadline_s={cfg.deadline_s:g} s")

        def left() -> float:
            remaining = deadline - time.monotonic()
            if remaining <= 0.001:
                raise late
            return min(cfg.timeout_s, remaining)

        conn = conn_cls(url.hostname, url.port, timeout=left())
        try:
            conn.request("POST", path, body=payload, headers=headers)
            sock = conn.sock  # kept: getresponse() hands it to the response when the server closes after it
            sock.settimeout(left())
            resp = conn.getresponse()
            raw = b""
            while len(raw) <= MAX_BODY_BYTES:  # a server trickling its body must still finish by the deadline
                sock.settimeout(left())
                chunk = resp.read1(65536)
                if not chunk:
                    break
                raw += chunk
        except TimeoutError as exc:
            if deadline - time.monotonic() <= 0.01:
                raise late from exc
            raise _Transient(f"cloud timed out after {cfg.timeout_s:g} s") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise _Transient(f"cloud unreachable at {where}: {exc.__class__.__name__}") from exc
        finally:
            conn.close()
        if resp.status == 429 or resp.status >= 500:
            raise _Transient(f"cloud answered HTTP {resp.status}")
        if resp.status != 200:  # the body is not shown: it may echo the request, headers included
            raise CloudError(f"cloud answered HTTP {resp.status} ({len(raw)} bytes of body, not shown)")
        if len(raw) > MAX_BODY_BYTES:
            raise CloudError(f"cloud response larger than {MAX_BODY_BYTES} bytes")
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise CloudError(f"cloud response is not JSON ({len(raw)} bytes)") from exc


def _content(body: dict) -> str:
    """Return choices[0].message.content of a chat-completions response."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise CloudError("cloud response has no choices[0].message.content") from exc
    if not isinstance(content, str) or not content.strip():
        raise CloudError("cloud response content is empty")
    return content
