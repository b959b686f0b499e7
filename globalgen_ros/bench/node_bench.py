"""Node benchmark: transcript published -> final Response received, through real DDS between two processes.

    globalgen bench --suite node [--json]

Starts globalgen_node from its console script (cloud off, no deadline, so every answer comes from the edge
model), then from this process: the held-out prompts one at a time under each strategy (switched live with a
parameter), and the stop reflex idle and while the model is busy: word-list stops with the model stop path off (the
default), then with it on (`--model-stop`, live parameter) word-list stops and stops only the model reads. Prints a
table and a final JSON line (`p50_ms`, `p95_ms` of `parallel`, `stop_ms`; per strategy under `strategies`; the
model path under `model_path`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

STRATEGIES = ("ar", "parallel", "confident")
SHORT_REPLY_TOKENS = 32  # the latency target is for replies of at most this many tokens


@dataclass
class Session:
    client: object  # globalgen_ros.ros.client.NodeClient
    params: object  # rclpy.parameter_client.AsyncParameterClient


def ros_environment(log_dir: str) -> dict[str, str]:
    """Confine DDS to loopback and pick a free domain id unless the caller chose one."""
    env = dict(os.environ)
    env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    env.setdefault("ROS_LOG_DIR", log_dir)
    env.setdefault("AMENT_PREFIX_PATH", sys.prefix)  # the venv is the ament prefix of the pip build
    if "ROS_DOMAIN_ID" not in env:
        env["ROS_DOMAIN_ID"] = str(os.getpid() % 90 + 5)
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH", "")) if p)
    return env


def start_node(env: dict[str, str], log_path: Path, args) -> subprocess.Popen:
    """Start globalgen_node with the cloud off and a deadline that never fires."""
    exe = Path(sys.executable).with_name("globalgen_node")
    argv = [str(exe)] if exe.is_file() else [sys.executable, "-m", "globalgen_ros.ros.node"]
    model_dir = getattr(args, "model_dir", None)
    overrides = ["cloud.enabled:=false", "watchdog.deadline_ms:=60000.0", "queue.max_size:=64",
                 "reflex.cancel_pending:=false", f"threads:={getattr(args, 'threads', 1)}",
                 f"max_new_tokens:={getattr(args, 'max_new_tokens', 64)}",
                 *([f"model_dir:={model_dir}"] if model_dir else []), *getattr(args, "extra_overrides", [])]
    if getattr(args, "no_understanding", False):
        overrides.append("understanding:=false")
    argv += ["--ros-args", *[arg for o in overrides for arg in ("-p", o)]]
    with open(log_path, "wb") as log:  # the child keeps its own copy of the file descriptor
        return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)


def percentiles(values: list[float]) -> tuple[float, float]:
    """Return (p50, p95) of `values` (0, 0 when empty)."""
    if not values:
        return 0.0, 0.0
    p50, p95 = np.percentile(np.asarray(values), [50, 95])
    return float(p50), float(p95)


def measure_strategy(session, strategy: str, prompts: list[str], warmup: int) -> dict:
    """Ask every prompt once under `strategy`; return end-to-end and in-node latencies."""
    set_param(session, "strategy", strategy)
    for text in prompts[:warmup]:
        session.client.ask(text, timeout=60.0)
    e2e, e2e_short, node, tokens, forwards, statuses = [], [], [], 0, 0, {}
    for text in prompts:
        uid, sent = session.client.send(text)
        final = session.client.wait_final(uid, 60.0)
        ms = (session.client.finals[uid][0][0] - sent) * 1000.0
        e2e.append(ms)
        node.append(final.latency_ms)
        if final.tokens <= SHORT_REPLY_TOKENS:
            e2e_short.append(ms)
        tokens, forwards = tokens + final.tokens, forwards + final.forwards
        statuses[final.status] = statuses.get(final.status, 0) + 1
    (p50, p95), (n50, n95), (s50, s95) = percentiles(e2e), percentiles(node), percentiles(e2e_short)
    return {"n": len(prompts), "p50_ms": p50, "p95_ms": p95, "node_p50_ms": n50, "node_p95_ms": n95,
            "short_n": len(e2e_short), "short_p50_ms": s50, "short_p95_ms": s95,
            "tokens_per_forward": tokens / forwards if forwards else 0.0, "ok": statuses.get(0, 0)}


WORD_STOPS = ("stop", "停车")  # caught by the word lists
MODEL_STOPS = ("End all motion", "立即中止所有动作")  # no listed stop phrase: only the model stops these


def set_param(session, name: str, value) -> None:
    """Set one node parameter live and fail if it is rejected."""
    from rclpy.parameter import Parameter

    future = session.params.set_parameters([Parameter(name, value=value)])
    session.client.spin_until(future.done, 10.0, f"set {name}")
    assert future.result().results[0].successful, future.result().results[0].reason


def measure_stop(session, n: int, busy_text: str, phrases: tuple[str, str] = WORD_STOPS) -> dict:
    """Publish stop phrases idle and right after a request (model busy); time until the stop intent arrives
    over DDS, and in the node (the stop's final Response carries receipt -> publication)."""
    client = session.client
    idle, busy, node_idle, node_busy = [], [], [], []
    for i in range(2 * n):
        if i % 2:
            uid_busy, _ = client.send(busy_text)
        uid, sent = client.send(phrases[0] if i % 4 < 2 else phrases[1])
        client.spin_until(lambda uid=uid: uid in client.intents, 10.0, "stop intent")
        (busy if i % 2 else idle).append((client.intents[uid][0][0] - sent) * 1000.0)
        (node_busy if i % 2 else node_idle).append(client.wait_final(uid, 10.0).latency_ms)
        if i % 2:
            client.wait_final(uid_busy, 60.0)
    (i50, i95), (b50, b95) = percentiles(idle), percentiles(busy)
    return {"stop_idle_p50_ms": i50, "stop_idle_p95_ms": i95, "stop_busy_p50_ms": b50, "stop_busy_p95_ms": b95,
            "stop_final_node_p95_ms": percentiles(node_idle + node_busy)[1]}


def measure_model_stop(session, n: int, busy_text: str, threshold: float) -> dict:
    """With reflex.model_threshold on: word-list stops again (unchanged?), then stops only the model reads."""
    set_param(session, "reflex.model_threshold", threshold)
    try:
        words = measure_stop(session, n, busy_text)
        model = measure_stop(session, n, busy_text, MODEL_STOPS)
    finally:
        set_param(session, "reflex.model_threshold", 0.0)
    return {"threshold": threshold, "words": words, "model": model}


def node_stop_p95(session) -> float:
    """Return the node's own receipt-to-publication stop latency (p95) from /diagnostics."""
    client = session.client
    n = len(client.diagnostics)
    client.spin_until(lambda: len(client.diagnostics) > n, 10.0, "/diagnostics")
    values = {kv.key: kv.value for kv in client.diagnostics[-1].status[0].values}
    return float(values["stop_p95_ms"])


def _matched(client) -> bool:
    try:
        client.wait_for_node(0.0)
    except TimeoutError:
        return False
    return True


def bench_once(args, prompts: list[str], strategies) -> tuple[dict, dict] | None:
    """Start one node, measure every strategy and the stop reflex; return (results per strategy, stop)."""
    import rclpy
    from rclpy.parameter_client import AsyncParameterClient

    from globalgen_ros.ros.client import NodeClient

    tmp = Path(tempfile.mkdtemp(prefix="globalgen_node_bench_"))
    env = ros_environment(str(tmp / "ros_log"))
    os.environ.update({k: env[k] for k in ("ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_DOMAIN_ID", "ROS_LOG_DIR")})
    process = start_node(env, tmp / "node.log", args)
    context = rclpy.Context()
    rclpy.init(context=context)
    client = NodeClient(context=context)
    session = Session(client, AsyncParameterClient(client.node, "/globalgen_node"))
    try:
        client.spin_until(lambda: process.poll() is not None or _matched(client), 120.0, "globalgen_node start")
        if process.poll() is not None:
            raise AssertionError(f"globalgen_node exited with {process.returncode}")
        assert session.params.wait_for_services(timeout_sec=30.0)
        warmup = getattr(args, "warmup", 5)
        results = {s: measure_strategy(session, s, prompts, warmup) for s in strategies}
        stop = measure_stop(session, 20, prompts[0])
        stop["stop_node_p95_ms"] = node_stop_p95(session)
        threshold = getattr(args, "model_stop", 0.0) or 0.0
        if threshold > 0 and not getattr(args, "no_understanding", False):
            stop["model_path"] = measure_model_stop(session, 20, prompts[0], threshold)
    except (TimeoutError, AssertionError) as exc:
        print(f"node benchmark failed: {exc}\nnode log: {tmp / 'node.log'}", file=sys.stderr)
        return None
    finally:
        session.client.close()
        context.try_shutdown()
        process.send_signal(2)
        process.wait(30)
    return results, stop


def print_table(title: str, results: dict, stop: dict) -> None:
    """Print one node's results."""
    print(title)
    print(f"{'strategy':<10} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'p95 ≤32 tok':>12} {'node p50':>9} "
          f"{'node p95':>9} {'tok/fwd':>8}")
    for name, r in results.items():
        print(f"{name:<10} {r['n']:>4} {r['p50_ms']:>8.1f} {r['p95_ms']:>8.1f} {r['short_p95_ms']:>12.1f} "
              f"{r['node_p50_ms']:>9.1f} {r['node_p95_ms']:>9.1f} {r['tokens_per_forward']:>8.2f}")
    print(f"stop reflex over DDS: idle p50 {stop['stop_idle_p50_ms']:.2f} / p95 {stop['stop_idle_p95_ms']:.2f} ms;"
          f" model busy p50 {stop['stop_busy_p50_ms']:.2f} / p95 {stop['stop_busy_p95_ms']:.2f} ms; "
          f"in the node p95 {stop['stop_node_p95_ms']:.2f} ms")
    path = stop.get("model_path")
    if path:
        print(f"with reflex.model_threshold {path['threshold']} (model stop check on its own thread):")
        for name, r in (("word-list stops", path["words"]), ("stops only the model reads", path["model"])):
            print(f"  {name:<27} over DDS idle p50 {r['stop_idle_p50_ms']:.2f} / p95 {r['stop_idle_p95_ms']:.2f} ms;"
                  f" busy p50 {r['stop_busy_p50_ms']:.2f} / p95 {r['stop_busy_p95_ms']:.2f} ms; in the node p95 "
                  f"{r['stop_final_node_p95_ms']:.2f} ms")


def run(args) -> int:
    """Run the node benchmark; print a table, then one JSON line (with --json only the JSON line).

    With --compare, a node whose decoder decides the header (understanding:=false, the baseline) is measured
    first, then the default one, in the same run; the JSON line adds `baseline` and `p95_delta_ms`."""
    from globalgen_ros.bench.decode_bench import load_cases

    strategies = getattr(args, "strategies", None) or STRATEGIES
    prompts = [case["text"] for case in load_cases(getattr(args, "prompts", None), getattr(args, "n", None) or 100)]
    baseline = None
    if getattr(args, "compare", False):
        args.no_understanding = True
        baseline = bench_once(args, prompts, strategies)
        args.no_understanding = False
        if baseline is None:
            return 1
    measured = bench_once(args, prompts, strategies)
    if measured is None:
        return 1
    results, stop = measured
    main = results.get("parallel") or next(iter(results.values()))
    summary = {"suite": "node", "n": len(prompts), "p50_ms": main["p50_ms"], "p95_ms": main["p95_ms"],
               "p95_short_ms": main["short_p95_ms"], "stop_ms": stop["stop_busy_p95_ms"], **stop,
               "strategies": results}
    if baseline is not None:
        base = baseline[0].get("parallel") or next(iter(baseline[0].values()))
        summary["baseline"] = {"p50_ms": base["p50_ms"], "p95_ms": base["p95_ms"], **baseline[1],
                               "strategies": baseline[0]}
        summary["p95_delta_ms"] = main["p95_ms"] - base["p95_ms"]
    if not getattr(args, "json", False):
        if baseline is not None:
            print_table("baseline: the decoder decides intent and slots (understanding:=false)", *baseline)
        print_table("the node as configured" if baseline is None else "candidate: the understanding model decides "
                    "intent and slots", results, stop)
    print(json.dumps(summary))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark without the globalgen CLI (python -m globalgen_ros.bench.node_bench)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("-n", "--n", type=int, default=100, help="held-out prompts per strategy")
    parser.add_argument("--warmup", type=int, default=5, help="prompts asked first and not measured")
    parser.add_argument("--strategies", nargs="+", choices=STRATEGIES, help="default: all")
    parser.add_argument("--prompts", help="JSONL cases with a `text` each (default: the held-out split)")
    parser.add_argument("--model-dir", dest="model_dir")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-new-tokens", dest="max_new_tokens", type=int, default=64)
    parser.add_argument("--compare", action="store_true", help="measure understanding:=false first, same run")
    parser.add_argument("--model-stop", dest="model_stop", type=float, default=0.9,
                        help="also measure stops with reflex.model_threshold set to this (0: skip)")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
