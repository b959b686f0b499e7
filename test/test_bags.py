"""Utterance scripts -> standard rosbag2 bags (mcap and sqlite3) -> read back; the replay report (no DDS)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest
import yaml
from rclpy.serialization import deserialize_message
from ros_harness import REPO_ROOT
from rosbags.rosbag2 import Reader

from globalgen_ros.bags import BagError, ScriptError, load_script, read_bag
from globalgen_ros.bags.report import Outcome, fit, percentile, summary, summary_text, table, width
from globalgen_ros.bags.types import TRANSCRIPT, TRANSCRIPT_TOPIC
from globalgen_ros.cli import record
from globalgen_ros.msg import Transcript

BUNDLED = ("incar_zh", "robot_en", "mixed")
SCRIPT = {"start_time": 1_767_225_600, "utterances": [
    {"offset": 0.0, "text": "导航到虹桥火车站", "language": "zh-CN", "session": "s1", "utterance_id": "a"},
    {"offset": 0.25, "text": "move", "language": "en-US", "session": "s2", "utterance_id": "b", "final": False,
     "confidence": 0.4},
    {"offset": 0.5, "text": "move forward 2 meters", "language": "en-US", "session": "s2", "utterance_id": "b"},
    {"offset": 1.75, "text": "停车", "session": "s1"},
]}


def run_record(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    record.add_parser(parser.add_subparsers())
    return record.run(parser.parse_args(["record", *argv]))


def write_yaml(path: Path, data) -> Path:
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_script_to_bag_round_trip(tmp_path, storage):
    """Every utterance comes back from the bag with its text, ids, flags and recorded time."""
    script = write_yaml(tmp_path / "s.yaml", SCRIPT)
    assert run_record(str(script), "--out", str(tmp_path / "bag"), "--storage", storage) == 0
    messages = list(read_bag(tmp_path / "bag"))
    assert [m.topic for m in messages] == [TRANSCRIPT_TOPIC] * 4
    assert [m.msg.text for m in messages] == [u["text"] for u in SCRIPT["utterances"]]
    assert [m.msg.utterance_id for m in messages] == ["a", "b", "b", "s-003"]
    assert [m.msg.is_final for m in messages] == [True, False, True, True]
    assert [m.msg.session_id for m in messages] == ["s1", "s2", "s2", "s1"]
    assert messages[1].msg.confidence == pytest.approx(0.4)
    start_ns = SCRIPT["start_time"] * 10**9
    assert [m.timestamp - start_ns for m in messages] == [0, 250_000_000, 500_000_000, 1_750_000_000]
    # The bytes are what rclpy publishes: its real typesupport decodes them to the same message.
    decoded = deserialize_message(messages[2].raw, Transcript)
    assert (decoded.text, decoded.utterance_id, decoded.language) == ("move forward 2 meters", "b", "en-US")
    assert decoded.stamp.sec == SCRIPT["start_time"] and decoded.stamp.nanosec == 500_000_000


def test_bag_stores_definition_and_rosidl_type_hash(tmp_path):
    """metadata.yaml carries the RIHS01 hash the rosidl build generated, and the bag the .msg definition."""
    assert run_record(str(write_yaml(tmp_path / "s.yaml", SCRIPT)), "--out", str(tmp_path / "bag")) == 0
    meta = yaml.safe_load((tmp_path / "bag" / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    (topic,) = meta["topics_with_message_count"]
    assert topic["topic_metadata"]["type"] == TRANSCRIPT
    assert topic["message_count"] == 4 and meta["storage_identifier"] == "mcap"
    generated = json.loads((Path(sys.prefix) / "share/globalgen_ros/msg/Transcript.json").read_text())
    rosidl_hash = next(h["hash_string"] for h in generated["type_hashes"] if h["type_name"] == TRANSCRIPT)
    assert topic["topic_metadata"]["type_description_hash"] == rosidl_hash
    with Reader(tmp_path / "bag") as reader:
        (connection,) = reader.connections
        assert "string utterance_id" in connection.msgdef.data
        assert "builtin_interfaces/Time" in connection.msgdef.data


def test_jsonl_script(tmp_path):
    """A JSONL script (one utterance per line) records like the YAML one."""
    lines = [json.dumps(u, ensure_ascii=False) for u in SCRIPT["utterances"]]
    (tmp_path / "s.jsonl").write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    script = load_script(tmp_path / "s.jsonl")
    assert [u.text for u in script.utterances] == [u["text"] for u in SCRIPT["utterances"]]
    assert script.start_time is None


@pytest.mark.parametrize("entry, message", [
    ({"offset": 0}, "'text' must be a non-empty string"),
    ({"offset": 0, "text": "  "}, "'text' must be a non-empty string"),
    ({"offset": -1, "text": "hi"}, "'offset' must be a number of seconds >= 0"),
    ({"offset": "soon", "text": "hi"}, "'offset' must be a number"),
    ({"offset": 0, "text": "hi", "confidence": 1.5}, "'confidence' must be in [0, 1]"),
    ({"offset": 0, "text": "hi", "final": "yes"}, "'final' must be true or false"),
    ({"offset": 0, "text": "hi", "speaker": "bob"}, "unknown field(s) ['speaker']"),
    ({"offset": 0, "text": "hi", "session": 7}, "'session' must be a string"),
    ("hello", "expected a mapping"),
])
def test_bad_script_entry_is_named(tmp_path, entry, message):
    """A bad entry is rejected with the file, the entry number and what is wrong."""
    path = write_yaml(tmp_path / "bad.yaml", [{"offset": 0, "text": "ok"}, entry])
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert "bad.yaml entry 1" in str(info.value) and message in str(info.value)


def test_bad_scripts(tmp_path):
    """Broken files, empty scripts and duplicate final ids are clear errors; record exits 1 and writes nothing."""
    (tmp_path / "broken.jsonl").write_text('{"offset": 0, "text": "a"}\n{"offset": 1, "text": \n')
    with pytest.raises(ScriptError, match=r"broken.jsonl:2: invalid JSON"):
        load_script(tmp_path / "broken.jsonl")
    with pytest.raises(ScriptError, match="no utterances"):
        load_script(write_yaml(tmp_path / "empty.yaml", []))
    with pytest.raises(ScriptError, match="utterance_id 'x' has two final entries"):
        load_script(write_yaml(tmp_path / "dup.yaml", [{"offset": 0, "text": "a", "utterance_id": "x"},
                                                        {"offset": 1, "text": "b", "utterance_id": "x"}]))
    with pytest.raises(ScriptError, match="cannot read script"):
        load_script(tmp_path / "missing.yaml")
    assert run_record(str(tmp_path / "empty.yaml"), "--out", str(tmp_path / "bag")) == 1
    assert not (tmp_path / "bag").exists()


def test_record_refuses_to_overwrite(tmp_path, capsys):
    """An existing --out is never overwritten."""
    script = str(write_yaml(tmp_path / "s.yaml", SCRIPT))
    assert run_record(script, "--out", str(tmp_path / "bag")) == 0
    before = sorted(p.name for p in (tmp_path / "bag").iterdir())
    assert run_record(script, "--out", str(tmp_path / "bag")) == 1
    assert "exists already" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "bag").iterdir()) == before


def test_read_bag_errors(tmp_path):
    """Reading something that is not a bag says so."""
    with pytest.raises(BagError, match="not a rosbag2 bag"):
        list(read_bag(tmp_path))


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_bags_match_their_scripts(tmp_path, name):
    """The bundled bags are exactly what `globalgen record` makes of bags/scripts/NAME.yaml."""
    assert run_record(str(REPO_ROOT / "bags/scripts" / f"{name}.yaml"), "--out", str(tmp_path / name)) == 0
    for file in ("metadata.yaml", f"{name}.mcap"):
        assert (tmp_path / name / file).read_bytes() == (REPO_ROOT / "bags" / name / file).read_bytes(), file


def test_bundled_mixed_bag_has_long_request_and_stops():
    """The mixed bag holds both languages, a request too long for the edge window and stop commands."""
    texts = [m.msg.text for m in read_bag(REPO_ROOT / "bags/mixed") if m.msg.is_final]
    languages = {m.msg.language for m in read_bag(REPO_ROOT / "bags/mixed")}
    assert languages == {"zh-CN", "en-US"}
    assert max(len(t.split()) for t in texts) > 200  # over watchdog.max_edge_tokens (256) once tokenized
    assert "emergency stop" in texts and "紧急停车" in texts


def test_report_table_and_summary():
    """The table aligns CJK text; the summary counts answers and takes nearest-rank percentiles."""
    outcomes = [Outcome("a", "导航到虹桥火车站", finals=1, status=0, reply="好的，正在导航到虹桥火车站。",
                        intent="navigate", slots={"destination": "虹桥火车站"}, latency_ms=20.0, e2e_ms=22.0,
                        tokens=12, forwards=4),
                Outcome("b", "emergency stop", finals=1, status=0, intent="stop", latency_ms=1.0, e2e_ms=2.0),
                Outcome("c", "long " * 300, finals=1, status=2, error="deferred: too long", latency_ms=3.0),
                Outcome("d", "lost", finals=0), Outcome("e", "twice", finals=2, status=3, latency_ms=4.0)]
    lines = table(outcomes).splitlines()
    assert len(lines) == 6
    column = width(lines[0].split("intent")[0])
    assert all(width(line[:len(line.split("navigate")[0])]) == column for line in lines[1:2])
    assert "3.00" in lines[1] and "NO ANSWER" in lines[4] and "FALLBACK" in lines[3]
    stats = summary(outcomes)
    assert (stats["utterances"], stats["answered_once"], stats["unanswered"], stats["answered_more_than_once"]) == \
        (5, 3, 1, 1)
    assert stats["status"] == {"OK": 2, "FALLBACK": 1, "NO ANSWER": 1, "REJECTED": 1}
    assert stats["p50_ms"] == 3.0 and stats["p95_ms"] == 20.0 and stats["tokens_per_forward"] == 3.0
    assert "5 utterances: 3 answered exactly once" in summary_text(stats)
    assert percentile([], 50) is None and percentile([5.0], 95) == 5.0
    assert percentile(list(range(1, 101)), 95) == 95
    assert width(fit("虹桥火车站虹桥火车站", 9)) == 9 and fit("abc", 5) == "abc  "


def test_robot_bag_with_other_types(tmp_path):
    """Replay reads the transcripts of a bag that also holds types we do not know; reading those is a clear error."""
    from rosbags.rosbag2 import Writer

    from globalgen_ros.bags.io import transcript_cdr
    from globalgen_ros.bags.types import typestore
    from globalgen_ros.cli.replay import transcripts

    with Writer(tmp_path / "robot", version=9) as writer:
        lidar = writer.add_connection("/lidar/raw", "acme_msgs/msg/Scan", msgdef="uint8[] data",
                                      rihs01="RIHS01_" + "0" * 64)
        asr = writer.add_connection(TRANSCRIPT_TOPIC, TRANSCRIPT, typestore=typestore())
        writer.write(lidar, 1, b"\x00\x01\x00\x00\x00\x00\x00\x00")
        writer.write(asr, 2, transcript_cdr("停车", stamp_ns=2, is_final=True, confidence=1.0, language="zh-CN",
                                            session_id="", utterance_id="u1"))
    assert [m.msg.text for m in transcripts(tmp_path / "robot")] == ["停车"]
    with pytest.raises(BagError, match="unknown message type acme_msgs/msg/Scan on /lidar/raw"):
        list(read_bag(tmp_path / "robot"))
    with pytest.raises(BagError, match="holds no globalgen_ros/msg/Transcript"):
        transcripts(_only_lidar(tmp_path))


def _only_lidar(tmp_path: Path) -> Path:
    from rosbags.rosbag2 import Writer

    with Writer(tmp_path / "lidar", version=9) as writer:
        lidar = writer.add_connection("/lidar/raw", "acme_msgs/msg/Scan", msgdef="uint8[] data",
                                      rihs01="RIHS01_" + "0" * 64)
        writer.write(lidar, 1, b"\x00\x01\x00\x00\x00\x00\x00\x00")
    return tmp_path / "lidar"
