"""Draft trees: trie merging, hardware-aware sizing, tree attention masks and positions."""

import numpy as np
import pytest

from globalgen_ros.decoding.calibration import CostModel
from globalgen_ros.decoding.tree import Candidates, ancestors, select_tree, step_mask, step_positions
from globalgen_ros.runtime.onnx_model import MASKED


def chain_trie(chains: list[tuple[list[int], float]]) -> Candidates:
    cands = Candidates()
    for tokens, p in chains:
        parent = -1
        for tok in tokens:
            parent = cands.add(parent, tok, p, None, ("t", 0))
    return cands


def test_candidates_merge_shared_prefixes():
    cands = chain_trie([([5, 6, 7], 0.9), ([5, 6, 8], 0.5), ([9], 0.2)])
    assert cands.token == [5, 6, 7, 8, 9]
    assert cands.parent == [-1, 0, 1, 1, -1]
    assert cands.depth == [1, 2, 3, 3, 1]
    assert cands.p[0] == 0.9  # merged node keeps the highest estimate
    assert len(cands.keys[0]) == 2


def test_finalize_normalises_siblings_and_multiplies_paths():
    cands = chain_trie([([1, 2], 0.8), ([3], 0.6)])
    cands.finalize()
    assert cands.p[0] + cands.p[2] == pytest.approx(1.0)  # 0.8 + 0.6 > 1: siblings exclude each other
    assert cands.path[1] == pytest.approx(cands.p[0] * cands.p[1])


def curve(f, max_nodes: int = 16, pending: int = 1) -> np.ndarray:
    """Return costs[t] = f(pending + t) for t = 0..max_nodes."""
    return np.array([f(pending + t) for t in range(max_nodes + 1)], float)


def test_select_tree_keeps_ancestors_and_follows_cost():
    def cands():
        return chain_trie([([1, 2, 3, 4, 5, 6], 0.95), ([7, 8], 0.3)])

    cheap = select_tree(cands(), curve(lambda n: 1.0 + 0.01 * n), max_nodes=16)
    assert cheap.size == 8  # nearly free tokens: verify everything
    assert select_tree(cands(), curve(float), 16).size == 0  # cost grows as fast as tokens: drafting cannot pay
    mid = select_tree(cands(), curve(lambda n: 1.0 + 0.3 * n), 16)
    assert 0 < mid.size < 8
    for i, parent in enumerate(mid.parents):  # parents come first, so every ancestor was kept
        assert parent < i


def test_select_tree_respects_max_nodes():
    cands = chain_trie([(list(range(10, 30)), 0.99)])
    assert select_tree(cands, curve(lambda n: 1.0, max_nodes=5), max_nodes=5).size == 5


def test_cost_model_interpolates_and_extrapolates():
    cm = CostModel(sizes=[1, 2, 4], past_lens=[0, 100], ms=[[1.0, 1.2, 1.6], [2.0, 2.2, 2.6]])
    assert cm.cost(2, 0) == pytest.approx(1.2)
    assert cm.cost(3, 50) == pytest.approx(1.9)
    assert cm.cost(6, 100) == pytest.approx(3.0)  # slope of the last segment beyond the table
    assert cm.cost(1, 1000) == pytest.approx(2.0)  # past lengths beyond the table: clamp


def test_ancestors_matrix():
    parents = np.array([-1, 0, 0, 1, -1])
    anc = ancestors(parents)
    assert anc[3].tolist() == [True, True, False, True, False]
    assert anc[2].tolist() == [True, False, True, False, False]
    assert anc[4].tolist() == [False, False, False, False, True]


def test_step_mask_pending_causal_and_tree_ancestors():
    past, m = 3, 2
    parents = np.array([-1, 0, -1])  # two branches below the last pending token
    mask = step_mask(past, m, parents)[0, 0]
    assert mask.shape == (m + 3, past + m + 3)
    visible = mask == 0
    assert visible[:, :past].all()  # everything sees the cache
    assert visible[0, past: past + m].tolist() == [True, False]  # pending: causal
    assert not visible[:m, past + m:].any()  # pending never sees drafts
    assert visible[m:, past: past + m].all()  # drafts see every pending token
    assert visible[m + 1, past + m:].tolist() == [True, True, False]  # node 1: parent 0 and itself
    assert visible[m + 2, past + m:].tolist() == [False, False, True]  # node 2: a sibling branch
    assert set(np.unique(mask)) <= {0.0, np.float32(MASKED)}


def test_step_positions_share_depth():
    pos = step_positions(10, 2, np.array([1, 2, 1]))
    assert pos.tolist() == [[10, 11, 12, 13, 12]]


def test_free_text_never_picks_a_special_token_but_end():
    from globalgen_ros.decoding.parallel import confident_child
    from globalgen_ros.decoding.step import greedy
    from globalgen_ros.runtime.format import END_ID, SPECIAL_TOKENS

    row = np.zeros(32, np.float32)
    row[SPECIAL_TOKENS.index("<|reply|>")] = 9.0  # a header marker has the top logit in the reply
    row[20] = 5.0
    assert greedy(row, None) == 20
    row[END_ID] = 6.0
    assert greedy(row, None) == END_ID  # <|end|> stays possible
    assert greedy(row, np.array([3, 4])) in (3, 4)  # inside the header the schema decides, not this rule
    kids = {SPECIAL_TOKENS.index("<|reply|>"): 0, 20: 1}
    assert confident_child(row, None, kids, tau=0.01) == 1  # a special-token draft is never taken in the reply
