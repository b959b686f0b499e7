"""`globalgen bench --suite cache`: session reuse vs recomputation, int8 vs fp32 warm KV, memory over 10k sessions.

One process. Held-out multi-turn sessions (4-6 turns, unseen templates and slot values) are replayed round-robin,
several at a time (so each follow-up finds the hot buffer holding another session and is served by the warm
tier), turn by turn with the same text history, by assistants on the same model:
- speed, with the default strategy (`parallel`): `reuse` (the default cache: int8 warm tier, session and prefix
  reuse) against `recompute` (reuse off: every prompt prefilled from scratch), interleaved, order rotating;
- agreement, with `ar` (one token per forward, so the batch layout of each forward is the same in every mode and
  only the K/V differs): `fp32` warm tier against `recompute` (must be identical), `int8` (the default: int8
  blocks, each prompt's most recent tokens fp32) and `int8_all` (those int8 too) against `fp32`.
Then 10,000 simulated sessions (cache_memory.py) check peak bytes against the budget and that process memory
stays flat. Prints a table; the last line is one JSON object.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from globalgen_ros.bench.cache_memory import simulate
from globalgen_ros.cache.blocks import common_prefix
from globalgen_ros.cache.tiered import CacheConfig

SPEED = {"reuse": {}, "recompute": {"reuse": False}}
AGREEMENT = {"recompute": {"reuse": False}, "fp32": {"warm_format": "fp32", "tail_format": "fp32"},
             "int8": {"warm_format": "int8"}, "int8_all": {"warm_format": "int8", "tail_format": "int8"}}


def held_out_sessions(n: int, seed: int = 0) -> list[list[str]]:
    """Return n sessions of 4-6 held-out user turns (two seeded held-out dialogues each)."""
    from globalgen_ros.corpus.build import Builder
    from globalgen_ros.schema import load_schema

    builder, rng = Builder(load_schema(), seed, values_per_kind=1500), random.Random(seed + 5)
    return [[t["user"] for _ in range(2)
             for t in builder.dialogue(rng, held_out=True, multi_turn=1.0, max_turns=3)["turns"]]
            for _ in range(n)]


def make_assistants(args, modes: dict[str, dict], strategy: str) -> dict:
    """Return one assistant per mode: same model, decoding options and forward cost curve; own cache parameters."""
    from globalgen_ros.assistant import Assistant

    kw = {"threads": getattr(args, "threads", 1), "strategy": strategy}
    calibration = getattr(args, "calibration", "measure")
    bots = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode, cache in modes.items():
            bots[mode] = Assistant(getattr(args, "model_dir", None), calibration=calibration,
                                   cache=CacheConfig(**cache), **kw)
            if calibration == "measure" and bots[mode].decoder.cost is not None:  # measured once, shared: the
                calibration = str(Path(tmp) / "cost.json")  # tree sizes must not differ between the modes
                bots[mode].decoder.cost.save(calibration)
    return bots


def replay(assistants: dict, sessions: list[list[str]], max_new: int, concurrent: int = 4) -> dict:
    """Replay sessions round-robin, `concurrent` at a time, through every assistant with the same text history
    (the first assistant's replies); return per mode the follow-up latencies and token ids."""
    modes = list(assistants)
    out = {m: {"latency": [], "ttft": [], "first_text": [], "first_latency": [], "tokens": [], "forwards": []}
           for m in modes}
    for start in range(0, len(sessions), concurrent):
        group = sessions[start:start + concurrent]
        histories = [[] for _ in group]
        for turn in range(max(len(s) for s in group)):
            for g, session in enumerate(group):
                if turn >= len(session):
                    continue
                k = (turn + g) % len(modes)
                replies, first_text = {}, {}
                for m in modes[k:] + modes[:k]:
                    replies[m], first_text[m] = timed_respond(assistants[m], session[turn], histories[g],
                                                              f"s{start + g}", max_new)
                for m, r in replies.items():
                    if turn:
                        out[m]["latency"].append(r.latency_ms)
                        out[m]["first_text"].append(first_text[m])
                        out[m]["ttft"].append(r.ttft_ms)
                        out[m]["tokens"].append(list(r.token_ids))
                        out[m]["forwards"].append(r.forwards)
                    else:
                        out[m]["first_latency"].append(r.latency_ms)
                histories[g].append((session[turn], replies[modes[0]].raw))
    return out


def timed_respond(bot, text: str, history: list, session_id: str, max_new: int):
    """Return the reply and the ms until its first spoken text was streamed (the header, so the intent, is done).

    The reply's latency ends when it is decoded; filing its K/V follows, as in the node (only the reuse mode
    files anything: with reuse off nothing is stored)."""
    t0, first = time.perf_counter(), []
    reply = bot.respond(text, history=history, session_id=session_id, max_new_tokens=max_new, save_later=True,
                        on_text=lambda _: first or first.append((time.perf_counter() - t0) * 1e3))
    bot.save_pending()  # as the node does: the turn's K/V is filed after the answer is out
    return reply, first[0] if first else reply.latency_ms


def agreement(a: list[list[int]], b: list[list[int]]) -> tuple[float, float]:
    """Return (tokens of b up to the first difference with a / all tokens of b, share of identical replies)."""
    common = sum(common_prefix(x, y) for x, y in zip(a, b, strict=True))
    return common / max(1, sum(map(len, b))), sum(x == y for x, y in zip(a, b, strict=True)) / max(1, len(b))


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def run(args) -> int:
    """Run the cache benchmark; print a table (unless --json) and the JSON line."""
    n_sessions = max(4, min(getattr(args, "n", 200) // 5, 60))
    max_new = getattr(args, "max_new_tokens", 64)
    sessions = held_out_sessions(n_sessions + 2)
    t0 = time.perf_counter()
    speed_bots = make_assistants(args, SPEED, "parallel")
    replay(speed_bots, sessions[:2], max_new, concurrent=2)  # warm-up (not measured)
    for bot in speed_bots.values():
        bot.cache.reset_stats()
    speed = replay(speed_bots, sessions[2:], max_new)
    stats = speed_bots["reuse"].cache.stats()
    dims = speed_bots["reuse"].model.dims
    del speed_bots
    agree_bots = make_assistants(args, AGREEMENT, "ar")
    agree = replay(agree_bots, sessions[2:], max_new)
    del agree_bots
    replay_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    memory = simulate(dims.kv_row_shape, CacheConfig(), sessions=max(1, getattr(args, "sessions", 10_000)))
    simulate_s = time.perf_counter() - t0

    warm, warm_same = agreement(agree["fp32"]["tokens"], agree["int8"]["tokens"])
    warm_all, warm_all_same = agreement(agree["fp32"]["tokens"], agree["int8_all"]["tokens"])
    exact, exact_same = agreement(agree["recompute"]["tokens"], agree["fp32"]["tokens"])
    summary = {
        "followup_speedup": round(median(speed["recompute"]["latency"]) / median(speed["reuse"]["latency"]), 3),
        "followup_ttft_speedup": round(median(speed["recompute"]["ttft"]) / median(speed["reuse"]["ttft"]), 3),
        "followup_first_text_speedup": round(median(speed["recompute"]["first_text"])
                                             / median(speed["reuse"]["first_text"]), 3),
        "followup_ms": {m: round(median(speed[m]["latency"]), 2) for m in SPEED},
        "followup_ttft_ms": {m: round(median(speed[m]["ttft"]), 2) for m in SPEED},
        "followup_first_text_ms": {m: round(median(speed[m]["first_text"]), 2) for m in SPEED},
        "first_turn_ms": {m: round(median(speed[m]["first_latency"]), 2) for m in SPEED},
        "followup_forwards": {m: round(statistics.mean(speed[m]["forwards"]), 2) for m in SPEED},
        "followup_reply_tokens": round(statistics.mean(map(len, speed["reuse"]["tokens"])), 1),
        "warm_agreement": round(warm, 4), "warm_identical_replies": round(warm_same, 4),
        "warm_agreement_int8_tail": round(warm_all, 4), "warm_identical_replies_int8_tail": round(warm_all_same, 4),
        "fp32_reuse_agreement": round(exact, 4), "fp32_reuse_identical": round(exact_same, 4),
        "followup_turns": len(speed["reuse"]["latency"]), "sessions": len(sessions) - 2,
        "reuse_ratio": round(stats["reuse_ratio"], 4),
        "hit_rate": {"hot": rate(stats["hot"]), "warm": rate(stats["warm"])},
        "replay_peak_bytes": stats["peak_bytes"], "replay_budget_bytes": stats["budget_bytes"],
        "peak_bytes": memory["peak_bytes"], "budget_bytes": memory["budget_bytes"],
        "peak_within_budget": memory["peak_bytes"] <= memory["budget_bytes"],
        "simulated_sessions": memory["sessions"], "simulated_turns": memory["turns"],
        "sim_hit_rate": {"hot": rate(memory["stats"]["hot"]), "warm": rate(memory["stats"]["warm"])},
        "sim_evictions": memory["stats"]["warm"]["evictions"],
        "sessions_expired": memory["stats"]["sessions"]["expired"],
        "rss_first_mb": round(memory["rss_first_mb"], 1), "rss_last_mb": round(memory["rss_last_mb"], 1),
        "rss_growth_kb_per_1k_sessions": round(memory["rss_growth_kb_per_1k_sessions"], 1),
        "rss_flat": memory["rss_flat"], "replay_s": round(replay_s, 1), "simulate_s": round(simulate_s, 1),
    }
    if not getattr(args, "json", False):
        print_table(summary)
    print(json.dumps(summary))
    return 0


def rate(tier: dict) -> float:
    total = tier["hits"] + tier["misses"]
    return round(tier["hits"] / total, 4) if total else 0.0


def print_table(r: dict) -> None:
    print(f"{r['followup_turns']} follow-up turns of {r['sessions']} held-out sessions, replayed 4 at a time")
    print(f"{'mode':<10} {'follow-up reply ms':>19} {'first token ms':>15} {'first text ms':>14} {'forwards':>9} "
          f"{'first turn ms':>14}")
    for m in SPEED:
        print(f"{m:<10} {r['followup_ms'][m]:>19.2f} {r['followup_ttft_ms'][m]:>15.2f} "
              f"{r['followup_first_text_ms'][m]:>14.2f} {r['followup_forwards'][m]:>9.2f} "
              f"{r['first_turn_ms'][m]:>14.2f}")
    print(f"follow-up speed-up (recompute / reuse, medians): {r['followup_speedup']:.2f}x whole reply, "
          f"{r['followup_ttft_speedup']:.2f}x first token, {r['followup_first_text_speedup']:.2f}x first reply text "
          f"(intent known)")
    print(f"ar, int8 vs fp32 warm tier: {r['warm_agreement']:.2%} of tokens agree (up to the first difference), "
          f"{r['warm_identical_replies']:.2%} of replies identical (recent tokens fp32, cache.tail_format); with the "
          f"recent tokens int8 too: {r['warm_agreement_int8_tail']:.2%} / {r['warm_identical_replies_int8_tail']:.2%}")
    print(f"ar, fp32 warm tier vs recompute: {r['fp32_reuse_agreement']:.2%} of tokens, "
          f"{r['fp32_reuse_identical']:.2%} of replies identical")
    print(f"reuse ratio {r['reuse_ratio']:.2%}, hit rates hot {r['hit_rate']['hot']:.2%} "
          f"warm {r['hit_rate']['warm']:.2%}; peak {r['replay_peak_bytes']:,} B of {r['replay_budget_bytes']:,} B")
    print(f"{r['simulated_sessions']} simulated sessions ({r['simulated_turns']} turns): peak {r['peak_bytes']:,} B "
          f"<= budget {r['budget_bytes']:,} B: {r['peak_within_budget']}; RSS {r['rss_first_mb']} -> "
          f"{r['rss_last_mb']} MB, trend {r['rss_growth_kb_per_1k_sessions']} kB per 1k sessions, "
          f"flat: {r['rss_flat']}")


def main(argv: list[str] | None = None) -> int:
    from globalgen_ros.cli.bench import main as bench_main

    return bench_main(["--suite", "cache", *(argv or [])])


if __name__ == "__main__":
    raise SystemExit(main())
