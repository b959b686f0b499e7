"""`globalgen replay`: play a bag's transcripts into the running node and report its answers."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from globalgen_ros.bags.io import STORAGES, BagError, BagMessage, BagWriter, read_bag
from globalgen_ros.bags.report import Outcome, summary, summary_text, table
from globalgen_ros.bags.types import TRANSCRIPT, MessageDefinitionError


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the `replay` subcommand."""
    p = subparsers.add_parser(
        "replay", help="replay a bag's transcripts into the running globalgen_node and report the answers",
        description="Publishes the Transcript messages of BAG at their recorded timing (divided by --rate) to the "
                    "running globalgen_node over DDS, collects globalgen/response and globalgen/intent, optionally "
                    "writes everything to --out, and prints a table per utterance and a summary.")
    p.add_argument("bag", help="rosbag2 bag directory holding globalgen_ros/msg/Transcript messages")
    p.add_argument("--rate", type=float, default=1.0, help="playback speed factor (default 1.0)")
    p.add_argument("--out", help="bag directory to write transcripts, replies and intents to")
    p.add_argument("--storage", choices=sorted(STORAGES), default="mcap", help="storage of --out (default mcap)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for answers after the last send")
    p.add_argument("--wait-node", type=float, default=30.0, help="seconds to wait for the node to appear")
    p.add_argument("--stream", action="store_true", help="also record globalgen/response_stream")
    p.add_argument("--json", action="store_true", help="print the summary as a final JSON line too")
    return p


def transcripts(path: str | Path) -> list[BagMessage]:
    """Return the Transcript messages of a bag, or raise BagError if it has none."""
    messages = list(read_bag(path, msgtypes=[TRANSCRIPT]))  # other topics of a robot's bag are left alone
    if not messages:
        raise BagError(f"{path} holds no {TRANSCRIPT} messages; record one with `globalgen record SCRIPT --out BAG`")
    return messages


def replay_bag(player, messages: list[BagMessage], *, rate: float, timeout_s: float, wait_node_s: float,
               on_answer=None) -> list[Outcome]:
    """Wait for the node on the bag's transcript topic, then play the messages through the player."""
    for topic in dict.fromkeys(m.topic for m in messages):
        player.wait_for_node(topic, wait_node_s)
    return player.play(messages, rate=rate, timeout_s=timeout_s, on_answer=on_answer)


def run(args: argparse.Namespace) -> int:
    """Replay one bag; exit 0 when every final transcript got exactly one final answer."""
    import rclpy
    from rclpy.executors import ExternalShutdownException
    from tqdm import tqdm

    from globalgen_ros.bags.player import BagPlayer

    if args.rate <= 0:
        print(f"error: --rate must be > 0, got {args.rate}", file=sys.stderr)
        return 2
    try:
        messages = transcripts(args.bag)
        writer = BagWriter(args.out, args.storage) if args.out else None
    except (BagError, MessageDefinitionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finals = sum(m.msg.is_final for m in messages)
    try:
        with rclpy.init():
            player = BagPlayer(writer=writer, stream=args.stream)
            try:
                with tqdm(total=finals, desc="answers", unit="utt", disable=None, file=sys.stderr) as bar:
                    outcomes = replay_bag(player, messages, rate=args.rate, timeout_s=args.timeout,
                                          wait_node_s=args.wait_node, on_answer=lambda o: bar.update())
                unexpected = player.unexpected
            finally:
                player.close()
    except TimeoutError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, ExternalShutdownException):
        return 130
    finally:
        if writer is not None:
            writer.close()
    print(table(outcomes))
    stats = summary(outcomes)
    print(summary_text(stats))
    if unexpected:
        print(f"note: {unexpected} final replies for utterances not in this bag (another publisher?)")
    if args.out:
        print(f"wrote transcripts, replies and intents to {args.out}")
    if args.json:
        print(json.dumps(stats, ensure_ascii=False))
    return 0 if stats["answered_once"] == stats["utterances"] else 1
