"""`globalgen record`: turn a script of timed utterances, or live topics, into a rosbag2 bag."""

from __future__ import annotations

import argparse
import sys
import time

from globalgen_ros.bags.io import STORAGES, BagError, BagWriter, write_script_bag
from globalgen_ros.bags.script import ScriptError, load_script
from globalgen_ros.bags.types import TRANSCRIPT_TOPIC, MessageDefinitionError


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the `record` subcommand."""
    p = subparsers.add_parser(
        "record", help="write a script of utterances (or live topics) into a rosbag2 bag",
        description="Script mode: globalgen record SCRIPT --out BAG turns a YAML/JSONL script of timed utterances "
                    "(offset, text, language, session, ...) into Transcript messages. Live mode: globalgen record "
                    "--topics T [T ...] --out BAG --duration S records topics of a running system.")
    p.add_argument("script", nargs="?", help="YAML or JSONL script of timed utterances (see bags/scripts/)")
    p.add_argument("--out", required=True, help="bag directory to create (must not exist)")
    p.add_argument("--storage", choices=sorted(STORAGES), default="mcap", help="rosbag2 storage (default mcap)")
    p.add_argument("--topic", default=TRANSCRIPT_TOPIC, help=f"topic of the transcripts (default {TRANSCRIPT_TOPIC})")
    p.add_argument("--start-time", type=float, help="unix seconds of offset 0 (default: script start_time or now)")
    p.add_argument("--topics", nargs="+", metavar="TOPIC", help="record these live topics instead of a script")
    p.add_argument("--duration", type=float, help="seconds to record live topics (default: until Ctrl-C)")
    return p


def record_live(topics: list[str], out: str, storage: str, duration: float | None) -> int:
    """Record live topics into a bag for duration seconds (or until Ctrl-C)."""
    import rclpy
    from rclpy.executors import ExternalShutdownException

    from globalgen_ros.bags.recorder import TopicRecorder

    with BagWriter(out, storage) as writer:
        try:
            with rclpy.init():
                recorder = TopicRecorder(writer, topics)
                deadline = None if duration is None else time.monotonic() + duration
                try:
                    while deadline is None or time.monotonic() < deadline:
                        rclpy.spin_once(recorder, timeout_sec=0.1)
                except (KeyboardInterrupt, ExternalShutdownException):
                    pass
                counts, pending = dict(recorder.counts), recorder.pending
                recorder.destroy_node()
        except (KeyboardInterrupt, ExternalShutdownException):
            counts, pending = {}, topics
    for topic, count in counts.items():
        print(f"{topic}: {count} messages")
    if pending:
        print(f"warning: no publisher seen on {', '.join(pending)} (check the names and ROS_DOMAIN_ID)",
              file=sys.stderr)
    print(f"wrote {sum(counts.values())} messages to {out}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Record a script or live topics; return the exit status."""
    if bool(args.script) == bool(args.topics):
        print("error: give either SCRIPT or --topics (not both, not neither)", file=sys.stderr)
        return 2
    if args.duration is not None and args.duration <= 0:
        print(f"error: --duration must be > 0 seconds, got {args.duration}", file=sys.stderr)
        return 2
    try:
        if args.topics:
            return record_live(args.topics, args.out, args.storage, args.duration)
        script = load_script(args.script)
        count = write_script_bag(script, args.out, storage=args.storage, topic=args.topic,
                                 start_time=args.start_time)
    except (ScriptError, BagError, MessageDefinitionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    span = script.utterances[-1].offset - script.utterances[0].offset
    print(f"wrote {count} transcripts ({span:.1f} s) on {args.topic} to {args.out} ({args.storage})")
    return 0
