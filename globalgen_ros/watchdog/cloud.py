"""OpenAI-compatible chat-completions client (vLLM, Ollama, hosted APIs) with retries and a circuit breaker."""

from __future__ import annotations

import http.client
import json
import os
import time
import urllib.parse
from dataclasses import dataclass

from globalgen_ros.watchdog.breaker import CircuitBreaker

MAX_BODY_BYTES = 1 << 20  # a chat completion for one utterance is a few kB; refuse anything absurd


class CloudError(Exception):
    """The cloud could not give an answer; the message says why (never contains the API key)."""


@dataclass
class CloudConfig:
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "default"
    api_key_env: str = "GLOBALGEN_CLOUD_API_KEY"  # name of the environment variable, not the key
    timeout_s: float = 5.0       # bounds the connection and each read of one attempt
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


class CloudClient:
    """Send chat completions to `base_url` + /chat/completions; retry transient failures with backoff."""

    def __init__(self, config: CloudConfig, breaker: CircuitBreaker | None = None):
        self.config = config
        self.breaker = breaker or CircuitBreaker()
        self.calls = 0
        self.failures = 0

    def chat(self, messages: list[dict]) -> str:
        """Return the assistant message content for `messages`; raise CloudError if there is none."""
        if not self.breaker.allow():
            raise CloudError(f"cloud circuit open after repeated failures; next try in "
                             f"{self.breaker.retry_in_s():.1f} s")
        self.calls += 1
        cfg = self.config
        body = {"model": cfg.model, "messages": messages, "temperature": 0, "max_tokens": cfg.max_tokens,
                "stream": False}
        if cfg.json_mode:
            body["response_format"] = {"type": "json_object"}
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        error: CloudError = CloudError("no attempt made")
        for attempt in range(cfg.retries + 1):
            if attempt:
                time.sleep(cfg.backoff_s * 2 ** (attempt - 1))
            try:
                content = _content(self._post(payload))
            except _Transient as exc:
                error = exc
                continue
            except CloudError as exc:
                error = exc
                break
            self.breaker.record_success()
            return content
        self.failures += 1
        self.breaker.record_failure()
        raise CloudError(f"{error} (after {attempt + 1} attempt(s))")

    def _post(self, payload: bytes) -> dict:
        """POST one request and return the decoded JSON body."""
        cfg = self.config
        url = parse_base_url(cfg.base_url)
        path = url.path.rstrip("/") + "/chat/completions"
        conn_cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(cfg.api_key_env, "") if cfg.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        conn = conn_cls(url.hostname, url.port, timeout=cfg.timeout_s)
        try:
            conn.request("POST", path, body=payload, headers=headers)
            resp = conn.getresponse()
            raw = resp.read(MAX_BODY_BYTES + 1)
        except TimeoutError as exc:
            raise _Transient(f"cloud timed out after {cfg.timeout_s:g} s") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise _Transient(f"cloud unreachable at {url.scheme}://{url.netloc}: {exc.__class__.__name__}: "
                             f"{exc}") from exc
        finally:
            conn.close()
        if resp.status == 429 or resp.status >= 500:
            raise _Transient(f"cloud answered HTTP {resp.status}")
        if resp.status != 200:
            raise CloudError(f"cloud answered HTTP {resp.status}: {raw[:200].decode('utf-8', 'replace')}")
        if len(raw) > MAX_BODY_BYTES:
            raise CloudError(f"cloud response larger than {MAX_BODY_BYTES} bytes")
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise CloudError(f"cloud response is not JSON: {raw[:80]!r}") from exc


def _content(body: dict) -> str:
    """Return choices[0].message.content of a chat-completions response."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise CloudError("cloud response has no choices[0].message.content") from exc
    if not isinstance(content, str) or not content.strip():
        raise CloudError("cloud response content is empty")
    return content
