"""The cold tier: KV blocks on disk that survive a restart, checksummed, byte-budgeted, LRU by mtime.

A file is `<block key hex>.kv`: 32 bytes sha256 of the payload, then the payload (an uncompressed .npz without
pickles). A file whose checksum, layout, shape or token ids are wrong is deleted with a warning and reported as a
miss, so the caller recomputes the block; it is never loaded.

Writes go to `<final name>.<pid>.tmp` first and are renamed into place, so a crash leaves either the old state or
the new file, never half a file under a valid name; a failed write removes its temporary file. At start-up the
temporary files of this naming scheme whose process no longer exists are removed (never a live process's, never
any other file).

The disk is not trusted to work: every I/O error (disk full, read-only or vanished directory, permissions, a file
removed or truncated under us) makes the operation a miss (a load returns None, a save is skipped), is counted in
`io_errors` / `last_error` and logged (rate-limited); nothing is raised to the caller. Bytes on disk (block files
and temporary files of this scheme) are recounted from the directory whenever the count is in doubt, and least
recently used blocks are evicted *before* a write, so the directory stays within `budget_bytes`.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import stat
import threading
import time
from pathlib import Path

import numpy as np

from globalgen_ros.cache.quant import QuantKV
from globalgen_ros.cache.tiers import TierStats

log = logging.getLogger(__name__)
_QFIELDS = ("k_codes", "k_scale", "k_zero", "v_codes", "v_scale", "v_zero")
_BLOCK = re.compile(r"[0-9a-f]+\.kv")
_TMP = re.compile(r"[0-9a-f]+\.kv\.([0-9]+)\.tmp")
_LOG_EVERY_S = 60.0  # at most one I/O warning per minute (all are counted)

# temporary files this process is writing now: another store on the same directory in this process must not
# take them for a dead process's leftovers (a previous process may have had this pid, e.g. pid 1 in a container)
_writing: set[str] = set()
_writing_lock = threading.Lock()


def _serialize(tokens: np.ndarray, kv: QuantKV | np.ndarray) -> bytes:
    arrays = {"tokens": tokens}
    if isinstance(kv, QuantKV):
        arrays |= {name: getattr(kv, name) for name in _QFIELDS} | {"group": np.array(kv.group)}
    else:
        arrays["kv"] = kv
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    payload = buf.getvalue()
    return hashlib.sha256(payload).digest() + payload


def _deserialize(data: bytes, shape: tuple[int, int, int]) -> tuple[np.ndarray, QuantKV | np.ndarray]:
    """Parse a file; raise ValueError if its checksum, layout, dtypes or shapes are wrong.

    Everything decode() relies on is checked here, so a block that passes can be written into the hot buffer
    without failing half-way.
    """
    digest, payload = data[:32], data[32:]
    if len(data) < 32 or hashlib.sha256(payload).digest() != digest:
        raise ValueError("checksum mismatch")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
    except Exception as err:  # noqa: BLE001 - any failure to parse untrusted bytes means a corrupt file
        raise ValueError(f"unreadable payload ({err.__class__.__name__}: {err})") from err
    tokens = arrays.get("tokens")
    if tokens is None or tokens.dtype != np.int32 or tokens.ndim != 1:
        raise ValueError("unexpected token ids")
    T, (L, H, D) = len(tokens), shape
    if "kv" in arrays:
        kv = arrays["kv"]
        if kv.dtype != np.float32 or kv.shape != (T, L, 2, H, D):
            raise ValueError("unexpected array layout")
        return tokens, kv
    if any(name not in arrays for name in (*_QFIELDS, "group")) or arrays["group"].shape != () \
            or arrays["group"].dtype.kind not in "iu" or int(arrays["group"]) < 1:
        raise ValueError("unexpected array layout")
    group = int(arrays["group"])
    groups = -(-T // group)
    want = {"k_codes": (np.uint8, (T, L, H, D)), "v_codes": (np.uint8, (T, L, H, D)),
            "k_scale": (np.float16, (groups, L, H, D)), "k_zero": (np.float16, (groups, L, H, D)),
            "v_scale": (np.float16, (T, L, H, 1)), "v_zero": (np.float16, (T, L, H, 1))}
    if any(arrays[name].dtype != dtype or arrays[name].shape != dims for name, (dtype, dims) in want.items()):
        raise ValueError("unexpected array layout")
    return tokens, QuantKV(*(arrays[name] for name in _QFIELDS), group=group)


def _pid_alive(pid: int) -> bool:
    """Return whether process pid exists (when in doubt, True: its file is kept)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    return True


class ColdStore:
    """Keep KV blocks as files under root, at most budget_bytes on disk; I/O errors are misses, never raised."""

    def __init__(self, root: str | Path, budget_bytes: int, shape: tuple[int, int, int]):
        self.root = Path(root)
        self.budget_bytes = budget_bytes
        self.shape = shape  # (L, H, D) of the model whose KV this is (the key's seed names the model)
        self.stats = TierStats()
        self.corrupt = 0  # files rejected (checksum, layout or token mismatch) and deleted
        self.io_errors = 0  # I/O operations that failed (each one a miss or a skipped write)
        self.last_error = ""  # text of the latest I/O error
        self.stale_tmp_removed = 0  # temporary files of dead processes removed at start-up
        self.used_bytes = 0  # block files + temporary files of this scheme in root, as last counted
        self.closed = False
        self._pid = os.getpid()
        self._recount = True  # used_bytes must be recounted from the directory before it is relied on
        self._logged_at = -_LOG_EVERY_S
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            self._io_error("create the cold cache directory", err)
        else:
            self._remove_stale_tmp()
            self._evict(0)
        self.stats.peak_bytes = self.used_bytes

    # ---- helpers ---------------------------------------------------------------------------------------------
    def _path(self, key: bytes) -> Path:
        return self.root / f"{key.hex()}.kv"

    def _tmp_path(self, path: Path) -> Path:
        return path.with_name(f"{path.name}.{self._pid}.tmp")

    def _io_error(self, action: str, err: OSError) -> None:
        """Count an I/O error (the operation becomes a miss) and log it, at most once a minute."""
        self.io_errors += 1
        self.last_error = f"{action}: {err}"
        self._recount = True  # the directory may not be what the count says any more
        now = time.monotonic()
        if now - self._logged_at >= _LOG_EVERY_S:
            self._logged_at = now
            log.warning("cold KV cache: cannot %s (%s); treated as a cache miss (%d I/O errors so far)",
                        action, err, self.io_errors)

    def _remove(self, path: Path, action: str = "remove a cold cache file") -> bool:
        """Delete path (if there); return False (counted) if it could not be deleted."""
        try:
            size = path.lstat().st_size
        except FileNotFoundError:
            return True
        except OSError as err:
            self._io_error(action, err)
            return False
        try:
            path.unlink()
        except FileNotFoundError:
            self._recount = True  # removed by someone else meanwhile: the count may include it
            return True
        except OSError as err:
            self._io_error(action, err)
            return False
        self.used_bytes = max(self.used_bytes - size, 0)
        return True

    def _scan(self) -> list[tuple[int, Path]] | None:
        """Recount used_bytes from the directory; return (mtime_ns, path) of the block files, or None on error."""
        try:
            with os.scandir(self.root) as it:
                entries = list(it)
        except OSError as err:
            self._io_error("list the cold cache directory", err)
            return None
        blocks, used = [], 0
        for entry in entries:
            is_block = _BLOCK.fullmatch(entry.name) is not None
            if not is_block and _TMP.fullmatch(entry.name) is None:
                continue  # not ours
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as err:
                self._io_error("stat a cold cache file", err)
                return None
            if not stat.S_ISREG(st.st_mode):
                continue
            used += st.st_size
            if is_block:
                blocks.append((st.st_mtime_ns, Path(entry.path)))
        self.used_bytes, self._recount = used, False
        self.stats.peak_bytes = max(self.stats.peak_bytes, used)
        return blocks

    def _remove_stale_tmp(self) -> None:
        """Remove the temporary files (`*.kv.<pid>.tmp`) of processes that no longer exist."""
        try:
            names = os.listdir(self.root)
        except OSError as err:
            self._io_error("list the cold cache directory", err)
            return
        for name in names:
            match = _TMP.fullmatch(name)
            if match is None:
                continue
            pid, path = int(match.group(1)), self.root / name
            with _writing_lock:  # held while removing: a write of this process cannot start on it meanwhile
                if pid == self._pid:
                    if str(path) in _writing:
                        continue  # written now by another store of this process
                elif _pid_alive(pid):
                    continue
                try:
                    path.unlink()
                except FileNotFoundError:
                    continue
                except OSError as err:
                    self._io_error("remove a stale temporary file", err)
                    continue
            self.stale_tmp_removed += 1
            log.info("cold KV cache: removed %s, left by process %d", path, pid)

    def _evict(self, nbytes: int) -> bool:
        """Delete least recently used block files until nbytes more fit; False if they cannot be made to fit."""
        if not self._recount and self.used_bytes + nbytes <= self.budget_bytes:
            return True
        blocks = self._scan()  # count what is really on disk, temporary files included
        if blocks is None:
            return False
        for _, path in sorted(blocks):
            if self.used_bytes + nbytes <= self.budget_bytes:
                break
            if not self._remove(path, "evict a cold cache file"):
                return False
            self.stats.evictions += 1
        return self.used_bytes + nbytes <= self.budget_bytes

    # ---- the store -------------------------------------------------------------------------------------------
    def __contains__(self, key: bytes) -> bool:
        try:
            return not self.closed and self._path(key).is_file()
        except OSError as err:
            self._io_error("look up a cold cache file", err)
            return False

    def get(self, key: bytes, ids: np.ndarray | None = None) -> tuple[np.ndarray, QuantKV | np.ndarray] | None:
        """Return (tokens, kv) of a block, or None if absent, unreadable or corrupt (a corrupt file is deleted).

        ids: the token ids the block must hold (a file with other ids is corrupt).
        """
        if self.closed:
            return None
        path = self._path(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            self.stats.misses += 1
            return None
        except OSError as err:
            self._io_error("read a cold cache file", err)
            self.stats.misses += 1
            return None
        try:
            block = _deserialize(data, self.shape)
            if ids is not None and not np.array_equal(block[0], ids):
                raise ValueError("token ids differ from the block's")
        except ValueError as err:
            log.warning("cold KV cache: discarding corrupt file %s (%s); the block will be recomputed", path, err)
            self.corrupt += 1
            self.stats.misses += 1
            self._remove(path)
            return None
        try:
            os.utime(path)  # mark as recently used
        except FileNotFoundError:
            self._recount = True  # evicted meanwhile; what was read is verified and still served
        except OSError as err:  # e.g. a read-only directory: the block is verified, only its LRU rank is stale
            self._io_error("mark a cold cache file as recently used", err)
        self.stats.hits += 1
        return block

    def put(self, key: bytes, tokens: np.ndarray, kv: QuantKV | np.ndarray) -> bool:
        """Write a block (replacing any file of that key); False if it was not written (budget, I/O error)."""
        if self.closed:
            return False
        path = self._path(key)
        data = _serialize(tokens, kv)
        if len(data) > self.budget_bytes:
            self.stats.rejected += 1
            return False
        # a stale or corrupt copy never survives a write; room is made before anything is written
        if not self._remove(path) or not self._evict(len(data)):
            return False
        tmp = self._tmp_path(path)
        with _writing_lock:
            if str(tmp) in _writing:  # another store of this process writes the same block right now
                return False
            _writing.add(str(tmp))
        written = False
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            written = True
        except OSError as err:
            self._io_error("write a cold cache file", err)
            return False
        finally:
            if not written:
                try:
                    tmp.unlink()
                except FileNotFoundError:
                    pass
                except OSError as err:
                    self._io_error("remove a temporary file", err)
            with _writing_lock:
                _writing.discard(str(tmp))
        self.used_bytes += len(data)
        self.stats.inserts += 1
        self.stats.peak_bytes = max(self.stats.peak_bytes, self.used_bytes)
        return True

    def close(self) -> None:
        """Stop using the directory (idempotent): nothing is held open between calls, so nothing is left to flush."""
        self.closed = True
