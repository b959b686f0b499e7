"""Recognize queued audio on a worker thread so the audio callback never blocks.

The queue is bounded by seconds of audio (`max_backlog_s`): when recognition falls that far behind (a CPU too
slow for the model), new live chunks are dropped and counted (`dropped_chunks`) instead of growing memory
without end; an end-of-stream marker is never dropped, so the utterance still finishes.
"""

from __future__ import annotations

import itertools
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from globalgen_ros.asr.vosk_stream import AsrResult, StreamRecognizer


@dataclass(frozen=True)
class AudioItem:
    pcm: bytes               # int16 little-endian mono samples
    sample_rate: int
    session_id: str = ""
    end_of_stream: bool = False
    start_ns: int = 0        # capture time of the first sample (unix ns); 0 = unknown


@dataclass(frozen=True)
class Recognized:
    result: AsrResult
    session_id: str
    utterance_id: str
    stamp_ns: int            # when the audio of the result ended


class RecognitionWorker:
    """Own the vosk recognizer; consume AudioItems in order and emit partial and final results."""

    def __init__(self, model, emit: Callable[[Recognized], None], on_error: Callable[[str], None], *,
                 grammar: list[str] = (), partials: bool = True, id_prefix: str = "asr",
                 max_backlog_s: float = 60.0):
        self._model, self._emit, self._on_error = model, emit, on_error
        self.grammar, self.partials = list(grammar), partials   # read when the next stream starts
        self._prefix = f"{id_prefix}-{secrets.token_hex(3)}"    # unique across restarts of the node
        self._counter = itertools.count(1)
        self._queue: queue.SimpleQueue[AudioItem | None] = queue.SimpleQueue()  # bounded by submit()
        self._queued_samples = 0
        self.max_backlog_s = max_backlog_s
        self.dropped_chunks = 0
        self._lock = threading.Lock()
        self._rec: StreamRecognizer | None = None
        self._session = ""
        self._start_ns = 0
        self._utterance: str | None = None
        self._thread = threading.Thread(target=self._run, name="asr_worker", daemon=True)
        self._thread.start()

    def submit(self, item: AudioItem, *, bounded: bool = True) -> bool:
        """Queue audio for recognition; never blocks. Return False if the chunk was dropped because more than
        max_backlog_s of audio already waits (its end-of-stream marker, if any, is still queued)."""
        samples = len(item.pcm) // 2
        with self._lock:
            full = bounded and (self._queued_samples + samples) / max(item.sample_rate, 1) > self.max_backlog_s
            if full:
                self.dropped_chunks += 1
                if not item.end_of_stream:
                    return False
                item = AudioItem(b"", item.sample_rate, item.session_id, True, item.start_ns)
                samples = 0
            self._queued_samples += samples
        self._queue.put(item)
        return not full

    def backlog_s(self, sample_rate: int = 16000) -> float:
        """Return roughly how many seconds of audio wait for recognition."""
        return self._queued_samples / sample_rate

    def stop(self, timeout: float = 10.0) -> None:
        """Recognize what is queued, flush the open stream and stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            with self._lock:
                self._queued_samples -= len(item.pcm) // 2
            try:
                self._process(item)
            except Exception as exc:  # noqa: BLE001 - keep recognizing later audio, report this chunk
                self._rec = None
                self._on_error(f"recognition failed, chunk skipped: {exc}")
        try:
            self._finish_stream()
        except Exception as exc:  # noqa: BLE001 - e.g. the publisher is gone during shutdown
            self._on_error(f"could not flush the last utterance: {exc}")

    def _process(self, item: AudioItem) -> None:
        rec = self._rec
        if rec is not None and (rec.sample_rate != item.sample_rate or self._session != item.session_id):
            self._finish_stream()  # a new stream began without end_of_stream on the old one
        if self._rec is None:
            self._rec = StreamRecognizer(self._model, item.sample_rate, self.grammar, self.partials)
            self._session, self._start_ns = item.session_id, item.start_ns or time.time_ns()
        self._publish(self._rec.accept(item.pcm))
        if item.end_of_stream:
            self._finish_stream()

    def _finish_stream(self) -> None:
        if self._rec is not None:
            rec, self._rec = self._rec, None
            self._publish(rec.finish())
        self._utterance = None

    def _publish(self, results: list[AsrResult]) -> None:
        for result in results:
            if self._utterance is None:
                self._utterance = f"{self._prefix}-{next(self._counter)}"
            stamp_ns = self._start_ns + int(result.end_s * 1e9)
            self._emit(Recognized(result, self._session, self._utterance, stamp_ns))
            if result.is_final:
                self._utterance = None
