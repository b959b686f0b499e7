"""`globalgen demo`: starts globalgen_node, replays the bundled bags, exits 0 with one final answer each."""

from __future__ import annotations

import json

from ros_harness import RosProcess, executable

from globalgen_ros.bags import read_bag
from globalgen_ros.cli.demo import BAGS, shipped


def test_demo_answers_every_utterance_once(tmp_path):
    """The demo prints the conversation and a summary counting exactly one final answer per utterance (its node's
    log goes to a ROS_LOG_DIR that does not exist yet: the demo makes it)."""
    utterances = sum(m.msg.is_final for name in BAGS for m in read_bag(shipped("bags", name)))
    log_dir = tmp_path / "new" / "ros_log"
    demo = RosProcess([executable("globalgen"), "demo", "--rate", "4", "--json"], name="globalgen_demo",
                      env={"ROS_LOG_DIR": str(log_dir)})
    try:
        assert demo.wait(timeout=400.0) == 0, demo.output()
        out = demo.output()
    finally:
        demo.stop()
    stats = json.loads(out.strip().splitlines()[-1])
    assert stats["utterances"] == stats["answered_once"] == utterances
    assert f"{utterances} utterances: {utterances} answered exactly once" in out
    assert "globalgen_node is active" in out and (log_dir / "globalgen_node_demo.log").stat().st_size > 0
    for name in BAGS:
        assert f"== {name}:" in out
    assert "tok/fwd" in out and "emergency stop" in out and "导航到虹桥火车站" in out
    assert stats["status"].get("FALLBACK", 0) + stats["status"].get("DEFERRED_TO_CLOUD", 0) >= 1  # long request
