"""`globalgen demo`: start globalgen_node, replay the bundled bags through it, print the conversation."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from globalgen_ros.bags.io import BagError
from globalgen_ros.bags.report import Outcome, summary, summary_text

REPO = Path(__file__).resolve().parents[2]
BAGS = ("incar_zh", "robot_en", "mixed")
TITLES = {"incar_zh": "in-car session, Chinese", "robot_en": "robot session, English",
          "mixed": "mixed: zh + en, a long-context request, emergency stops"}


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the `demo` subcommand."""
    p = subparsers.add_parser(
        "demo", help="start globalgen_node and replay the bundled bags through it (no network)",
        description="Starts globalgen_node (console script, own process, config/globalgen.yaml), waits until it is "
                    "active, replays the bundled bags (bags/) through it over DDS on this machine only and prints "
                    "the conversation with latencies and tokens per forward, then a summary.")
    p.add_argument("--bags", nargs="+", metavar="BAG", help="bag directories to replay (default: the bundled ones)")
    p.add_argument("--rate", type=float, default=2.0, help="playback speed factor (default 2.0)")
    p.add_argument("--params-file", help="node parameters (default: config/globalgen.yaml)")
    p.add_argument("--node-timeout", type=float, default=180.0, help="seconds to wait for the node to be active")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for answers after a bag's last send")
    p.add_argument("--json", action="store_true", help="print the summary as a final JSON line too")
    return p


def shipped(*parts: str) -> Path:
    """Return a shipped file: in the source tree, else under <prefix>/share/globalgen_ros."""
    for root in (REPO, Path(sys.prefix) / "share" / "globalgen_ros"):
        if (path := root.joinpath(*parts)).exists():
            return path
    raise FileNotFoundError(f"{'/'.join(parts)} not found in {REPO} or {sys.prefix}/share/globalgen_ros; "
                            "run from the repository or reinstall (bash scripts/setup_venv.sh)")


def ros_environment() -> None:
    """Keep ROS 2 on this machine and in a domain of its own unless the caller chose one."""
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ.setdefault("ROS_DOMAIN_ID", str(1 + os.getpid() % 100))
    os.environ.setdefault("ROS_LOG_DIR", tempfile.mkdtemp(prefix="globalgen_demo_log_"))
    if (Path(sys.prefix) / "share" / "ament_index").is_dir():  # the venv build is an ament prefix
        os.environ.setdefault("AMENT_PREFIX_PATH", sys.prefix)


def start_node(params_file: Path, log_path: Path) -> subprocess.Popen:
    """Start globalgen_node as its own process, its output into log_path."""
    script = Path(sys.executable).with_name("globalgen_node")
    argv = [str(script)] if script.is_file() else [sys.executable, "-m", "globalgen_ros.ros.node"]
    if not script.is_file() and (found := shutil.which("globalgen_node")):
        argv = [found]
    log_path.parent.mkdir(parents=True, exist_ok=True)  # ROS_LOG_DIR may name a folder nobody made yet
    with open(log_path, "wb") as log:
        return subprocess.Popen([*argv, "--ros-args", "--params-file", str(params_file)], stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT)


def wait_active(player, node: subprocess.Popen, topic: str, timeout_s: float, log_path: Path) -> None:
    """Wait until the node subscribes (it does so only once active); fail early if its process exits."""
    deadline = time.monotonic() + timeout_s
    while True:
        if node.poll() is not None:
            raise RuntimeError(f"globalgen_node exited with {node.returncode} while starting:\n"
                               + log_path.read_text(errors="replace")[-3000:])
        try:
            player.wait_for_node(topic, min(1.0, max(0.1, deadline - time.monotonic())))
            return
        except TimeoutError:
            if time.monotonic() > deadline:
                raise


def stop_node(node: subprocess.Popen) -> int:
    """Interrupt the node like Ctrl-C; kill it if it does not exit within 15 s."""
    if node.poll() is None:
        node.send_signal(signal.SIGINT)
        try:
            node.wait(15)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait()
    return node.returncode


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def say(o: Outcome) -> None:
    """Print one exchange of the conversation as soon as its answer arrives."""
    slots = ", ".join(f"{k}={v}" for k, v in o.slots.items())
    tpf = f"{o.tokens / o.forwards:.2f} tok/fwd" if o.forwards else o.source or "-"
    print(f"  user  [{o.utterance_id}] {_short(o.text)}")
    print(f"  robot {_short(o.reply or o.error)}")
    print(f"        -> {o.intent}({slots})  {o.status_name}  {o.latency_ms:.1f} ms  {tpf}", flush=True)


def run(args: argparse.Namespace) -> int:
    """Run the demo; exit 0 when every utterance got exactly one final answer."""
    ros_environment()
    import rclpy
    from rclpy.executors import ExternalShutdownException

    from globalgen_ros.bags.player import BagPlayer
    from globalgen_ros.cli.replay import replay_bag, transcripts

    try:
        bags = [Path(b) for b in args.bags] if args.bags else [shipped("bags", name) for name in BAGS]
        params_file = Path(args.params_file) if args.params_file else shipped("config", "globalgen.yaml")
        plays = [(bag, transcripts(bag)) for bag in bags]
    except (FileNotFoundError, BagError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    log_path = Path(os.environ["ROS_LOG_DIR"]) / "globalgen_node_demo.log"
    print(f"starting globalgen_node (ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']}, log {log_path}) ...", flush=True)
    node, outcomes, started = start_node(params_file, log_path), [], time.monotonic()
    try:
        with rclpy.init():
            player = BagPlayer(name="globalgen_demo")
            try:
                wait_active(player, node, plays[0][1][0].topic, args.node_timeout, log_path)
                print(f"globalgen_node is active ({time.monotonic() - started:.1f} s)\n")
                for bag, messages in plays:
                    print(f"== {bag.name}: {TITLES.get(bag.name, str(bag))} ==")
                    outcomes += replay_bag(player, messages, rate=args.rate, timeout_s=args.timeout,
                                           wait_node_s=args.node_timeout, on_answer=say)
                    print()
            finally:
                player.close()
    except (TimeoutError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        stop_node(node)
        return 1
    except (KeyboardInterrupt, ExternalShutdownException):
        stop_node(node)
        return 130
    code = stop_node(node)
    stats = summary(outcomes)
    print(summary_text(stats))
    if code not in (0, -signal.SIGINT):
        print(f"warning: globalgen_node exited with {code}; see {log_path}", file=sys.stderr)
    if args.json:
        print(json.dumps(stats, ensure_ascii=False))
    return 0 if stats["answered_once"] == stats["utterances"] else 1
