"""Run deferred requests against the cloud on a few threads of their own, so the edge model keeps serving.

The threads are daemon threads: a request stuck on a hung cloud must not keep the process alive after
`stop()` has answered it (concurrent.futures joins its threads at exit, for as long as a socket read lasts).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

from globalgen_ros.serving.worker import Job


class CloudPool:
    """A bounded pool: at most `max_pending` jobs waiting or running; `submit` says no beyond that."""

    def __init__(self, concurrency: int):
        self._queue: queue.SimpleQueue[tuple[Job, Callable[[], None]] | None] = queue.SimpleQueue()
        self._pending: set[int] = set()   # ids of the jobs waiting or running
        self._running: dict[int, Job] = {}
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._stopped = False
        self._threads = [threading.Thread(target=self._run, name=f"globalgen-cloud-{i}", daemon=True)
                         for i in range(concurrency)]
        for thread in self._threads:
            thread.start()

    @property
    def pending(self) -> int:
        """Return the jobs waiting for or talking to the cloud."""
        with self._lock:
            return len(self._pending)

    def submit(self, job: Job, run: Callable[[], None], max_pending: int) -> bool:
        """Run `run()` on the pool for `job`; return False (and run nothing) if `max_pending` are pending."""
        with self._lock:
            if self._stopped or len(self._pending) >= max_pending:
                return False
            self._pending.add(id(job))
        self._queue.put((job, run))
        return True

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            job, run = item
            with self._lock:
                if self._stopped:  # stop() has answered it already
                    continue
                self._running[id(job)] = job
            try:
                run()  # never raises: it answers the job itself
            finally:
                with self._lock:
                    self._running.pop(id(job), None)
                    self._pending.discard(id(job))
                    self._idle.notify_all()

    def stop(self, reject: Callable[[Job], None], wait_s: float = 2.0) -> None:
        """Reject the jobs not started yet; give the ones talking to the cloud `wait_s` to finish, then reject
        them too (Job.claim drops their late answer), so stopping returns within a bound."""
        with self._lock:
            self._stopped = True
        waiting = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                waiting.append(item[0])
        for job in waiting:
            reject(job)
        end = time.monotonic() + wait_s
        with self._lock:
            while self._running and time.monotonic() < end:
                self._idle.wait(end - time.monotonic())
            late = list(self._running.values())
        for job in late:
            reject(job)
        for _ in self._threads:
            self._queue.put(None)
