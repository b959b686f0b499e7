"""Run deferred requests against the cloud on a few threads of their own, so the edge model keeps serving."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait

from globalgen_ros.ros.worker import Job


class CloudPool:
    """A bounded pool: at most `max_pending` jobs waiting or running; `submit` says no beyond that."""

    def __init__(self, concurrency: int):
        self._executor = ThreadPoolExecutor(concurrency, thread_name_prefix="globalgen-cloud")
        self._jobs: dict[Future, Job] = {}
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        """Return the jobs waiting for or talking to the cloud."""
        with self._lock:
            return len(self._jobs)

    def submit(self, job: Job, run: Callable[[], None], max_pending: int) -> bool:
        """Run `run()` on the pool for `job`; return False (and run nothing) if `max_pending` are pending."""
        with self._lock:
            if len(self._jobs) >= max_pending:
                return False
            future = self._executor.submit(run)
            self._jobs[future] = job
        future.add_done_callback(self._done)
        return True

    def _done(self, future: Future) -> None:
        with self._lock:
            self._jobs.pop(future, None)

    def stop(self, reject: Callable[[Job], None], wait_s: float = 2.0) -> None:
        """Reject the jobs not started yet; give the ones talking to the cloud `wait_s` to finish, then reject
        them too (Job.claim drops their late answer), so stopping returns within a bound."""
        with self._lock:
            jobs = list(self._jobs.items())
        # cancel() runs the done-callback, which takes the lock: never call it while holding the lock
        running = [(future, job) for future, job in jobs if not future.cancel()]
        for future, job in jobs:
            if future.cancelled():
                reject(job)
        self._executor.shutdown(wait=False, cancel_futures=True)
        wait([future for future, _ in running], timeout=wait_s)
        for future, job in running:
            if not future.done():
                reject(job)
