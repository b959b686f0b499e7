"""Write and read rosbag2 bags of globalgen_ros messages with the rosbags library."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rosbags.interfaces import Qos
from rosbags.rosbag2 import Reader, ReaderError, StoragePlugin, Writer, WriterError

from globalgen_ros.bags.script import Script
from globalgen_ros.bags.types import RELIABLE_QOS, TRANSCRIPT, TRANSCRIPT_TOPIC, typestore

STORAGES = {"mcap": StoragePlugin.MCAP, "sqlite3": StoragePlugin.SQLITE3}


class BagError(RuntimeError):
    """A bag cannot be written or read; the message names the bag and the fix."""


@dataclass(frozen=True)
class BagMessage:
    topic: str
    msgtype: str
    timestamp: int   # ns, the bag's log time
    raw: bytes       # CDR bytes as published on the wire
    msg: object      # the message deserialized by rosbags (attribute access like rclpy messages)


class BagWriter:
    """Write raw CDR messages to a new rosbag2 bag; topics are added on first use."""

    def __init__(self, path: str | Path, storage: str = "mcap"):
        if storage not in STORAGES:
            raise BagError(f"unknown storage {storage!r}; use one of {sorted(STORAGES)}")
        self.path = Path(path)
        self._connections: dict[str, object] = {}
        try:
            self._writer = Writer(self.path, version=Writer.VERSION_LATEST, storage_plugin=STORAGES[storage])
            self._writer.open()
        except WriterError as exc:
            raise BagError(f"cannot create bag {self.path}: {exc} (choose a new --out path)") from exc

    def add_topic(self, topic: str, msgtype: str, qos: Qos = RELIABLE_QOS) -> None:
        """Register a topic with its message definition and RIHS01 type hash."""
        if topic not in self._connections:
            self._connections[topic] = self._writer.add_connection(
                topic, msgtype, typestore=typestore(), offered_qos_profiles=[qos])

    def write(self, topic: str, timestamp_ns: int, raw: bytes) -> None:
        """Append one serialized message to an added topic."""
        self._writer.write(self._connections[topic], timestamp_ns, raw)

    def close(self) -> None:
        """Finish the bag and write metadata.yaml."""
        self._writer.close()

    def __enter__(self) -> BagWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def transcript_cdr(text: str, *, stamp_ns: int, is_final: bool, confidence: float, language: str,
                   session_id: str, utterance_id: str) -> bytes:
    """Serialize one Transcript to CDR bytes (what rclpy publishes for it)."""
    store = typestore()
    transcript = store.types[TRANSCRIPT]
    time_type = store.types["builtin_interfaces/msg/Time"]
    msg = transcript(stamp=time_type(sec=stamp_ns // 10**9, nanosec=stamp_ns % 10**9), text=text,
                     is_final=is_final, confidence=confidence, language=language, session_id=session_id,
                     utterance_id=utterance_id)
    return bytes(store.serialize_cdr(msg, TRANSCRIPT))


def write_script_bag(script: Script, out: str | Path, *, storage: str = "mcap", topic: str = TRANSCRIPT_TOPIC,
                     start_time: float | None = None) -> int:
    """Write the utterances of a script as Transcript messages; return the number written."""
    start = start_time if start_time is not None else script.start_time
    start_ns = int((start if start is not None else time.time()) * 1e9)
    with BagWriter(out, storage) as bag:
        bag.add_topic(topic, TRANSCRIPT)
        for u in script.utterances:
            stamp_ns = start_ns + round(u.offset * 1e9)
            bag.write(topic, stamp_ns, transcript_cdr(
                u.text, stamp_ns=stamp_ns, is_final=u.final, confidence=u.confidence, language=u.language,
                session_id=u.session, utterance_id=u.utterance_id))
    return len(script.utterances)


def read_bag(path: str | Path, topics: list[str] | None = None,
             msgtypes: list[str] | None = None) -> Iterator[BagMessage]:
    """Yield the messages of a bag in log-time order, optionally only those of some topics or types."""
    path = Path(path)
    if not (path / "metadata.yaml").is_file():
        raise BagError(f"{path} is not a rosbag2 bag (no metadata.yaml); pass the bag directory")
    store = typestore()
    try:
        with Reader(path) as reader:
            connections = [c for c in reader.connections if (topics is None or c.topic in topics)
                           and (msgtypes is None or c.msgtype in msgtypes)]
            if not connections:
                return  # (rosbags reads every connection when given none)
            for connection, timestamp, raw in reader.messages(connections=connections):
                if connection.msgtype not in store.types:
                    raise BagError(f"{path}: unknown message type {connection.msgtype} on {connection.topic}; "
                                   "read only the topics you need")
                yield BagMessage(connection.topic, connection.msgtype, timestamp, bytes(raw),
                                 store.deserialize_cdr(raw, connection.msgtype))
    except ReaderError as exc:
        raise BagError(f"cannot read bag {path}: {exc}") from exc


def bag_topics(path: str | Path) -> dict[str, str]:
    """Return {topic: msgtype} of a bag."""
    try:
        with Reader(Path(path)) as reader:
            return {c.topic: c.msgtype for c in reader.connections}
    except ReaderError as exc:
        raise BagError(f"cannot read bag {path}: {exc}") from exc
