"""The real chat-completions server of the cloud tests (it lives in the package: the soak benchmark uses it too)."""

from globalgen_ros.bench.chat_server import ChatServer, closed_port_url

__all__ = ["ChatServer", "closed_port_url"]
