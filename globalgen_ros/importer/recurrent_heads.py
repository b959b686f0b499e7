"""Recurrent draft heads for an imported model: each drafted token is fed back (Hydra / ReDrafter-style).

Medusa heads guess token t + j + 2 from the hidden state h_t alone, blind both to the bonus token t + 1 (known
exactly once the forward is verified) and to their own earlier guesses. Here one small residual block is
unrolled K times from s_0 = h_t:

    s_j = s_{j-1} + W_b silu(W_a [s_{j-1}; e(x_{t+j})])      logits_j = out @ s_j  ->  token t + j + 1

with x_{t+1} the bonus token and x_{t+j} (j > 1) the previous step's argmax (teacher-forced in training with the
model's own greedy tokens). e and out are the model's embedding and output rows of the draft vocabulary, frozen;
a token outside it embeds as zeros. The graph has the heads' interface plus a `token` input: hidden (n, d),
token (n,) full ids -> head_logits (n, K, Vd), so `parallel` drafts with it as with Medusa heads.
"""

from __future__ import annotations

import numpy as np

from globalgen_ros.importer.heads import fit


def build(out_rows: np.ndarray, emb_rows: np.ndarray, vocab: np.ndarray, full_vocab: int, n_heads: int):
    """Return the torch module (K unrolled steps over a draft vocabulary of len(vocab) tokens)."""
    import torch
    from torch import nn

    d = out_rows.shape[1]
    index = np.full(full_vocab, len(vocab), np.int64)  # full id -> draft row; outside: the zero row
    index[vocab] = np.arange(len(vocab))

    class RecurrentHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.n_heads = n_heads
            self.inp = nn.Linear(2 * d, d, bias=False)
            self.outp = nn.Linear(d, d, bias=False)
            nn.init.zeros_(self.outp.weight)  # starts as the model's own next-token head
            self.register_buffer("out", torch.as_tensor(out_rows, dtype=torch.float32))  # (Vd, d)
            emb = np.concatenate([emb_rows, np.zeros((1, d), emb_rows.dtype)]).astype(np.float32)
            self.register_buffer("emb", torch.as_tensor(emb))  # (Vd + 1, d)
            self.register_buffer("index", torch.as_tensor(index))  # (V,)

        def step(self, s, e):  # (n, d), (n, d) -> (n, d)
            return s + self.outp(torch.nn.functional.silu(self.inp(torch.cat([s, e], dim=-1))))

        def forward(self, hidden, token):  # (n, d), (n,) full ids -> (n, K, Vd)
            s, e, out = hidden, self.emb[self.index[token]], []
            for _ in range(self.n_heads):
                s = self.step(s, e)
                logits = s @ self.out.T  # (n, Vd)
                out.append(logits)
                e = self.emb[logits.argmax(-1)]  # its own guess feeds the next step
            return torch.stack(out, dim=1)

        def teacher_forced(self, hidden, rows):  # (n, d), (n, K) draft rows of tokens t+1..t+K -> (n, K, Vd)
            s, out = hidden, []
            for j in range(self.n_heads):
                s = self.step(s, self.emb[rows[:, j]])
                out.append(s @ self.out.T)
            return torch.stack(out, dim=1)

    return RecurrentHeads()


def train(module, hidden: np.ndarray, bonus: np.ndarray, targets: np.ndarray, vocab: np.ndarray, *, epochs: int,
          minutes: float, lr: float = 1e-3, batch: int = 256, seed: int = 0) -> dict:
    """Fit on (hidden (N, d), bonus (N,), targets (N, K)) by teacher forcing; targets outside the vocabulary
    or past a reply's end (-1) are ignored. Returns the training log."""
    import torch

    index = module.index.numpy()
    rows = index[np.maximum(np.concatenate([bonus[:, None], targets[:, :-1]], 1), 0)]  # (N, K) inputs
    rows[np.concatenate([bonus[:, None], targets[:, :-1]], 1) < 0] = len(vocab)
    y = index[np.maximum(targets, 0)]
    y[(targets < 0) | (y == len(vocab))] = -100
    x, rows, y = (torch.as_tensor(a) for a in (hidden.astype(np.float32), rows, y))

    def batch_loss(idx):
        logits = module.teacher_forced(x[idx], rows[idx])  # (b, K, Vd)
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), y[idx].flatten(), ignore_index=-100)

    log = fit(module, batch_loss, len(x), epochs=epochs, minutes=minutes, lr=lr, batch=batch, seed=seed,
              one_cycle=True)
    return {"kind": "recurrent", **log}
