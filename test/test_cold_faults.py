"""Faults of the cold (on-disk) KV tier, produced on real files: every I/O error is a counted miss, never raised.

No filesystem call is mocked. Disk full is a child process with RLIMIT_FSIZE (SIGXFSZ ignored, so a write past
the limit fails with EFBIG, as it would with ENOSPC). Tests run as root here, where `chmod 0o500` does not stop
writes: the read-only directory is made with `chattr +i` (EPERM even for root; skipped where unsupported), and the
chmod variant runs for other users. Other real faults: the cold path is a file, the directory is replaced by a file
mid-run, a block's name is taken by a directory (EISDIR on read and on rename), truncated and corrupted files, a
half-way failing restore, and temporary files of live and dead processes at start-up.

The "model" is a deterministic function of the token prefix (as in test_cache_tiers.py), so every restored row is
checked against what recomputing it gives: a wrong row means a wrong answer.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from globalgen_ros.cache.blocks import block_keys, model_seed
from globalgen_ros.cache.cold_store import ColdStore
from globalgen_ros.cache.tiered import CacheConfig, TieredKVCache

REPO = Path(__file__).resolve().parents[1]
ROW = (2, 2, 2, 8)  # (L, 2, H, D)
BS = 4  # block size


def true_rows(ids) -> np.ndarray:
    """Rows a model would compute for ids: row i is a function of ids[:i + 1]."""
    out, h = np.empty((len(ids), *ROW), np.float32), b"seed"
    for i, t in enumerate(ids):
        h = hashlib.sha256(h + int(t).to_bytes(4, "little")).digest()
        out[i] = np.random.default_rng(int.from_bytes(h[:8], "little")).standard_normal(ROW)
    return out


def serve(cache: TieredKVCache, prompt: list[int]) -> int:
    """One request: restore (rows must equal recomputed ones), prefill the rest, save; return the rows reused."""
    n = cache.restore(prompt)
    assert np.array_equal(cache._hot_ids, np.asarray(prompt[:n], np.int32))
    if cache.config.warm_format == "fp32":
        assert np.array_equal(cache.past(), true_rows(prompt[:n]))
    else:
        assert np.allclose(cache.past(), true_rows(prompt[:n]), atol=0.1, rtol=0)
    cache.commit(true_rows(prompt)[n:])
    cache.save(prompt)
    return n


def config(cold_dir, **kw) -> CacheConfig:
    values = {"warm_bytes": 1 << 20, "block_size": BS, "warm_format": "fp32", "cold_dir": str(cold_dir)} | kw
    return CacheConfig(**values)


def on_disk(root: Path) -> int:
    return sum(p.stat().st_size for p in root.iterdir() if p.is_file())


def tmp_files(root: Path) -> list[Path]:
    return sorted(root.glob("*.tmp"))


def fill_disk(root: Path, prompt: list[int]) -> list[bytes]:
    """Compute prompt once and write its full blocks to root (close()); return the block keys."""
    cache = TieredKVCache(ROW, config(root), model_id="t")
    serve(cache, prompt)
    cache.close()
    keys = block_keys(prompt, BS, model_seed("t"))
    assert all((root / f"{k.hex()}.kv").is_file() for k in keys)
    return keys


# ---- disk full -------------------------------------------------------------------------------------------------
CHILD = r"""
import json, resource, signal, sys
sys.path.insert(0, sys.argv[1])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing us
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[3]), int(sys.argv[3])))
sys.path.insert(0, sys.argv[1] + "/test")
from test_cold_faults import ROW, config, serve
from globalgen_ros.cache.tiered import TieredKVCache
cache = TieredKVCache(ROW, config(sys.argv[2], warm_bytes=3000), model_id="t")  # ~2 blocks: evictions demote
reused = [serve(cache, list(range(2, 40))) for _ in range(2)] + [serve(cache, [1] + list(range(2, 30)))]
cache.close()
cache.close()
print(json.dumps({"reused": reused, **cache.flat_stats()}))
"""


def test_disk_full_is_a_counted_miss_and_leaves_no_temp_files(tmp_path):
    root = tmp_path / "cold"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    # every block file is ~2.6 kB: the limit lets each write start and fail part-way (EFBIG after 1000 bytes)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(REPO), str(root), "1000"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout.splitlines()[-1])
    assert stats["cold_io_errors"] > 0 and "File too large" in stats["cold_last_error"]
    assert stats["cold_inserts"] == 0 and stats["cold_closed"] is True
    assert "cannot write a cold cache file" in proc.stderr  # the counted warning
    assert tmp_files(root) == [] and list(root.glob("*.kv")) == []  # nothing half-written survives
    assert stats["reused"][1] > 0  # the warm tier kept working


def test_the_same_run_without_the_fault_writes_blocks(tmp_path):
    """Control for the disk-full test: the child with a file size limit above the block files' size."""
    root = tmp_path / "cold"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-c", CHILD, str(REPO), str(root), "1000000"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout.splitlines()[-1])
    assert stats["cold_io_errors"] == 0 and stats["cold_inserts"] > 0  # control: without the fault all is written
    written = sorted(root.glob("*.kv"))
    assert written and tmp_files(root) == []


# ---- read-only or broken directories ---------------------------------------------------------------------------
def immutable(path: Path, on: bool) -> bool:
    return subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True).returncode == 0 \
        if shutil.which("chattr") else False


def test_read_only_directory_serves_reads_and_skips_writes(tmp_path):
    root = tmp_path / "cold"
    prompt = list(range(2, 19))  # 4 full blocks
    keys = fill_disk(root, prompt)
    if os.geteuid() == 0:
        if not immutable(root, True):
            pytest.skip("root ignores chmod and chattr +i is not supported here")
    else:
        root.chmod(0o500)
    try:
        cache = TieredKVCache(ROW, config(root, warm_bytes=3000), model_id="t")
        assert serve(cache, prompt + [1]) == 16  # reads work
        serve(cache, list(range(50, 80)))  # evicts warm blocks: their demotion cannot be written
        cache.close()
        stats = cache.flat_stats()
        assert stats["cold_io_errors"] > 0 and stats["cold_inserts"] == 0
        assert "Operation not permitted" in stats["cold_last_error"] or "Permission denied" in stats["cold_last_error"]
        assert sorted(p.name for p in root.iterdir()) == sorted(f"{k.hex()}.kv" for k in keys)
    finally:
        if os.geteuid() == 0:
            immutable(root, False)
        else:
            root.chmod(0o700)


def test_cold_path_is_a_file(tmp_path):
    path = tmp_path / "cold"
    path.write_bytes(b"not a directory")
    cache = TieredKVCache(ROW, config(path, warm_bytes=3000), model_id="t")  # does not raise
    for _ in range(2):
        serve(cache, list(range(2, 40)))
    cache.close()
    stats = cache.flat_stats()
    assert stats["cold_io_errors"] >= 2 and stats["cold_hits"] == 0 and stats["cold_inserts"] == 0
    assert "Not a directory" in stats["cold_last_error"] and path.read_bytes() == b"not a directory"


def test_directory_replaced_by_a_file_mid_run(tmp_path):
    root = tmp_path / "cold"
    prompt = list(range(2, 19))
    fill_disk(root, prompt)
    cache = TieredKVCache(ROW, config(root, warm_bytes=3000), model_id="t")
    shutil.rmtree(root)
    root.write_bytes(b"x")
    assert serve(cache, prompt + [1]) == 0  # reads fail (ENOTDIR): recomputed
    serve(cache, list(range(50, 80)))  # writes fail
    serve(cache, prompt + [1])
    stats = cache.flat_stats()
    assert stats["cold_io_errors"] > 0 and "Not a directory" in stats["cold_last_error"]
    assert stats["cold_inserts"] == 0 and stats["cold_hits"] == 0


def test_directory_removed_mid_run(tmp_path):
    root = tmp_path / "cold"
    fill_disk(root, list(range(2, 19)))
    cache = TieredKVCache(ROW, config(root, warm_bytes=3000), model_id="t")
    shutil.rmtree(root)
    assert serve(cache, list(range(2, 19)) + [1]) == 0  # a vanished file is a plain miss
    serve(cache, list(range(50, 80)))  # demotions cannot be written: counted
    assert cache.flat_stats()["cold_io_errors"] > 0 and not root.exists()


def test_block_name_taken_by_a_directory(tmp_path):
    """EISDIR on read (a miss) and on rename (the write is skipped and its temporary file removed)."""
    root = tmp_path / "cold"
    prompt = list(range(2, 19))
    keys = fill_disk(root, prompt)
    victim = root / f"{keys[1].hex()}.kv"
    victim.unlink()
    victim.mkdir()
    cache = TieredKVCache(ROW, config(root), model_id="t")
    assert serve(cache, prompt + [1]) == 4  # block 0 from disk, block 1 unreadable: recomputed from there
    assert cache.flat_stats()["cold_io_errors"] >= 1
    cache.close()  # demoting block 1 onto a directory fails
    stats = cache.flat_stats()
    assert victim.is_dir() and tmp_files(root) == [] and stats["cold_io_errors"] >= 2
    assert "remove a cold cache file" in stats["cold_last_error"] and "Is a directory" in stats["cold_last_error"]


# ---- corrupt files ---------------------------------------------------------------------------------------------
def test_truncated_and_corrupted_files_are_misses(tmp_path):
    root = tmp_path / "cold"
    prompt = list(range(2, 19))
    keys = fill_disk(root, prompt)
    paths = [root / f"{k.hex()}.kv" for k in keys]
    data = paths[2].read_bytes()
    paths[2].write_bytes(data[: len(data) // 2])  # truncated (e.g. a crash without the rename protocol)
    paths[3].write_bytes(b"")  # empty
    cache = TieredKVCache(ROW, config(root), model_id="t")
    assert serve(cache, prompt + [1]) == 8
    assert cache.flat_stats()["cold_corrupt"] == 1 and not paths[2].exists()
    assert serve(cache, prompt + [1]) == 17  # the hot buffer holds it now
    paths[0].write_bytes(paths[1].read_bytes())  # a valid file under another block's name: token ids differ
    fresh = TieredKVCache(ROW, config(root), model_id="t")
    assert serve(fresh, prompt + [1]) == 0 and fresh.flat_stats()["cold_corrupt"] == 1 and not paths[0].exists()


def forge(path: Path, arrays: dict) -> None:
    """Write a file whose checksum is right but whose content is whatever arrays say."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    payload = buf.getvalue()
    path.write_bytes(hashlib.sha256(payload).digest() + payload)


def test_restore_failing_half_way_keeps_the_hot_cache_consistent(tmp_path):
    """Block 2 of a 4-block prefix fails to verify (a checksummed int8 file with a wrong scale shape, which the
    decoder would fail on half-way) and block 3 cannot be read: the hot buffer holds blocks 0-1 and its ids say
    so, and the previous request's rows it no longer holds are not claimed."""
    root = tmp_path / "cold"
    prompt = list(range(2, 19))
    keys = fill_disk(root, prompt)
    L, _, H, D = ROW
    forge(root / f"{keys[2].hex()}.kv", {
        "tokens": np.asarray(prompt[8:12], np.int32), "group": np.array(BS),
        "k_codes": np.zeros((BS, L, H, D), np.uint8), "v_codes": np.zeros((BS, L, H, D), np.uint8),
        "k_scale": np.ones((1, L, H, D + 1), np.float16), "k_zero": np.zeros((1, L, H, D + 1), np.float16),
        "v_scale": np.ones((BS, L, H, 1), np.float16), "v_zero": np.zeros((BS, L, H, 1), np.float16)})
    (root / f"{keys[3].hex()}.kv").unlink()
    (root / f"{keys[3].hex()}.kv").mkdir()

    cache = TieredKVCache(ROW, config(root), model_id="t")
    other = prompt[:4] + list(range(60, 80))  # shares block 0: its rows 4.. are what the restore overwrites
    assert serve(cache, other) == 4
    assert serve(cache, prompt + [1]) == 8  # blocks 0 (hot) and 1 (disk); 2 is corrupt, so the rest is prefilled
    stats = cache.flat_stats()
    assert stats["cold_corrupt"] == 1 and stats["cold_hits"] == 2 and stats["cold_io_errors"] == 0
    assert serve(cache, other + [7]) == len(other)  # from warm, exact (the buffer's rows 4.. are prompt's now)
    assert serve(cache, prompt + [1, 5]) == len(prompt) + 1  # the recomputed blocks and tail, exactly


def test_restore_with_unreadable_block_mid_prefix(tmp_path):
    """The same with an I/O error (EISDIR) instead of a corrupt file, the hot buffer holding another prompt."""
    root = tmp_path / "cold"
    prompt = list(range(2, 27))  # 6 full blocks
    keys = fill_disk(root, prompt)
    (root / f"{keys[3].hex()}.kv").unlink()
    (root / f"{keys[3].hex()}.kv").mkdir()
    cache = TieredKVCache(ROW, config(root), model_id="t")
    other = [99] + list(range(2, 27))  # nothing in common with prompt's blocks: the hot buffer holds its rows
    serve(cache, other)
    assert serve(cache, prompt + [1]) == 12  # blocks 0-2 from disk, block 3 unreadable
    assert cache.flat_stats()["cold_io_errors"] == 1
    assert serve(cache, other + [1]) == len(other)  # exact: from warm, never from rows overwritten in the buffer


# ---- temporary files and the byte budget -----------------------------------------------------------------------
def test_start_up_removes_only_dead_processes_temp_files(tmp_path):
    root = tmp_path / "cold"
    root.mkdir()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    try:
        name = "ab" * 32 + ".kv"
        files = {"live": root / f"{name}.{live.pid}.tmp", "dead": root / f"{name}.{dead.pid}.tmp",
                 "mine": root / f"{name}.{os.getpid()}.tmp",  # a previous process with this pid crashed
                 "other": root / "notes.tmp", "other2": root / f"{name}.tmp", "other3": root / f"{name}.x1.tmp"}
        for path in files.values():
            path.write_bytes(b"z" * 1000)
        store = ColdStore(root, 1 << 20, (2, 2, 8))
        left = {k for k, p in files.items() if p.exists()}
        assert left == {"live", "other", "other2", "other3"}
        assert store.stale_tmp_removed == 2
        assert store.used_bytes == 1000  # the live process's temporary file counts against the budget
    finally:
        live.kill()
        live.wait()


def test_bytes_on_disk_stay_within_budget_temp_files_included(tmp_path):
    root = tmp_path / "cold"
    root.mkdir()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        budget = 12_000
        (root / f"{'cd' * 32}.kv.{live.pid}.tmp").write_bytes(b"z" * 4000)  # another process writing
        cache = TieredKVCache(ROW, config(root, warm_bytes=3000, cold_bytes=budget), model_id="t")
        for i in range(12):
            serve(cache, [i] + list(range(2, 30)))
            assert on_disk(root) <= budget and cache.cold.used_bytes == on_disk(root)
        stats = cache.flat_stats()
        assert stats["cold_evictions"] > 0 and stats["cold_inserts"] > 0 and stats["cold_io_errors"] == 0
        assert stats["cold_peak_bytes"] <= budget
    finally:
        live.kill()
        live.wait()
    # a directory over budget at start-up (e.g. cold_bytes lowered) is evicted to the budget first
    TieredKVCache(ROW, config(root, cold_bytes=5000), model_id="t")
    assert on_disk(root) <= 5000


def test_close_is_idempotent_and_stops_the_cold_tier(tmp_path):
    root = tmp_path / "cold"
    cache = TieredKVCache(ROW, config(root), model_id="t")
    serve(cache, list(range(2, 19)))
    cache.close()
    written = {p.name: p.stat().st_mtime_ns for p in root.iterdir()}
    assert len(written) == 4 and cache.flat_stats()["cold_inserts"] == 4
    cache.close()  # nothing more is written
    assert {p.name: p.stat().st_mtime_ns for p in root.iterdir()} == written
    assert cache.flat_stats()["cold_closed"] is True
    assert serve(cache, list(range(2, 19)) + [1]) == 17  # still answers from RAM
    off = TieredKVCache(ROW, CacheConfig(block_size=BS), model_id="t")  # no cold tier: close() does nothing
    off.close()
    off.close()


def test_io_counters_are_in_the_diagnostics(tmp_path):
    stats = TieredKVCache(ROW, config(tmp_path / "cold"), model_id="t").flat_stats()
    assert stats["cold_io_errors"] == 0 and stats["cold_last_error"] == "" and stats["cold_stale_tmp_removed"] == 0
    assert all(isinstance(v, (int, float, str, bool)) for v in stats.values())


# ---- through the Assistant -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def random_model(tmp_path_factory) -> str:
    from test_cache_reuse import build_random_model

    return str(build_random_model(tmp_path_factory.mktemp("random_model")))


def test_half_way_failed_restore_answers_like_recomputing(random_model, tmp_path):
    """A session's blocks on disk, the third unreadable: the reply and the next one are the recomputed ones."""
    from test_cache_reuse import assistant

    from globalgen_ros.bench.cache_bench import held_out_sessions

    sessions = held_out_sessions(2, seed=1)
    cold = {"warm_format": "fp32", "cold_dir": str(tmp_path), "fp32": True}
    first, history = assistant(random_model, **cold), []
    for text in sessions[0][:3]:
        history.append((text, first.respond(text, history=history, max_new_tokens=16).raw))
    keys = block_keys(first.cache._hot_ids, first.cache.config.block_size, first.cache.seed)
    first.cache.close()
    assert len(keys) >= 4
    victim = tmp_path / f"{keys[2].hex()}.kv"
    victim.unlink()
    victim.mkdir()  # unreadable (EISDIR) in the middle of the chain

    restarted, recompute = assistant(random_model, **cold), assistant(random_model, True, reuse=False)
    other = sessions[1][0]
    want = recompute.respond(other, max_new_tokens=16)
    assert restarted.respond(other, max_new_tokens=16).token_ids == want.token_ids  # fills the hot buffer
    got = restarted.respond("and then stop", history=history, max_new_tokens=16)
    want = recompute.respond("and then stop", history=history, max_new_tokens=16)
    assert got.token_ids == want.token_ids
    stats = restarted.cache_stats()
    assert stats["cold_hits"] == 2 and stats["cold_io_errors"] == 1 and stats["reused_tokens"] == 32
    history.append(("and then stop", want.raw))
    for text in ("and one more", other):  # the hot buffer and the tiers stay consistent afterwards
        got = restarted.respond(text, history=history, max_new_tokens=16)
        assert got.token_ids == recompute.respond(text, history=history, max_new_tokens=16).token_ids
    assert restarted.cache_stats()["cold_io_errors"] == 1
    restarted.cache.close()
    restarted.cache.close()
