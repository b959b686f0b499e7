"""Scripts of timed utterances (YAML or JSONL) that `globalgen record` turns into bags."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import yaml

FIELDS = {"offset", "text", "language", "session", "utterance_id", "confidence", "final"}


class ScriptError(ValueError):
    """A script of utterances is malformed; the message names the file, the entry and the fix."""


@dataclass(frozen=True)
class Utterance:
    offset: float            # seconds after the start of the bag
    text: str
    language: str = ""       # BCP-47 tag; empty = let the node detect it
    session: str = ""
    utterance_id: str = ""
    confidence: float = 1.0  # recogniser confidence in [0, 1]; -1 = unknown
    final: bool = True       # false: a partial hypothesis (the node must not answer it)


@dataclass(frozen=True)
class Script:
    name: str
    utterances: list[Utterance]
    start_time: float | None = None   # unix seconds of offset 0; None = when recorded


def _utterance(entry: object, where: str, default_id: str) -> Utterance:
    """Validate one script entry and turn it into an Utterance."""
    if not isinstance(entry, dict):
        raise ScriptError(f"{where}: expected a mapping with offset and text, got {type(entry).__name__}")
    unknown = set(entry) - FIELDS
    if unknown:
        raise ScriptError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(FIELDS)}")
    if "text" not in entry or not isinstance(entry["text"], str) or not entry["text"].strip():
        raise ScriptError(f"{where}: 'text' must be a non-empty string")
    offset = entry.get("offset")
    if isinstance(offset, bool) or not isinstance(offset, (int, float)) or not math.isfinite(offset) or offset < 0:
        raise ScriptError(f"{where}: 'offset' must be a number of seconds >= 0, got {offset!r}")
    confidence = entry.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
            confidence == -1 or 0.0 <= confidence <= 1.0):
        raise ScriptError(f"{where}: 'confidence' must be in [0, 1] or -1 (unknown), got {confidence!r}")
    final = entry.get("final", True)
    if not isinstance(final, bool):
        raise ScriptError(f"{where}: 'final' must be true or false, got {final!r}")
    strings = {key: entry.get(key, "") for key in ("language", "session", "utterance_id")}
    for key, value in strings.items():
        if not isinstance(value, str):
            raise ScriptError(f"{where}: '{key}' must be a string, got {value!r}")
    return Utterance(offset=float(offset), text=entry["text"], language=strings["language"],
                     session=strings["session"], utterance_id=strings["utterance_id"] or default_id,
                     confidence=float(confidence), final=final)


def _entries(path: Path) -> tuple[list[object], float | None]:
    """Read the raw entries (and optional start time) of a YAML or JSONL script."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"{path}: cannot read script: {exc}") from exc
    if path.suffix == ".jsonl":
        entries = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    entries.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ScriptError(f"{path}:{number}: invalid JSON: {exc.msg}") from exc
        return entries, None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScriptError(f"{path}: invalid YAML: {exc}") from exc
    if isinstance(data, list):
        return data, None
    if isinstance(data, dict) and isinstance(data.get("utterances"), list):
        start = data.get("start_time")
        if start is not None and (isinstance(start, bool) or not isinstance(start, (int, float)) or start < 0):
            raise ScriptError(f"{path}: 'start_time' must be unix seconds >= 0, got {start!r}")
        return data["utterances"], start
    raise ScriptError(f"{path}: expected a list of utterances or a mapping with an 'utterances' list")


def load_script(path: str | Path) -> Script:
    """Load and validate a script of timed utterances; utterances come out sorted by offset."""
    path = Path(path)
    entries, start_time = _entries(path)
    if not entries:
        raise ScriptError(f"{path}: the script has no utterances")
    utterances, seen = [], set()
    for index, entry in enumerate(entries):
        utterance = _utterance(entry, f"{path} entry {index}", f"{path.stem}-{index:03d}")
        if utterance.final and utterance.utterance_id in seen:
            raise ScriptError(f"{path} entry {index}: utterance_id {utterance.utterance_id!r} has two final entries")
        if utterance.final:
            seen.add(utterance.utterance_id)
        utterances.append(utterance)
    utterances.sort(key=lambda u: u.offset)  # stable: entries with equal offsets keep their order
    return Script(name=path.stem, utterances=utterances, start_time=start_time)
