"""The answering machinery of globalgen_node: queue, model worker, watchdog, cloud pool, publishers."""

from __future__ import annotations

import contextlib
import os
import time

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.duration import Duration
from rclpy.lifecycle import LifecycleNode

from globalgen_ros.assistant import InputError
from globalgen_ros.msg import ActionIntent, Response
from globalgen_ros.ros import answers, diagnostics, qos, startup
from globalgen_ros.serving.checks import check_answer
from globalgen_ros.serving.cloud_pool import CloudPool
from globalgen_ros.serving.confirm import Confirmations, load_words
from globalgen_ros.serving.reflex import StopReflex
from globalgen_ros.serving.sessions import Sessions
from globalgen_ros.serving.stop_model import ModelStop
from globalgen_ros.serving.supersession import StopEpochs
from globalgen_ros.serving.worker import Job, Utterance, Worker
from globalgen_ros.watchdog.breaker import CircuitBreaker
from globalgen_ros.watchdog.cloud import CloudClient
from globalgen_ros.watchdog.language import APOLOGY, BUSY, NOT_UNDERSTOOD, STOPPING, TOO_LONG, say
from globalgen_ros.watchdog.redact import Redactor, url_secrets
from globalgen_ros.watchdog.supervisor import (
    DEFERRED,
    EDGE,
    ERROR,
    NODE,
    OK,
    REFLEX,
    REJECTED,
    Deferral,
    Outcome,
    Request,
    Turn,
    Watchdog,
)

SUPERSEDED = "superseded by a stop command received after it (reflex.cancel_pending)"


class Responder:
    """Own everything between a received transcript and its one final Response."""

    def __init__(self, node: LifecycleNode, p: dict, reflex: StopReflex):
        self.node, self.p, self.reflex = node, p, reflex
        self.redact = Redactor(url_secrets(p["cloud.base_url"]))
        self.redact.add(*(v for v in (startup.check_cloud_key(p), os.environ.get(p["cloud.api_key_env"] or "-", ""))
                          if v.strip()))
        self.log = RedactingLogger(node.get_logger(), self.redact)
        self.schema, self.assistant, warm_ms = startup.load_assistant(p)
        self.log.info(f"model ready ({p['strategy']}, warm-up {warm_ms:.0f} ms); {startup.describe_cloud(p)}")
        self.breaker = CircuitBreaker(p["cloud.breaker_failures"], p["cloud.breaker_reset_s"])
        self.cloud = CloudClient(startup.cloud_config(p), self.breaker)
        watchdog_config = startup.watchdog_config(p, self.assistant)
        self.onboard = startup.load_onboard(p)  # None unless onboard.model_dir names an imported chat model
        if self.onboard is not None:
            self.log.info(f"on-board model for declined open requests: {p['onboard.model_dir']}")
        self.watchdog = Watchdog(self.assistant, self.schema, self.cloud, watchdog_config, onboard=self.onboard)
        self.sessions = Sessions(p["session.max_turns"], p["session.max_sessions"], p["session.ttl_s"])
        self.confirmations = Confirmations(self.schema, p["confirm.timeout_s"], load_words(p["confirm.words_path"]
                                                                                            or None))
        self.stats = diagnostics.NodeStats(p["diagnostics.window"])
        self.model_stop = ModelStop(getattr(self.assistant, "understanding", None), p["reflex.model_threshold"])
        depth = p["qos.depth"]
        self.pub_response = node.create_lifecycle_publisher(Response, "globalgen/response", qos.responses(depth))
        self.pub_stream = node.create_lifecycle_publisher(Response, "globalgen/response_stream",
                                                          qos.stream(p["qos.stream_depth"]))
        self.pub_intent = node.create_lifecycle_publisher(ActionIntent, "globalgen/intent", qos.responses(depth))
        self.pub_diag = node.create_lifecycle_publisher(DiagnosticArray, "/diagnostics", qos.diagnostics())
        self.epochs = StopEpochs()  # a stop supersedes the jobs received before it (serving/supersession.py)
        self.stopping = False  # deactivating: cancel the decode in flight
        self.worker: Worker | None = None
        self.screen: Worker | None = None  # the model stop check, on its own thread (serving/stop_model.py)
        self.pool: CloudPool | None = None

    # ---- lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the model worker and the cloud pool."""
        self.stopping = False
        self.worker = Worker(self._process, self.p["queue.max_size"])
        self.worker.start()
        self.screen = Worker(self._screen, self.p["queue.max_size"], name="globalgen-stop-model")
        self.screen.start()
        self.pool = CloudPool(self.p["cloud.concurrency"])

    def stop(self, reason: str) -> None:
        """Answer every pending transcript with REJECTED `reason`; wait for the work in flight."""
        self.stopping = True
        answer = self.node.context.ok()  # after Ctrl-C nothing can be published any more

        def reject(job: Job) -> None:
            if answer:
                self._reject(job, reason)

        if self.screen is not None:  # first: what it still holds would go on to the worker
            self.screen.stop(reject)
            self.screen = None
        if self.worker is not None:
            self.worker.stop(reject)
            self.worker = None
        if self.pool is not None:
            self.pool.stop(reject, wait_s=min(2.0, self.p["cloud.deadline_s"]))
            self.pool = None
        if answer:  # let the subscribers acknowledge the last answers before the process may exit
            for pub in (self.pub_response, self.pub_intent):
                with contextlib.suppress(Exception):
                    pub.wait_for_all_acked(Duration(seconds=1.0))

    def destroy(self) -> None:
        """Destroy the publishers and drop the model."""
        for pub in (self.pub_response, self.pub_stream, self.pub_intent, self.pub_diag):
            self.node.destroy_lifecycle_publisher(pub)
        for model in (self.assistant, self.onboard):
            if model is None:
                continue
            try:
                model.cache.close()  # flush the warm tier to the cold one (if any), release its files
            except Exception as exc:  # noqa: BLE001 - shutting down: say it, keep going
                self.log.warn(f"closing the KV cache failed: {exc.__class__.__name__}: {exc}")
        self.assistant = self.watchdog = self.onboard = None

    def reconfigure(self) -> None:
        """Apply live parameter changes to the watchdog, the cloud client and the breaker."""
        p = self.p
        self.watchdog.config = startup.watchdog_config(p, self.assistant)
        if self.cloud.config.base_url != p["cloud.base_url"]:
            self.breaker.reset()  # a new endpoint starts with a closed circuit
        self.cloud.config = startup.cloud_config(p)
        self.breaker.configure(p["cloud.breaker_failures"], p["cloud.breaker_reset_s"])
        self.sessions.max_turns, self.sessions.ttl_s = p["session.max_turns"], p["session.ttl_s"]
        self.sessions.max_sessions = p["session.max_sessions"]
        self.confirmations.timeout_s = p["confirm.timeout_s"]
        self.model_stop.threshold = p["reflex.model_threshold"]

    # ---- transcript callbacks (executor threads: cheap work only) -----------------------------------------
    def model_says_stop(self, u: Utterance) -> bool:
        """Return True if the understanding model reads the final transcript as an emergency stop (a model
        failure here is logged and the transcript goes the normal way)."""
        try:
            return u.is_final and self.model_stop.is_stop(u.text)
        except Exception as exc:  # noqa: BLE001 - the transcript must still be answered by the worker
            self.log.error(f"stop check by the understanding model failed ({exc.__class__.__name__}: {exc})")
            return False

    def stop_reflex(self, u: Utterance, by: str = "words", job: Job | None = None) -> None:
        """Publish the stop intent now; answer a final transcript with the reflex's Response (strategy `reflex`
        when the word lists matched, `reflex_model` when the understanding model said stop; `job`: the one
        already made for it at receipt)."""
        outcome = Outcome(OK, REFLEX, say(STOPPING, u.language), u.language, intent="stop", confidence=1.0,
                          strategy="reflex" if by == "words" else "reflex_model")
        with self.epochs.lock:  # no motion intent can be published between the new epoch and the stop
            if self.p["reflex.cancel_pending"]:
                self.epochs.open()
            epoch = self.epochs.current
            fire = self.reflex.first_fire(u.utterance_id)
            if fire:
                self.pub_intent.publish(answers.stop_intent(self._stamp(), u.utterance_id, u.session_id))
                self.confirmations.cancel_all()  # nothing asked before a stop may be confirmed after it
        if fire:
            self.stats.record_stop((time.monotonic() - u.received) * 1000.0)
            self.log.warn(f"stop reflex ({by}): {u.text[:40]!r} ({u.utterance_id})")
        if u.is_final:
            self._finish(job or u.job(epoch), outcome)

    def reject_received(self, u: Utterance, reason: str) -> None:
        """Answer a final transcript taken from DDS after the subscription closed with REJECTED `reason`."""
        self._reject(u.job(self.epochs.current), reason)

    def submit(self, u: Utterance) -> None:
        """Check the input and queue it for the model; answer ERROR or REJECTED at once if that fails."""
        job = u.job(self.epochs.current)
        problem = answers.field_problem(u.language, u.session_id, u.utterance_id)
        if problem:  # the reply must not carry a huge id or an arbitrary language tag into the cloud prompt
            job.utterance_id, job.session_id = u.utterance_id[:answers.MAX_ID_CHARS], u.session_id[
                :answers.MAX_ID_CHARS]
            job.language = self.p["language.default"] if "language" in problem else u.language
            self._finish(job, Outcome(ERROR, NODE, say(NOT_UNDERSTOOD, job.language), job.language, error=problem))
            return
        language = u.language
        problem = answers.input_problem(u.text, self.p["input.max_chars"])
        if problem:
            sentence = TOO_LONG if len(u.text) > self.p["input.max_chars"] else NOT_UNDERSTOOD
            self._finish(job, Outcome(ERROR, NODE, say(sentence, language), language, error=problem))
        elif not (self.model_stop.wants(u.text) and self.screen is not None and self.screen.submit(job)):
            self._queue(job)  # else the stop check thread reads it first and queues it unless it is a stop

    def _queue(self, job: Job) -> None:
        """Queue `job` for the model; answer REJECTED at once if the queue is full."""
        if self.worker is None or not self.worker.submit(job):
            limit = self.p["queue.max_size"]
            self._finish(job, Outcome(REJECTED, NODE, say(BUSY, job.language), job.language,
                                      error=f"overloaded: {limit} transcripts already waiting (queue.max_size="
                                            f"{limit}); retry later or raise queue.max_size"))

    # ---- stop check thread --------------------------------------------------------------------------------
    def _screen(self, job: Job) -> None:
        """Fire the stop if the understanding model reads `job` as one, else queue it for the model; never
        raises (the prediction is kept for the worker, which does not run the encoder twice)."""
        u = Utterance(job.text, True, job.language, job.session_id, job.utterance_id, job.received)
        if self.model_says_stop(u):
            self.stop_reflex(u, by="model", job=job)
        else:
            self._queue(job)

    # ---- model worker thread ------------------------------------------------------------------------------
    def _superseded(self, job: Job) -> bool:
        return self.stopping or self.epochs.superseded(job.epoch, self.p["reflex.cancel_pending"])

    def _process(self, job: Job) -> None:
        """Answer one job on the edge, or hand it to the cloud pool; never raises."""
        try:
            if self._superseded(job):
                self._reject(job, SUPERSEDED)
                return
            answer = self.confirmations.answer(job.session_id, job.text, job.language)
            if answer is not None:  # yes / no to a question asked in this session (or to none: confirms nothing)
                self._finish(job, answer)
                return
            req = Request(job.text, job.language, self.sessions.history(job.session_id), job.session_id,
                          strategy=self.p["strategy"], max_new_tokens=self.p["max_new_tokens"])
            result = self.watchdog.edge(req, on_text=lambda text: self._stream(job, text),
                                        cancel=lambda: self._superseded(job), save_later=True)
            if isinstance(result, Deferral):
                self._defer(job, req, result)
            else:
                self._finish(job, result, req)
        except Exception as exc:  # noqa: BLE001 - one bad request must not take the node down
            self._fail(job, exc)
        finally:  # the answer is out: now file the turn's K/V for the session's next utterance
            try:
                if self.assistant is not None:
                    self.assistant.save_pending()
            except Exception as exc:  # noqa: BLE001
                self.log.error(f"saving the K/V of {job.utterance_id} failed: {exc.__class__.__name__}: {exc}")

    def _defer(self, job: Job, req: Request, deferral: Deferral) -> None:
        """Run the cloud request on the pool (or inline when the cloud is off) and finish the job."""
        if not self.p["cloud.enabled"]:
            self._finish(job, self.watchdog.defer(req, deferral), req)
            return
        limit = self.p["cloud.max_pending"]
        if self.pool is None or not self.pool.submit(job, lambda: self._cloud(job, req, deferral), limit):
            reason = f"{deferral.reason}; cloud busy (cloud.max_pending={limit} requests already waiting)"
            self._finish(job, self.watchdog.fallback(req, reason, deferral), req)

    def _cloud(self, job: Job, req: Request, deferral: Deferral) -> None:
        try:
            self._finish(job, self.watchdog.defer(req, deferral), req)
        except Exception as exc:  # noqa: BLE001
            self._fail(job, exc)

    def _stream(self, job: Job, text: str) -> None:
        """Publish the reply text so far as a partial Response."""
        if job.done:
            return
        try:
            partial = Outcome(OK, EDGE, text, job.language, strategy=self.p["strategy"])
            msg = answers.response(self._stamp(), job.utterance_id, job.session_id, partial, is_final=False,
                                   seq=job.stream_seq, latency_ms=(time.monotonic() - job.received) * 1000.0)
            job.stream_seq += 1
            self.pub_stream.publish(msg)
        except Exception as exc:  # noqa: BLE001 - a failed partial must not abort the decode
            self.log.warn(f"partial response not published: {exc}")

    # ---- the one final answer -----------------------------------------------------------------------------
    def _finish(self, job: Job, outcome: Outcome, req: Request | None = None) -> None:
        """Publish the one final Response of `job` (and its intent when answered); never raises."""
        if not job.claim():
            return
        try:
            self._publish_final(job, outcome, req)
        except Exception as exc:  # noqa: BLE001 - still answer, with the reason
            self.log.error(f"answering {job.utterance_id} failed: {exc.__class__.__name__}: {exc}")
            error = Outcome(ERROR, NODE, "", job.language,
                            error=self.redact(f"internal error while answering: {exc}"))
            with contextlib.suppress(Exception):  # e.g. the context is already shut down (Ctrl-C)
                self.pub_response.publish(answers.response(self._stamp(), job.utterance_id, job.session_id, error,
                                                           is_final=True, seq=job.stream_seq, latency_ms=0.0))

    def _publish_final(self, job: Job, outcome: Outcome, req: Request | None) -> None:
        if outcome.status == REJECTED and outcome.error == "cancelled":
            outcome.error = "node stopping" if self.stopping else SUPERSEDED
        answered = outcome.status in (OK, DEFERRED)
        if answered and outcome.intent not in self.schema:
            outcome.error = f"intent {outcome.intent!r} is not in the schema: replaced by none"
            outcome.intent, outcome.slots = "none", {}
        if answered and req is not None:  # a model's answer (edge or cloud): numbers said, ranges
            outcome = check_answer(outcome, job.text, self.schema)
            for note in outcome.notes:
                self.log.info(f"{job.utterance_id}: {note}")
        with self.epochs.lock:  # decide and publish atomically with respect to a stop (see stop_reflex)
            if answered and outcome.source != REFLEX and self._superseded(job):
                outcome, answered = Outcome(REJECTED, NODE, "", job.language, error=SUPERSEDED), False
            second = self.confirmations.clarify(outcome, job.text, self.p["confirm.clarify_above"]) if (
                answered and req is not None) else None
            if second is not None:  # declined, with a command second: ask about it instead ("Turn it up?")
                outcome = self.confirmations.ask(job.session_id, second)
                self.log.info(f"{job.utterance_id}: {outcome.notes[-1]}")
            elif answered and self.confirmations.needs_asking(outcome):
                outcome = self.confirmations.ask(job.session_id, outcome)  # "Call Mom?": act on "yes" only
            stamp = self._stamp()
            if answered and outcome.source != REFLEX:
                self.pub_intent.publish(answers.intent(stamp, job.utterance_id, job.session_id, outcome,
                                                       self.schema))
                if self.schema[outcome.intent].safety:
                    self.confirmations.cancel_all()
                    if self.p["reflex.cancel_pending"]:
                        self.epochs.open()  # a stop from the model also supersedes pending motion
        if answered and req is not None:
            self.sessions.add(job.session_id, Turn(job.text, outcome.text, outcome.raw))
        outcome.error, outcome.text = self.redact(outcome.error), self.redact(outcome.text)
        latency_ms = (time.monotonic() - job.received) * 1000.0
        self.pub_response.publish(answers.response(stamp, job.utterance_id, job.session_id, outcome, is_final=True,
                                                   seq=job.stream_seq, latency_ms=latency_ms))
        self.stats.record(outcome.status, outcome.source, latency_ms, outcome.tokens, outcome.forwards)
        if not answered:
            self.log.info(f"{outcome.status} {job.utterance_id}: {outcome.error}")

    def _reject(self, job: Job, reason: str) -> None:
        self._finish(job, Outcome(REJECTED, NODE, "", job.language, error=reason))

    def _fail(self, job: Job, exc: Exception) -> None:
        if isinstance(exc, InputError):
            self._finish(job, Outcome(ERROR, NODE, say(NOT_UNDERSTOOD, job.language), job.language, error=str(exc)))
            return
        self.log.error(f"internal error on {job.utterance_id}: {exc.__class__.__name__}: {exc}")
        self._finish(job, Outcome(ERROR, NODE, say(APOLOGY, job.language), job.language,
                                  error=self.redact(f"internal error: {exc.__class__.__name__}: {exc}")))

    # ---- diagnostics ----------------------------------------------------------------------------------------
    def publish_diagnostics(self) -> None:
        """Publish latency percentiles, tokens per forward, queue depth, circuit state and counts."""
        try:
            self._publish_diagnostics()
        except Exception as exc:  # noqa: BLE001 - diagnostics must not stop the executor
            self.log.warn(f"diagnostics not published: {exc.__class__.__name__}: {exc}")

    def _publish_diagnostics(self) -> None:
        depth = self.worker.depth if self.worker is not None else 0
        extra = {"queue_depth": depth, "queue_max": self.p["queue.max_size"], "cloud_circuit": self.breaker.state,
                 "cloud_enabled": self.p["cloud.enabled"], "cloud_pending": self.pool.pending if self.pool else 0,
                 "cloud_calls": self.cloud.calls, "cloud_failures": self.cloud.failures,
                 "strategy": self.p["strategy"], "sessions": len(self.sessions),
                 "stop_check_depth": self.screen.depth if self.screen is not None else 0}
        cache_stats = getattr(self.assistant, "cache_stats", None)
        if callable(cache_stats):
            extra.update({f"cache_{key}": value for key, value in cache_stats().items()})
        level, message = diagnostics.level_for(depth, self.p["queue.max_size"], self.breaker.state,
                                               self.p["cloud.enabled"])
        self.pub_diag.publish(diagnostics.build(self.node.get_name(), self._stamp(), self.stats.snapshot(), extra,
                                                level, message))

    def _stamp(self):
        return self.node.get_clock().now().to_msg()


class RedactingLogger:
    """The node's logger with every message passed through the redactor first (secrets never reach a log)."""

    def __init__(self, logger, redact: Redactor):
        self._logger, self._redact = logger, redact

    def __getattr__(self, level: str):
        write = getattr(self._logger, level)
        return lambda message, *args, **kw: write(self._redact(str(message)), *args, **kw)
