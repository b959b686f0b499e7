"""Per-session conversation history: bounded turns, least-recently-used sessions, idle expiry."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from globalgen_ros.watchdog.supervisor import Turn


class Sessions:
    """Keep at most `max_turns` turns of up to `max_sessions` sessions; forget sessions idle past `ttl_s`.

    A history that would grow past `max_turns` restarts from its most recent half (rounded up) instead of
    sliding by one turn: a slid history is a new prompt prefix (every token after <|bos|> moves), so the
    cached K/V of the session could not be reused and the whole history would be prefilled on every turn;
    with the restart, the turns in between extend the previous prompt and reuse its K/V.
    """

    def __init__(self, max_turns: int, max_sessions: int, ttl_s: float, clock: Callable[[], float] = time.monotonic):
        self.max_turns, self.max_sessions, self.ttl_s = max_turns, max_sessions, ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, tuple[float, deque[Turn]]] = OrderedDict()

    def history(self, session_id: str) -> list[Turn]:
        """Return the remembered turns of `session_id` (empty for no id, an unknown or expired session)."""
        if not session_id or self.max_turns == 0:
            return []
        with self._lock:
            self._expire()
            entry = self._sessions.get(session_id)
            return list(entry[1])[-self.max_turns:] if entry else []  # max_turns may have been lowered live

    def add(self, session_id: str, turn: Turn) -> None:
        """Append a finished turn to `session_id`."""
        if not session_id or self.max_turns == 0:
            return
        with self._lock:
            _, turns = self._sessions.pop(session_id, (0.0, deque()))
            turns.append(turn)
            if len(turns) > self.max_turns:
                keep = (self.max_turns + 1) // 2
                while len(turns) > keep:
                    turns.popleft()
            self._sessions[session_id] = (self._clock(), turns)
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def _expire(self) -> None:
        cutoff = self._clock() - self.ttl_s
        while self._sessions:
            session_id, (last, _) = next(iter(self._sessions.items()))
            if last >= cutoff:
                break
            del self._sessions[session_id]
