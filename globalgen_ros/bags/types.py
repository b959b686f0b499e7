"""Message types of globalgen_ros for rosbags: a typestore that knows our .msg files."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.store import Typestore

PACKAGE = "globalgen_ros"
TRANSCRIPT = f"{PACKAGE}/msg/Transcript"
RESPONSE = f"{PACKAGE}/msg/Response"
ACTION_INTENT = f"{PACKAGE}/msg/ActionIntent"
AUDIO_CHUNK = f"{PACKAGE}/msg/AudioChunk"

# Default topic names (absolute, as rosbag2 stores them).
TRANSCRIPT_TOPIC = "/asr/transcript"
RESPONSE_TOPIC = "/globalgen/response"
RESPONSE_STREAM_TOPIC = "/globalgen/response_stream"
INTENT_TOPIC = "/globalgen/intent"

_ZERO = QosTime(sec=0, nsec=0)
# What `ros2 bag play` offers when it replays the topic: reliable, volatile, keep last 100.
RELIABLE_QOS = Qos(QosHistory.KEEP_LAST, 100, QosReliability.RELIABLE, QosDurability.VOLATILE,
                   _ZERO, _ZERO, QosLiveliness.AUTOMATIC, _ZERO, False)
BEST_EFFORT_QOS = RELIABLE_QOS._replace(reliability=QosReliability.BEST_EFFORT)


class MessageDefinitionError(RuntimeError):
    """The .msg files of globalgen_ros could not be found or parsed."""


def msg_dirs() -> list[Path]:
    """Return the places where the package's .msg files may live, most specific first."""
    source = Path(__file__).resolve().parents[2] / "msg"          # source tree: <repo>/msg
    installed = Path(sys.prefix) / "share" / PACKAGE / "msg"     # venv install: <venv>/share/globalgen_ros/msg
    dirs = [source, installed]
    try:  # a colcon workspace on a robot
        from ament_index_python.packages import get_package_share_directory

        dirs.append(Path(get_package_share_directory(PACKAGE)) / "msg")
    except Exception:  # noqa: BLE001 - ament index not set up or package not in it
        pass
    return dirs


def find_msg_dir() -> Path:
    """Return the first directory that holds Transcript.msg, or raise a clear error."""
    for path in msg_dirs():
        if (path / "Transcript.msg").is_file():
            return path
    tried = ", ".join(str(p) for p in msg_dirs())
    raise MessageDefinitionError(f"globalgen_ros .msg files not found (looked in {tried}); "
                                 "run from the repository or install the package (scripts/setup_venv.sh)")


@functools.cache
def typestore() -> Typestore:
    """Return a ROS 2 Kilted typestore with the globalgen_ros messages registered."""
    store = get_typestore(Stores.ROS2_KILTED)
    msg_dir = find_msg_dir()
    types = {}
    for path in sorted(msg_dir.glob("*.msg")):
        try:
            types.update(get_types_from_msg(path.read_text(encoding="utf-8"), f"{PACKAGE}/msg/{path.stem}"))
        except Exception as exc:  # noqa: BLE001 - rosbags raises its own parser errors
            raise MessageDefinitionError(f"cannot parse {path}: {exc}") from exc
    store.register(types)
    return store


def python_class(msgtype: str):
    """Return the rclpy message class of a type name such as 'globalgen_ros/msg/Response'."""
    import importlib

    package, kind, name = msgtype.split("/")
    return getattr(importlib.import_module(f"{package}.{kind}"), name)
