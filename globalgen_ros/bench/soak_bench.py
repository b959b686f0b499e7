"""Soak benchmark: globalgen_node under a mixed stream at full rate, with its memory, files and threads sampled.

    globalgen bench --suite soak [-n 20000 | --minutes M] [--json]

Starts globalgen_node (cloud enabled towards a real flaky chat-completions server on 127.0.0.1 that fails every
other request) and sends, keeping up to `--window` transcripts in flight: edge commands (held-out prompts), each
in a session of its own with a long id (so tens of thousands of sessions pass through), stop phrases (the reflex),
long dictations (deferred to the flaky cloud) and bad inputs (empty, an unknown language tag, an id of 200
characters). Samples the node's RSS, open file descriptors and threads every `--sample-every` answers, and the KV
cache's bytes from /diagnostics. Prints a table and a JSON line: `answered`, `lost`, `duplicates`,
`rss_growth_kb_per_10k` (slope of RSS over answers after the first 20 %), `fd_growth` (descriptors that are not
sockets) and `thread_growth` (the floor of the last samples over the floor of the first), `fds_min` / `fds_max`
(all descriptors), `p95_ms` (edge answers, queueing in the window included).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from globalgen_ros.bench.node_bench import _matched, percentiles, ros_environment, start_node

DICTATION = "Please write down what I am saying for the minutes of today's meeting about the budget. " * 14
BAD = [("", ""), ("navigate home", "en-US; drop table"), ("导航到西单", "x" * 50)]


def proc_sample(pid: int) -> dict:
    """Return the RSS (kB), threads and open file descriptors of process `pid` from /proc: all of them, and those
    that are not sockets (a socket to the cloud in flight comes and goes; a leaked file or pipe stays)."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    links = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            links.append(os.readlink(fd))
        except OSError:  # closed while we looked
            pass
    return {"rss_kb": int(status["VmRSS"].split()[0]), "threads": int(status["Threads"]), "fds": len(links),
            "files": sum(not link.startswith("socket:") for link in links)}


def next_request(i: int, prompts: list[str]) -> dict:
    """Return the i-th request of the mixed stream (10 % stops, 10 % deferred, 10 % bad input, 70 % edge)."""
    kind = ("edge", "edge", "stop", "edge", "cloud", "edge", "bad", "edge", "edge", "edge")[i % 10]
    session = f"soak-session-{i:08d}-" + "s" * 90  # a new long session id per request
    if kind == "stop":
        return {"kind": kind, "text": ("stop", "停车！", "stop stop, there's a wall")[i % 3], "session_id": session}
    if kind == "cloud":
        return {"kind": kind, "text": DICTATION, "session_id": session}
    if kind == "bad":
        text, language = BAD[(i // 10) % len(BAD)]
        uid = f"soak-{i}-" + "u" * 190 if (i // 10) % 4 == 3 else None  # over 128: ERROR, id cut to 128
        return {"kind": kind, "text": text, "language": language, "session_id": session, "utterance_id": uid}
    return {"kind": kind, "text": prompts[i % len(prompts)], "session_id": session}


def cache_bytes(client) -> int:
    """Return the KV cache's bytes in use from the latest /diagnostics, or -1."""
    if not client.diagnostics:
        return -1
    values = {kv.key: kv.value for kv in client.diagnostics[-1].status[0].values}
    return int(float(values.get("cache_used_bytes", -1)))


def soak(client, pid: int, prompts: list[str], n: int, minutes: float | None, window: int, sample_every: int):
    """Send the mixed stream; return (uids sent, samples, edge latencies in ms)."""
    sent: dict[str, float] = {}
    kinds: dict[str, str] = {}
    samples, edge_ms, i = [], [], 0
    end = time.monotonic() + minutes * 60.0 if minutes else None
    outstanding: list[str] = []
    while (i < n if end is None else time.monotonic() < end) or outstanding:
        if (i < n if end is None else time.monotonic() < end) and len(outstanding) < window:
            req = next_request(i, prompts)
            uid, t = client.send(req["text"], language=req.get("language", ""), session_id=req["session_id"],
                                 utterance_id=req.get("utterance_id") or f"soak-{i}")
            uid = uid[:128]  # the node answers an over-long id with its first 128 characters
            sent[uid], kinds[uid] = t, req["kind"]
            outstanding.append(uid)
            i += 1
            continue
        client.executor.spin_once(timeout_sec=0.05)
        done = [u for u in outstanding if u in client.finals]
        for u in done:
            outstanding.remove(u)
            if kinds[u] == "edge":
                edge_ms.append((client.finals[u][0][0] - sent[u]) * 1000.0)
        answered = len(sent) - len(outstanding)
        if done and answered // sample_every > len(samples) - 1:
            samples.append({"answered": answered, "cache_bytes": cache_bytes(client), **proc_sample(pid)})
        if outstanding and time.perf_counter() - sent[outstanding[0]] > 60.0:
            break  # something is lost: stop waiting for it
    return sent, samples, edge_ms


def growth(samples: list[dict], key: str) -> float:
    """Return the least-squares slope of `key` per answered utterance, after the first 20 % of the run (the KV
    cache's tiers fill up to their budgets first)."""
    rest = [s for s in samples if s["answered"] >= 0.2 * samples[-1]["answered"]]
    if len(rest) < 2:
        return 0.0
    x = np.array([s["answered"] for s in rest], float)
    y = np.array([s[key] for s in rest], float)
    return float(np.polyfit(x, y, 1)[0])


def baseline_growth(samples: list[dict], key: str) -> int:
    """Return how much the floor of `key` rose: the least of the last five samples minus the least of the first
    five (a socket to the cloud in flight at one sample is not a leak)."""
    if len(samples) < 2:
        return 0
    return min(s[key] for s in samples[-5:]) - min(s[key] for s in samples[:5])


def run(args) -> int:
    """Run the soak; print a table, then one JSON line."""
    import rclpy

    from globalgen_ros.bench.chat_server import ChatServer
    from globalgen_ros.bench.decode_bench import load_cases
    from globalgen_ros.ros.client import NodeClient

    n = getattr(args, "n", None) or 20_000
    prompts = [c["text"] for c in load_cases(getattr(args, "prompts", None), 200)]
    tmp = Path(tempfile.mkdtemp(prefix="globalgen_soak_"))
    env = ros_environment(str(tmp / "ros_log"))
    os.environ.update({k: env[k] for k in ("ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_DOMAIN_ID", "ROS_LOG_DIR")})
    with ChatServer(keep=16) as cloud:
        cloud.mode = "flaky"
        args.extra_overrides = ["cloud.enabled:=true", f"cloud.base_url:={cloud.base_url}", "cloud.retries:=0",
                                "session.max_sessions:=256",
                                "diagnostics.period_s:=0.5"]
        process = start_node(env, tmp / "node.log", args)
        context = rclpy.Context()
        rclpy.init(context=context)
        client = NodeClient(context=context)
        try:
            client.spin_until(lambda: process.poll() is not None or _matched(client), 120.0, "globalgen_node")
            if process.poll() is not None:
                print(f"globalgen_node exited with {process.returncode}: see {tmp / 'node.log'}", file=sys.stderr)
                return 1
            for text in prompts[:20]:
                client.ask(text, timeout=60.0)
            start = time.monotonic()
            sent, samples, edge_ms = soak(client, process.pid, prompts, n, getattr(args, "minutes", None),
                                          getattr(args, "window", 8), getattr(args, "sample_every", 500))
            wall = time.monotonic() - start
            answered = sum(1 for u in sent if u in client.finals)
            duplicates = sum(len(client.finals[u]) - 1 for u in sent if u in client.finals)
        finally:
            client.close()
            context.try_shutdown()
            process.send_signal(2)
            process.wait(30)
    p50, p95 = percentiles(edge_ms)
    first = samples[0] if samples else {"fds": 0, "threads": 0, "rss_kb": 0}
    summary = {"suite": "soak", "sent": len(sent), "answered": answered, "lost": len(sent) - answered,
               "duplicates": duplicates, "wall_s": round(wall, 1), "per_s": round(answered / wall, 1),
               "rss_growth_kb_per_10k": round(growth(samples, "rss_kb") * 10_000, 1),
               "fd_growth": baseline_growth(samples, "files"), "thread_growth": baseline_growth(samples, "threads"),
               "fds_min": min(s["fds"] for s in samples) if samples else 0,
               "fds_max": max(s["fds"] for s in samples) if samples else 0,
               "rss_kb_first": first["rss_kb"], "rss_kb_last": samples[-1]["rss_kb"] if samples else 0,
               "cache_bytes_last": samples[-1]["cache_bytes"] if samples else -1,
               "p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "cloud_requests": cloud.served}
    if not getattr(args, "json", False):
        print(f"{'answered':>9} {'rss kB':>9} {'fds':>5} {'threads':>8} {'cache bytes':>12}")
        for s in samples[:: max(1, len(samples) // 12)] + samples[-1:]:
            print(f"{s['answered']:>9} {s['rss_kb']:>9} {s['fds']:>5} {s['threads']:>8} {s['cache_bytes']:>12}")
    print(json.dumps(summary))
    return 0 if summary["lost"] == 0 and summary["duplicates"] == 0 else 1


def main(argv: list[str] | None = None) -> int:
    """Run the soak without the globalgen CLI (python -m globalgen_ros.bench.soak_bench)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("-n", "--n", type=int, default=20_000)
    parser.add_argument("--minutes", type=float)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--sample-every", dest="sample_every", type=int, default=500)
    parser.add_argument("--prompts")
    parser.add_argument("--model-dir", dest="model_dir")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
