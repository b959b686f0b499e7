"""Record -> read back -> replay through a real globalgen_node (own process, real DDS on loopback).

Timing is checked relative to the recording with generous tolerances (ordering, spacing, rate 4 faster than
rate 1), never against absolute speed.
"""

from __future__ import annotations

import argparse
import json
import signal

import pytest
import rclpy
import yaml
from node_fixtures import start_node
from ros_harness import RosProcess, executable

from globalgen_ros.bags import BagWriter, read_bag
from globalgen_ros.bags.player import BagPlayer
from globalgen_ros.bags.types import INTENT_TOPIC, RESPONSE_TOPIC, TRANSCRIPT_TOPIC
from globalgen_ros.cli import record
from globalgen_ros.cli.replay import replay_bag, transcripts

UTTERANCES = [
    {"offset": 0.0, "text": "导航到虹桥火车站", "language": "zh-CN", "session": "zh", "utterance_id": "1"},
    {"offset": 0.6, "text": "move forward", "language": "en-US", "session": "en", "utterance_id": "2", "final": False},
    {"offset": 0.8, "text": "move forward 2 meters", "language": "en-US", "session": "en", "utterance_id": "2"},
    {"offset": 1.6, "text": "太热了，调到二十二度", "language": "zh-CN", "session": "zh", "utterance_id": "3"},
    {"offset": 2.4, "text": "pick up the red cup", "language": "en-US", "session": "en", "utterance_id": "4"},
    {"offset": 3.2, "text": "停车", "language": "zh-CN", "session": "zh", "utterance_id": "5"},
]
TOLERANCE_S = 0.35  # generous: the CPU may be shared with other work


@pytest.fixture(scope="module")
def node():
    process = start_node()
    try:
        process.wait_for_output("active: listening", timeout=180.0)
        yield process
    finally:
        assert process.stop() == 0, process.output()


@pytest.fixture
def bag(tmp_path_factory, request):
    """Record the script with `globalgen record`; ids and sessions are unique per test (the node remembers them)."""
    folder = tmp_path_factory.mktemp("replay")
    prefix = request.node.name.removeprefix("test_")
    utterances = [{**u, "utterance_id": f"{prefix}-{u['utterance_id']}", "session": f"{prefix}-{u['session']}"}
                  for u in UTTERANCES]
    script = folder / "script.yaml"
    script.write_text(yaml.safe_dump({"start_time": 1_767_225_600, "utterances": utterances}, allow_unicode=True))
    parser = argparse.ArgumentParser()
    record.add_parser(parser.add_subparsers())
    assert record.run(parser.parse_args(["record", str(script), "--out", str(folder / "bag")])) == 0
    return folder / "bag"


def final_ids(bag) -> list[str]:
    return [m.msg.utterance_id for m in read_bag(bag) if m.msg.is_final]


def play(bag, rate: float, out=None):
    """Replay the bag through a BagPlayer in a context of its own; return the outcomes."""
    context = rclpy.Context()
    rclpy.init(context=context)
    writer = BagWriter(out) if out else None
    player = BagPlayer(writer=writer, context=context)
    try:
        return replay_bag(player, transcripts(bag), rate=rate, timeout_s=120.0, wait_node_s=60.0)
    finally:
        player.close()
        if writer is not None:
            writer.close()
        context.try_shutdown()


def test_round_trip_answers_every_transcript(node, bag, tmp_path):
    """At rate 1 every final transcript is answered once; the output bag holds them with matching ids."""
    outcomes = play(bag, 1.0, tmp_path / "out")
    ids = final_ids(bag)
    assert [o.utterance_id for o in outcomes] == ids and len(ids) == 5
    assert [o.finals for o in outcomes] == [1] * 5, [(o.utterance_id, o.finals) for o in outcomes]
    assert all(o.status is not None and (o.reply or o.error) for o in outcomes)
    assert outcomes[-1].intent == "stop"

    recorded = {m.msg.utterance_id: m.timestamp for m in read_bag(bag) if m.msg.is_final}
    first = min(recorded.values())
    for o in outcomes:  # published at the recorded offsets, in order
        assert abs(o.sent_s - (recorded[o.utterance_id] - first) / 1e9) < TOLERANCE_S, (o.utterance_id, o.sent_s)
    assert [o.sent_s for o in outcomes] == sorted(o.sent_s for o in outcomes)

    out = list(read_bag(tmp_path / "out"))
    responses = [m.msg for m in out if m.topic == RESPONSE_TOPIC]
    assert sorted(r.utterance_id for r in responses) == ids
    assert all(r.is_final for r in responses)
    intents = {m.msg.utterance_id for m in out if m.topic == INTENT_TOPIC}
    assert intents <= set(ids) and ids[-1] in intents  # at least the stop intent
    sent = [m for m in out if m.topic == TRANSCRIPT_TOPIC]
    assert [m.raw for m in sent] == [m.raw for m in read_bag(bag)]  # replayed byte for byte, partial included
    spacing = [(b.timestamp - a.timestamp) / 1e9 for a, b in zip(sent, sent[1:], strict=False)]
    expected = [b["offset"] - a["offset"] for a, b in zip(UTTERANCES, UTTERANCES[1:], strict=False)]
    assert all(abs(s - e) < TOLERANCE_S for s, e in zip(spacing, expected, strict=True)), spacing


def test_rate_4_plays_faster(node, bag):
    """At rate 4 the same bag is sent in about a quarter of the recorded span, in the same order."""
    outcomes = play(bag, 4.0)
    assert [o.finals for o in outcomes] == [1] * 5
    recorded_span = UTTERANCES[-1]["offset"] - UTTERANCES[0]["offset"]
    sent_span = outcomes[-1].sent_s - outcomes[0].sent_s
    assert sent_span < recorded_span / 2, sent_span
    assert abs(sent_span - recorded_span / 4) < TOLERANCE_S
    assert [o.sent_s for o in outcomes] == sorted(o.sent_s for o in outcomes)


def test_replay_command(node, bag, tmp_path):
    """`globalgen replay` prints a row per utterance and a summary; exit 0 when each got one final answer."""
    replay = RosProcess([executable("globalgen"), "replay", str(bag), "--rate", "4", "--out", str(tmp_path / "o"),
                         "--json"], name="globalgen_replay")
    try:
        assert replay.wait(timeout=180.0) == 0, replay.output()
        out = replay.output()
    finally:
        replay.stop()
    stats = json.loads(out.strip().splitlines()[-1])
    assert stats["utterances"] == stats["answered_once"] == 5
    assert "5 utterances: 5 answered exactly once" in out
    assert "pick up the red cup" in out and "tok/fwd" in out
    assert sorted(m.msg.utterance_id for m in read_bag(tmp_path / "o", [RESPONSE_TOPIC])) == final_ids(bag)


def test_record_live_topics(node, bag, tmp_path):
    """`globalgen record --topics` writes the node's replies and intents while a bag is replayed."""
    recorder = RosProcess([executable("globalgen"), "record", "--topics", RESPONSE_TOPIC, INTENT_TOPIC,
                           "--out", str(tmp_path / "live")], name="globalgen_record")
    try:
        recorder.wait_for_output(f"recording {RESPONSE_TOPIC}", timeout=60.0)
        recorder.wait_for_output(f"recording {INTENT_TOPIC}", timeout=60.0)
        assert [o.finals for o in play(bag, 4.0)] == [1] * 5
        recorder.popen.send_signal(signal.SIGINT)  # Ctrl-C: close the bag and print the counts
        assert recorder.wait(timeout=30.0) == 0, recorder.output()
        out = recorder.output()
    finally:
        recorder.stop()
    live = list(read_bag(tmp_path / "live"))
    ids = final_ids(bag)
    assert sorted(m.msg.utterance_id for m in live if m.topic == RESPONSE_TOPIC) == ids
    assert ids[-1] in {m.msg.utterance_id for m in live if m.topic == INTENT_TOPIC}  # the stop intent
    assert f"{RESPONSE_TOPIC}: 5 messages" in out


def test_record_live_without_publishers(tmp_path):
    """Recording a topic nobody publishes ends after --duration with a warning and an empty, valid bag."""
    recorder = RosProcess([executable("globalgen"), "record", "--topics", "/nobody/here", "--out",
                           str(tmp_path / "empty"), "--duration", "1"], name="globalgen_record_empty")
    try:
        assert recorder.wait(timeout=60.0) == 0, recorder.output()
        assert "no publisher seen on /nobody/here" in recorder.output()
    finally:
        recorder.stop()
    assert list(read_bag(tmp_path / "empty")) == []
