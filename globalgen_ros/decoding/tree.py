"""Draft trees: merge draft chains into a token trie, size it to the hardware, and build its attention mask.

One verification forward feeds `m` pending tokens (accepted, KV not yet computed) followed by the `t` nodes of a
draft tree whose root is the last pending token. Pending tokens attend causally; a tree node attends to every
pending token, its ancestors and itself; a node at depth d sits at position P + m - 1 + d, so siblings share a
position (Medusa / SpecInfer tree attention).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from globalgen_ros.runtime.onnx_model import MASKED

# ONNX Runtime's CPU SGEMM (MLAS) sums over keys in blocks of 128 * 2^j starting at key 0. A tree node's keys
# sit at other indices than under `ar` (its ancestors' siblings in between), which only leaves the sums
# unchanged while those keys stay in one block: a tree never crosses a multiple of this.
EXACT_KEY_BLOCK = 128


def key_block_room(first: int, block: int = EXACT_KEY_BLOCK) -> int:
    """Return how many tree nodes fit from key index `first` before the next multiple of `block`."""
    return block - first % block


@dataclass
class Chain:
    """A drafted continuation of the accepted tokens: tokens[i] is proposed for depth i + 1."""

    tokens: list[int]
    raw: list[float]  # the drafter's own confidence in each token (turned into acceptance estimates)
    tags: list[str]   # calibration key of each token, e.g. "head0", "ctx2", "ds3"


@dataclass
class Candidates:
    """A token trie of draft candidates below the root; node i's parent is `parent[i]` (-1 = the root)."""

    token: list[int] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    p: list[float] = field(default_factory=list)      # estimated P(accepted | parent accepted)
    path: list[float] = field(default_factory=list)   # estimated P(accepted), set by finalize()
    state: list[Any] = field(default_factory=list)    # constraint state after the node's token
    keys: list[list] = field(default_factory=list)    # calibration keys that proposed the node
    kids: list[dict[int, int]] = field(default_factory=lambda: [{}])  # kids[i + 1]: children of node i

    def __len__(self) -> int:
        return len(self.token)

    def add(self, parent: int, token: int, p: float, state: Any, key) -> int:
        """Add (or merge into) the child `token` of `parent`; return the node index."""
        kids = self.kids[parent + 1]
        node = kids.get(token)
        if node is not None:
            if key is not None:
                self.keys[node].append(key)
            self.p[node] = max(self.p[node], p)
            return node
        node = len(self.token)
        kids[token] = node
        self.token.append(token)
        self.parent.append(parent)
        self.depth.append(1 if parent < 0 else self.depth[parent] + 1)
        self.p.append(p)
        self.state.append(state)
        self.keys.append([] if key is None else [key])
        self.kids.append({})
        return node

    def finalize(self) -> None:
        """Set path probabilities; siblings exclude each other, so their estimates are scaled to sum <= 1."""
        for kids in self.kids:
            total = sum(self.p[i] for i in kids.values())
            if total > 1.0:
                for i in kids.values():
                    self.p[i] /= total
        self.path = [0.0] * len(self.token)
        for i, parent in enumerate(self.parent):  # parents are always added before their children
            self.path[i] = self.p[i] * (1.0 if parent < 0 else self.path[parent])


@dataclass
class DraftTree:
    """The selected draft nodes, parents before children."""

    tokens: np.ndarray   # (t,) int64
    parents: np.ndarray  # (t,) int64, -1 = root
    depths: np.ndarray   # (t,) int64, 1-based
    states: list[Any]
    keys: list[list]
    children: list[dict[int, int]]  # children[i + 1]: token -> child of node i; children[0]: of the root
    expected: float      # expected number of accepted draft tokens

    @property
    def size(self) -> int:
        return len(self.tokens)


EMPTY_TREE = DraftTree(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), [], [], [{}], 0.0)


def select_tree(cands: Candidates, costs: np.ndarray, max_nodes: int) -> DraftTree:
    """Keep the t most probable nodes, with t maximising (1 + expected accepted) / costs[t].

    costs[t]: estimated time of the step when t draft nodes are verified. Acceptance probability only falls
    along a path, so the top-t nodes by probability (ties: shallower first) always include their ancestors.
    The 1 is the token the verification forward yields for sure.
    """
    if not cands.token:
        return EMPTY_TREE
    cands.finalize()
    order = sorted(range(len(cands)), key=lambda i: (-cands.path[i], cands.depth[i]))[:max_nodes]
    gain = 1.0 + np.cumsum([0.0] + [cands.path[i] for i in order])  # (t + 1,)
    best_t = int(np.argmax(gain / costs[: len(gain)]))
    chosen = order[:best_t]
    if not chosen:
        return EMPTY_TREE
    index = {old: new for new, old in enumerate(chosen)}
    parents = np.array([index[cands.parent[i]] if cands.parent[i] >= 0 else -1 for i in chosen], np.int64)
    children: list[dict[int, int]] = [{} for _ in range(best_t + 1)]
    for new, old in enumerate(chosen):
        children[parents[new] + 1][cands.token[old]] = new
    return DraftTree(tokens=np.array([cands.token[i] for i in chosen], np.int64), parents=parents,
                     depths=np.array([cands.depth[i] for i in chosen], np.int64),
                     states=[cands.state[i] for i in chosen], keys=[cands.keys[i] for i in chosen],
                     children=children, expected=float(sum(cands.path[i] for i in chosen)))


def ancestors(parents: np.ndarray) -> np.ndarray:
    """Return (t, t) bool: [i, j] is True when node j is node i or one of its ancestors."""
    t = len(parents)
    if not t:
        return np.zeros((0, 0), bool)
    bits = [0] * t  # node i's row as an int bit set (parents come before their children)
    for i, parent in enumerate(parents.tolist()):
        bits[i] = (1 << i) | (bits[parent] if parent >= 0 else 0)
    rows = np.frombuffer(b"".join(b.to_bytes((t + 7) // 8, "little") for b in bits), np.uint8)
    return np.unpackbits(rows.reshape(t, -1), axis=1, count=t, bitorder="little").astype(bool)


def step_mask(past_len: int, n_pending: int, parents: np.ndarray) -> np.ndarray:
    """Return the additive mask (1, 1, m + t, P + m + t) of a verification forward."""
    m, t = n_pending, len(parents)
    n = m + t
    mask = np.zeros((1, 1, n, past_len + n), np.float32)
    body = mask[0, 0, :, past_len:]  # (n, n): pending + tree columns
    if m > 1:
        body[:m, :m] = np.triu(np.full((m, m), MASKED, np.float32), 1)  # pending: causal
    body[:m, m:] = MASKED                         # pending never sees the tree
    if t:
        body[m:, m:][~ancestors(parents)] = MASKED  # tree: ancestors and self only
    return mask


def step_positions(past_len: int, n_pending: int, depths: np.ndarray) -> np.ndarray:
    """Return position ids (1, m + t): pending tokens in order, tree nodes by depth below the last pending."""
    pending = np.arange(past_len, past_len + n_pending, dtype=np.int64)
    return np.concatenate([pending, past_len + n_pending - 1 + depths.astype(np.int64)])[None]
