"""Run the model on one worker thread fed by a bounded queue; refuse work explicitly when it is full."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Job:
    utterance_id: str
    session_id: str
    text: str
    language: str
    received: float          # time.monotonic() at receipt of the final transcript
    epoch: int               # stop epoch at receipt: a later stop supersedes this job
    stream_seq: int = 0      # partial responses published so far
    done: bool = False       # the final response was published
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def claim(self) -> bool:
        """Return True once: the caller publishes the one final response of this job."""
        with self.lock:
            if self.done:
                return False
            self.done = True
            return True


class Worker:
    """One thread takes jobs from a bounded queue and calls `process`; `drain` answers what is left."""

    def __init__(self, process: Callable[[Job], None], max_size: int, name: str = "globalgen-model"):
        self._process = process
        self._queue: queue.Queue[Job | None] = queue.Queue(maxsize=max_size)
        self.max_size = max_size
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.busy: Job | None = None

    def start(self) -> None:
        """Start the worker thread."""
        self._thread.start()

    def submit(self, job: Job) -> bool:
        """Queue `job`; return False at once if the queue is full (the caller answers REJECTED)."""
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            return False
        return True

    @property
    def depth(self) -> int:
        """Return the jobs waiting plus the one being processed."""
        return self._queue.qsize() + (1 if self.busy is not None else 0)

    def stop(self, reject: Callable[[Job], None], timeout_s: float = 10.0) -> None:
        """Answer every queued job with `reject`, let the job in flight finish, end the thread."""
        for job in self.drain():
            reject(job)
        if self._thread.is_alive():
            self._queue.put(None, timeout=timeout_s)  # wake the thread; it exits after the job in flight
            self._thread.join(timeout_s)
        busy = self.busy
        if self._thread.is_alive() and busy is not None:  # outlived the join: answer it now (claim drops the
            reject(busy)                                    # late answer, which would hit a disabled publisher)
        for job in self.drain():  # submitted by a callback that was still running
            reject(job)

    def drain(self) -> list[Job]:
        """Remove and return the queued jobs (not the one in flight)."""
        jobs = []
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                return jobs
            if job is not None:
                jobs.append(job)

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            self.busy = job
            try:
                self._process(job)  # never raises: _process publishes ERROR itself
            finally:
                self.busy = None
