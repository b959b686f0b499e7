"""The hot KV cache: commit only accepted rows, roll back, byte accounting."""

import numpy as np
import pytest

from globalgen_ros.cache.kv import HotKVCache, KVCacheFull

ROW = (2, 2, 3, 4)  # (L, 2, H, D)


def rows(values) -> np.ndarray:
    return np.stack([np.full(ROW, v, np.float32) for v in values])


def test_commit_appends_selected_rows_in_order():
    cache = HotKVCache(16, ROW)
    cache.commit(rows([1, 2, 3]))
    cache.commit(rows([10, 11, 12, 13]), [0, 2, 3])  # pending row 0, accepted tree nodes 1 and 2 (rows 2, 3)
    past = cache.past()
    assert cache.length == 6
    assert past[:, 0, 0, 0, 0].tolist() == [1, 2, 3, 10, 12, 13]
    # What the model reads, each layer's K or V, is one contiguous block: ONNX Runtime takes it in place.
    assert all(past[:, i, j].flags.c_contiguous for i in range(ROW[0]) for j in range(2))
    assert np.shares_memory(past[:, 1, 0], cache.buf)
    assert cache.bytes_used() == 6 * int(np.prod(ROW)) * 4


def test_rejected_branch_leaves_no_trace():
    cache = HotKVCache(16, ROW)
    cache.commit(rows([1, 2]))
    before = cache.past().copy()
    new_kv = rows([7, 8, 9])
    cache.commit(new_kv, [0])  # node 1 and 2 rejected
    cache.commit(rows([5]))
    assert cache.past()[:, 0, 0, 0, 0].tolist() == [1, 2, 7, 5]
    np.testing.assert_array_equal(cache.past()[:2], before)
    assert not np.isin([8, 9], cache.past()).any()


def test_rollback_then_recommit_overwrites():
    cache = HotKVCache(8, ROW)
    cache.commit(rows([1, 2, 3, 4]))
    cache.rollback(2)
    assert cache.length == 2 and cache.bytes_used() == 2 * cache.row_bytes
    cache.commit(rows([9]))
    assert cache.past()[:, 0, 0, 0, 0].tolist() == [1, 2, 9]
    with pytest.raises(ValueError):
        cache.rollback(5)


def test_full_cache_raises():
    cache = HotKVCache(3, ROW)
    cache.commit(rows([1, 2]))
    with pytest.raises(KVCacheFull):
        cache.commit(rows([3, 4]))
    assert cache.length == 2  # nothing half-written
