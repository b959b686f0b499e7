"""globalgen_node: ASR transcripts in, spoken replies and action intents out (a lifecycle node).

Threads: transcript callbacks run on one executor thread and only do cheap work (the stop reflex, input
checks, queueing), so a stop is published while the model is busy. With reflex.model_threshold > 0 a final
first passes the model stop check on its own thread. The model runs on one worker thread fed by a bounded
queue; deferred requests wait for the cloud on a small pool so the edge keeps serving.
Every final transcript gets exactly one final Response (Job.claim guards it).
"""

from __future__ import annotations

import signal
import sys
import threading
import time
import uuid

import rclpy
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from rclpy.signals import SignalHandlerOptions
from std_msgs.msg import String

from globalgen_ros.msg import Transcript
from globalgen_ros.ros import params, qos, startup
from globalgen_ros.ros.responder import Responder
from globalgen_ros.serving.reflex import StopReflex, load_words, with_names
from globalgen_ros.serving.stop_ngrams import StopNgramsError, load_for
from globalgen_ros.serving.worker import Utterance
from globalgen_ros.watchdog.language import detect_language


class GlobalgenNode(LifecycleNode):
    """Answer every final transcript once; publish stop intents from the callback, never behind the model."""

    def __init__(self, **kwargs):
        super().__init__("globalgen_node", **kwargs)
        self.p = params.declare(self)
        self.add_post_set_parameters_callback(self._on_params_set)
        self.reflex = StopReflex(with_names(load_words(self.p["reflex.words_path"] or None), self.p["reflex.names"]),
                                 ngrams=self._stop_ngrams())
        self.responder: Responder | None = None
        self._input_group = MutuallyExclusiveCallbackGroup()  # transcripts: cheap work only
        self._timer_group = MutuallyExclusiveCallbackGroup()  # diagnostics
        self._subscriptions_active: list = []
        self._timer = None

    def _stop_ngrams(self):
        """Load the n-gram stop model of model_dir at reflex.ngram_threshold; None (word lists only) if it is off or
        unreadable, which is logged as an error with the fix."""
        try:
            return load_for(self.p["model_dir"] or None, self.p["reflex.ngram_threshold"])
        except StopNgramsError as exc:
            self.get_logger().error(f"{exc}; the stop reflex runs on its word lists only")
            return None

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Load the schema and the model, warm it up, create publishers and the cloud client."""
        try:
            self.responder = Responder(self, self.p, self.reflex)
        except startup.ConfigureError as exc:
            self.get_logger().error(f"configure failed: {exc}")
            return TransitionCallbackReturn.FAILURE
        return super().on_configure(state)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Enable the publishers, start the worker, then subscribe (so nothing arrives before we can answer)."""
        result = super().on_activate(state)
        self.responder.start()
        depth = self.p["qos.depth"]
        finals = self.create_subscription(Transcript, "asr/transcript", self._on_final, qos.transcripts(depth),
                                          callback_group=self._input_group, content_filter_options=qos.finals_only())
        partials = self.create_subscription(Transcript, "asr/transcript", self._on_partial,
                                            qos.transcripts(self.p["qos.partial_depth"]),
                                            callback_group=self._input_group,
                                            content_filter_options=qos.partials_only())
        if not (finals.is_cft_enabled and partials.is_cft_enabled):
            self.get_logger().warn("the RMW has no content-filtered topics: partial and final transcripts share "
                                   "one history per subscription, so a flood of partials may evict finals")
        self._subscriptions_active = [
            finals, partials,
            self.create_subscription(String, "asr/text", self._on_text, qos.transcripts(depth),
                                     callback_group=self._input_group),
        ]
        self._timer = self.create_timer(self.p["diagnostics.period_s"], self.responder.publish_diagnostics,
                                        callback_group=self._timer_group)
        self.get_logger().info("active: listening on asr/transcript and asr/text")
        return result

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Unsubscribe, answer what is still queued with REJECTED, then disable the publishers."""
        reason = "node deactivated before this transcript was answered"
        self._unsubscribe(reason)
        self.responder.stop(reason)
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release the model and the publishers."""
        self.responder.destroy()
        self.responder = None
        return super().on_cleanup(state)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop everything from any state."""
        self.release()
        return super().on_shutdown(state)

    def release(self) -> None:
        """Unsubscribe, answer pending transcripts if still possible, stop the threads, drop the model."""
        self._unsubscribe("node shutting down")
        if self.responder is not None:
            self.responder.stop("node shutting down")
            self.responder.destroy()
            self.responder = None

    def _unsubscribe(self, reason: str = "") -> None:
        """Destroy the subscriptions; first answer what DDS still holds for them (a stop still stops)."""
        for sub in self._subscriptions_active:
            if reason and self.responder is not None and self.context.ok():
                self._drain(sub, reason)
            self.destroy_subscription(sub)
        self._subscriptions_active = []
        if self._timer is not None:
            self.destroy_timer(self._timer)
            self._timer = None

    def _on_final(self, msg: Transcript) -> None:
        """Handle one final Transcript (its own subscription: partials cannot evict it)."""
        if msg.is_final:  # without content filters both subscriptions see every message
            self._handle(self._utterance(msg, time.monotonic()))

    def _on_partial(self, msg: Transcript) -> None:
        """Handle one partial Transcript (only the stop reflex looks at it)."""
        if not msg.is_final:
            self._handle(self._utterance(msg, time.monotonic()))

    def _on_text(self, msg: String) -> None:
        """Handle one std_msgs/String as a final transcript without session."""
        self._handle(self._utterance(msg, time.monotonic()))

    def _utterance(self, msg: Transcript | String, received: float) -> Utterance:
        """Build the one record of a message that travels from here to its answer."""
        if isinstance(msg, String):
            text, final, language, session, uid = msg.data, True, "", "", ""
        else:
            text, final, language, session, uid = msg.text, msg.is_final, msg.language, msg.session_id, \
                msg.utterance_id
        # The first characters tell the language; never scan a megabyte of text in this callback.
        language = language or detect_language(text[:200], self.p["language.default"])
        return Utterance(text, final, language, session, uid or _new_id(), received)

    def _handle(self, utterance: Utterance) -> None:
        try:
            self._dispatch(utterance)
        except Exception as exc:  # noqa: BLE001 - an exception here would stop the executor, and the node
            self.get_logger().error(f"transcript {utterance.utterance_id!r} not handled: "
                                    f"{exc.__class__.__name__}: {exc}")

    def _dispatch(self, utterance: Utterance) -> None:
        responder = self.responder
        if responder is None:
            return
        reflex = (utterance.is_final or self.p["reflex.on_partial"]) and self.reflex.matches(utterance.text)
        if reflex:
            responder.stop_reflex(utterance)
        elif utterance.is_final:  # partial hypotheses never get a final reply; "Kid in the road!" (no stop
            responder.submit(utterance)  # word) is read by the model stop check on its own thread first

    def _drain(self, sub, reason: str) -> None:
        """Take the messages still queued for `sub`: stops fire the reflex, finals are answered REJECTED."""
        while True:
            try:
                with sub.handle:
                    taken = sub.handle.take_message(sub.msg_type, sub.raw)
            except Exception:  # noqa: BLE001 - a destroyed handle: nothing left to take
                return
            if taken is None:
                return
            utterance = self._utterance(taken[0], time.monotonic())
            if self.reflex.matches(utterance.text):
                self.responder.stop_reflex(utterance)
            elif self.responder.model_says_stop(utterance):
                self.responder.stop_reflex(utterance, by="model")
            elif utterance.is_final:
                self.responder.reject_received(utterance, reason)

    def _on_params_set(self, changed: list) -> None:
        """Apply live parameter changes (already validated)."""
        for param in changed:
            self.p[param.name] = param.value
        if any(param.name in ("reflex.words_path", "reflex.names") for param in changed):
            self.reflex.configure(with_names(load_words(self.p["reflex.words_path"] or None), self.p["reflex.names"]))
        if any(param.name == "reflex.ngram_threshold" for param in changed):
            self.reflex.ngrams = self._stop_ngrams()
        if self.responder is not None:
            self.responder.reconfigure()


_STOP = threading.Event()


def _interrupt(signum, frame) -> None:
    if _STOP.is_set():  # a second Ctrl-C: stop waiting for anything
        raise KeyboardInterrupt
    _STOP.set()


def _new_id() -> str:
    return f"gg-{uuid.uuid4().hex[:16]}"


def main(args: list[str] | None = None) -> int:
    """Run globalgen_node; with autostart (default) it configures and activates itself."""
    sys.setswitchinterval(0.0005)  # let the stop reflex thread get the GIL quickly while the model decodes
    # rclpy's own SIGINT handler would shut the context down at once, before pending transcripts could be
    # answered; ours only asks the spin loop to end, and SIGTERM (ros2 launch) does the same.
    _STOP.clear()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _interrupt)
    try:
        with rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO):
            try:
                node = GlobalgenNode()
            except startup.PARAMETER_ERRORS as exc:
                print(startup.describe_parameter_error(exc), file=sys.stderr)
                return 2
            # The model runs on the worker thread; callbacks only queue work, answer stops and publish. One
            # executor thread is enough, and rclpy's MultiThreadedExecutor delayed a transcript arriving right
            # after a reply by up to ~125 ms (p95 68 ms; single-threaded: p95 1.1 ms; docs/node.md).
            executor = SingleThreadedExecutor()
            executor.add_node(node)
            if not node.p["autostart"]:
                node.get_logger().info("autostart is false: waiting for configure (lifecycle ~/change_state)")
            elif not startup.autostart(node, interrupted=_STOP.is_set):
                return 1
            try:
                while not _STOP.is_set() and rclpy.ok():  # a signal ends the loop between callbacks, never inside
                    executor.spin_once(timeout_sec=0.1)   # one (a message taken from DDS is always handled)
                node.get_logger().info("interrupted: answering what is pending, then exiting")
            finally:
                node.release()
                node.destroy_node()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
