"""Conversation state per session_id: the token history (bounded by the largest window) and its turns.

The KV of a session is not stored here: it lives in the block tiers under the chained keys of the history's
tokens, so the next utterance of the session is served by prefix reuse, and two clients that send the same
history share one copy. A session only remembers which tokens it has said so far, where each turn starts,
each turn's value (for window compaction), a digest of the text history it stands for, and the key of its
partial last block (replaced on every turn).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Session:
    ids: np.ndarray  # (T,) int32: <|bos|> + turns, each ending with <|end|>
    turn_starts: np.ndarray  # (n_turns,) int32: index of each turn's <|user|> token
    turn_values: np.ndarray  # (n_turns,) float32: attention proxy of each turn (window.turn_values)
    digest: bytes = b""  # names the text history these ids stand for (context.history_digest)
    tail_key: bytes | None = None  # key of the partial block stored for this session

    @property
    def nbytes(self) -> int:
        return self.ids.nbytes + self.turn_starts.nbytes + self.turn_values.nbytes + len(self.digest)

    def turns(self) -> list[np.ndarray]:
        """Return the token ids of each turn."""
        bounds = list(self.turn_starts) + [len(self.ids)]
        return [self.ids[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


@dataclass
class SessionStore:
    """Keep at most max_sessions sessions; forget the least recently used one beyond that."""

    max_sessions: int = 256
    used_bytes: int = 0
    expired: int = 0
    _sessions: OrderedDict = field(default_factory=OrderedDict)

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, session_id: str) -> Session | None:
        session = self._sessions.get(session_id)
        if session is not None:
            self._sessions.move_to_end(session_id)
        return session

    def put(self, session_id: str, session: Session) -> list[Session]:
        """Store a session; return the sessions forgotten to make room (their tail blocks can go too)."""
        gone = []
        old = self._sessions.pop(session_id, None)
        if old is not None:
            self.used_bytes -= old.nbytes
        while len(self._sessions) >= self.max_sessions:
            _, dropped = self._sessions.popitem(last=False)
            self.used_bytes -= dropped.nbytes
            self.expired += 1
            gone.append(dropped)
        self._sessions[session_id] = session
        self.used_bytes += session.nbytes
        return gone

    def pop(self, session_id: str) -> Session | None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            self.used_bytes -= session.nbytes
        return session
