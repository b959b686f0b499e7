"""Circuit breaker for the cloud endpoint: stop calling a dead service, probe it again later."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

CLOSED = "closed"        # calls go through
OPEN = "open"            # calls are refused until reset_s has passed
HALF_OPEN = "half_open"  # one probe call is let through; its result closes or reopens the circuit


class CircuitBreaker:
    """Open after `failures` consecutive failures; let one probe through after `reset_s`."""

    def __init__(self, failures: int = 3, reset_s: float = 30.0, clock: Callable[[], float] = time.monotonic):
        if failures < 1:
            raise ValueError(f"failures must be >= 1, got {failures}")
        if reset_s <= 0:
            raise ValueError(f"reset_s must be > 0, got {reset_s}")
        self.failures = failures
        self.reset_s = reset_s
        self._clock = clock
        self._lock = threading.Lock()
        self._consecutive = 0
        self._opened_at: float | None = None
        self._probing = False
        self.trips = 0  # how often the circuit opened

    @property
    def state(self) -> str:
        """Return closed, open or half_open."""
        with self._lock:
            return self._state()

    def _state(self) -> str:
        if self._opened_at is None:
            return CLOSED
        if self._clock() - self._opened_at >= self.reset_s:
            return HALF_OPEN
        return OPEN

    def allow(self) -> bool:
        """Return True if a call may be made now (in half_open: only one probe at a time)."""
        with self._lock:
            state = self._state()
            if state == CLOSED:
                return True
            if state == HALF_OPEN and not self._probing:
                self._probing = True
                return True
            return False

    def retry_in_s(self) -> float:
        """Return the seconds until the next probe is allowed (0 when closed)."""
        with self._lock:
            if self._opened_at is None:
                return 0.0
            return max(0.0, self.reset_s - (self._clock() - self._opened_at))

    def record_success(self) -> None:
        """Close the circuit."""
        with self._lock:
            self._consecutive = 0
            self._opened_at = None
            self._probing = False

    def record_failure(self) -> None:
        """Count a failure; open the circuit when the limit is reached or a probe failed."""
        with self._lock:
            self._consecutive += 1
            if self._probing or self._consecutive >= self.failures:
                if self._opened_at is None or self._probing:
                    self.trips += 1
                self._opened_at = self._clock()
            self._probing = False

    def reset(self) -> None:
        """Forget past failures (e.g. the endpoint changed)."""
        self.record_success()

    def configure(self, failures: int, reset_s: float) -> None:
        """Change the limits (live parameter update); the current state is kept."""
        with self._lock:
            self.failures = failures
            self.reset_s = reset_s
