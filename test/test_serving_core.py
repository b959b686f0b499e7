"""The ROS-free serving core driven directly: the model worker and the cloud pool under faults (no ROS)."""

from __future__ import annotations

import threading
import time

from globalgen_ros.serving.cloud_pool import CloudPool
from globalgen_ros.serving.worker import Job, Worker


def job(i: int) -> Job:
    return Job(f"u{i}", "", "text", "en-US", time.monotonic(), 0)


def test_pool_stop_answers_every_job_within_its_bound_even_on_a_hung_cloud():
    answers: dict[str, list[str]] = {}
    lock = threading.Lock()

    def finish(j: Job, how: str) -> None:
        if j.claim():
            with lock:
                answers.setdefault(j.utterance_id, []).append(how)

    hang = threading.Event()
    pool = CloudPool(concurrency=2)
    jobs = [job(i) for i in range(7)]
    for j in jobs:
        assert pool.submit(j, lambda j=j: (hang.wait(30.0), finish(j, "cloud")), max_pending=8)
    assert not pool.submit(job(99), lambda: None, max_pending=7), "beyond max_pending: refused at once"
    time.sleep(0.2)  # two are talking to the hung cloud, five wait
    start = time.monotonic()
    pool.stop(lambda j: finish(j, "rejected"), wait_s=0.5)
    assert time.monotonic() - start < 1.5
    assert sorted(answers) == sorted(j.utterance_id for j in jobs)
    assert all(v == ["rejected"] for v in answers.values())
    hang.set()  # the hung calls end later: their answers are dropped (claimed already)
    time.sleep(0.1)
    assert all(v == ["rejected"] for v in answers.values())
    assert not pool.submit(job(100), lambda: None, max_pending=8), "a stopped pool takes nothing"


def test_worker_stop_answers_queued_jobs_and_a_job_that_outlives_the_join():
    answered: list[tuple[str, str]] = []
    release = threading.Event()

    def process(j: Job) -> None:
        release.wait(30.0)  # a decode that ignores cancellation
        if j.claim():
            answered.append((j.utterance_id, "answered"))

    def reject(j: Job) -> None:
        if j.claim():
            answered.append((j.utterance_id, "rejected"))

    worker = Worker(process, max_size=4)
    worker.start()
    jobs = [job(i) for i in range(5)]
    accepted = [worker.submit(j) for j in jobs]
    assert accepted.count(False) <= 1  # one is in flight, four wait: the queue holds four
    time.sleep(0.1)
    worker.stop(reject, timeout_s=0.3)
    release.set()
    time.sleep(0.1)
    ids = [u for u, _ in answered]
    assert sorted(ids) == sorted(j.utterance_id for j, ok in zip(jobs, accepted, strict=True) if ok)
    assert len(ids) == len(set(ids)) and {how for _, how in answered} == {"rejected"}


def test_a_stop_supersedes_what_was_received_before_it():
    from globalgen_ros.serving.supersession import StopEpochs

    epochs = StopEpochs()
    before = epochs.current
    assert not epochs.superseded(before)
    with epochs.lock:
        epochs.open()
    after = epochs.current
    assert epochs.superseded(before) and not epochs.superseded(after)
    assert not epochs.superseded(before, enabled=False)  # reflex.cancel_pending false: nothing is superseded


def test_an_answer_with_a_guessed_slot_is_asked_first_whatever_its_intent():
    from globalgen_ros.schema import load_schema
    from globalgen_ros.serving.confirm import Confirmations
    from globalgen_ros.watchdog.supervisor import EDGE, OK, Outcome

    confirmations = Confirmations(load_schema(), words={})
    sure = Outcome(OK, EDGE, "Playing Mozart.", "en-US", intent="play_music", slots={"query": "Mozart"},
                   confidence=0.99)
    assert not confirmations.needs_asking(sure)
    from dataclasses import replace

    guessed = replace(sure, guessed=("query",))
    assert confirmations.needs_asking(guessed)
    assert confirmations.ask("s", guessed).text == "Play Mozart?"
