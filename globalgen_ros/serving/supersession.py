"""Stop supersession: a stop opens a new epoch, and work received in an earlier one must not act after it.

Every job carries the epoch it was received in. The responder decides and publishes under `lock`, the same lock a
stop takes to open its epoch and publish `stop`, so no motion intent can be published between the two.
"""

from __future__ import annotations

import threading


class StopEpochs:
    """The current stop epoch, and whether a job received in an earlier one is superseded."""

    def __init__(self):
        self.lock = threading.Lock()  # held while a stop opens an epoch and while an answer is published
        self._epoch = 0

    @property
    def current(self) -> int:
        """The epoch a job received now belongs to."""
        return self._epoch

    def open(self) -> int:
        """Start a new epoch (a stop was heard); call with `lock` held; return it."""
        self._epoch += 1
        return self._epoch

    def superseded(self, epoch: int, enabled: bool = True) -> bool:
        """Return True if a job of `epoch` came before the latest stop (and supersession is enabled)."""
        return enabled and epoch != self._epoch
