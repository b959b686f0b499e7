"""A real OpenAI-compatible chat-completions HTTP server on 127.0.0.1 for the cloud tests and the soak benchmark.

It answers POST /v1/chat/completions the way vLLM or Ollama do; what the content says is set per test
(`server.reply`), and so is its misbehaviour (`server.mode`: ok, slow, garbage_body, http_500, flaky, trickle
(the body a byte at a time), nested (a body nested 100,000 deep), http_400_echo (a 400 echoing the headers)).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        srv = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with srv.lock:
            srv.requests.append({"path": self.path, "headers": dict(self.headers), "body": json.loads(body)})
            srv.served += 1
            n = srv.served
        if self.path != "/v1/chat/completions":
            return self._send(404, b'{"error": "not found"}')
        mode = srv.mode
        if mode == "slow":
            time.sleep(srv.delay_s)
        if mode == "http_500" or (mode == "flaky" and n % 2 == 1):
            return self._send(500, b'{"error": "internal"}')
        if mode == "garbage_body":
            return self._send(200, b"\x00\xffnot json at all")
        if mode == "nested":
            return self._send(200, b"[" * 100_000 + b"]" * 100_000)
        if mode == "http_400_echo":
            return self._send(400, json.dumps({"error": "bad request", "headers": dict(self.headers)}).encode())
        if mode == "trickle":
            return self._trickle(b'{"choices": [{"message": {"content": "' + b"x" * 200 + b'"}}]}')
        content = srv.reply if isinstance(srv.reply, str) else json.dumps(srv.reply, ensure_ascii=False)
        answer = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()),
                  "model": srv.requests[-1]["body"].get("model", ""),
                  "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": content}}],
                  "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}
        self._send(200, json.dumps(answer, ensure_ascii=False).encode("utf-8"))

    def _trickle(self, payload: bytes) -> None:
        try:
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            for i in range(len(payload)):
                self.wfile.write(payload[i:i + 1])
                self.wfile.flush()
                time.sleep(self.server.delay_s)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send(self, status: int, payload: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): that is what the slow tests want


class ChatServer(ThreadingHTTPServer):
    """Serve chat completions on 127.0.0.1:<free port> from a background thread."""

    daemon_threads = True

    def __init__(self, keep: int = 100_000):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.requests: deque[dict] = deque(maxlen=keep)  # the latest requests (a soak sends tens of thousands)
        self.served = 0
        self.mode = "ok"
        self.delay_s = 3.0
        self.reply: dict | str = {"intent": "none", "slots": {}, "reply": "Hello from the cloud."}
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()


def closed_port_url() -> str:
    """Return a base URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
