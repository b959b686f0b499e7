"""Read 16-bit mono WAV files for the ASR bridge."""

from __future__ import annotations

import wave
from pathlib import Path


class WavError(ValueError):
    """A WAV file cannot be used; the message says why and what to do."""


def read_wav(path: str) -> tuple[int, bytes]:
    """Return (sample_rate, int16 PCM bytes) of a mono 16-bit WAV file."""
    if not Path(path).is_file():
        raise WavError(f"WAV file {path!r} does not exist")
    try:
        with wave.open(path, "rb") as wav:
            if wav.getnchannels() != 1 or wav.getsampwidth() != 2:
                raise WavError(f"{path!r} has {wav.getnchannels()} channel(s) of {8 * wav.getsampwidth()} bit; "
                               "convert it to mono 16-bit PCM (e.g. sox in.wav -c 1 -b 16 out.wav)")
            return wav.getframerate(), wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as exc:
        raise WavError(f"{path!r} is not a PCM WAV file ({exc})") from exc


def chunks(pcm: bytes, sample_rate: int, seconds: float = 0.1) -> list[bytes]:
    """Split PCM bytes into chunks of about `seconds` each (whole samples)."""
    step = max(2, int(sample_rate * seconds) * 2)
    return [pcm[i:i + step] for i in range(0, len(pcm), step)]
