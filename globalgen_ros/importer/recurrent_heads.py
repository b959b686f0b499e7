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

import tempfile
import time
from pathlib import Path

import numpy as np


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

    torch.manual_seed(seed)
    index = module.index.numpy()
    rows = index[np.maximum(np.concatenate([bonus[:, None], targets[:, :-1]], 1), 0)]  # (N, K) inputs
    rows[np.concatenate([bonus[:, None], targets[:, :-1]], 1) < 0] = len(vocab)
    y = index[np.maximum(targets, 0)]
    y[(targets < 0) | (y == len(vocab))] = -100
    x, rows, y = (torch.as_tensor(a) for a in (hidden.astype(np.float32), rows, y))
    opt = torch.optim.AdamW([p for p in module.parameters() if p.requires_grad], lr=lr, weight_decay=0.0)
    t0, steps, loss, first = time.perf_counter(), 0, float("nan"), None
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * (-(-len(x) // batch)) + 1,
                                                pct_start=0.05)
    for _ in range(epochs):
        for idx in torch.randperm(len(x)).split(batch):
            logits = module.teacher_forced(x[idx], rows[idx])  # (b, K, Vd)
            loss_t = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y[idx].flatten(), ignore_index=-100)
            opt.zero_grad()
            loss_t.backward()
            opt.step()
            sched.step()
            steps, loss = steps + 1, loss_t.item()
            first = loss if first is None else first
            if time.perf_counter() - t0 > minutes * 60:
                break
        if time.perf_counter() - t0 > minutes * 60:
            break
    module.eval()
    return {"kind": "recurrent", "steps": steps, "first_loss": round(first or loss, 4), "last_loss": round(loss, 4),
            "train_s": round(time.perf_counter() - t0, 1)}


def accuracy(module, hidden: np.ndarray, bonus: np.ndarray, targets: np.ndarray, vocab: np.ndarray) -> list[float]:
    """Return each step's top-1 accuracy when fed its own guesses, as at run time (chains cut at a reply's end)."""
    import torch

    with torch.no_grad():
        best = vocab[module(torch.as_tensor(hidden, dtype=torch.float32), torch.as_tensor(bonus)).argmax(-1).numpy()]
    valid = targets >= 0
    return [round(float((best[:, j] == targets[:, j])[valid[:, j]].mean()), 4) for j in range(targets.shape[1])]


def export(module, d: int, path: Path) -> None:
    """Write the heads file: hidden (n, d), token (n,) -> head_logits (n, K, Vd), int8 weights."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from globalgen_ros.model.export import OPSET

    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "heads.onnx"
        n = torch.export.Dim("n", min=1, max=4096)
        torch.onnx.export(module, (torch.randn(3, d), torch.zeros(3, dtype=torch.int64)), str(fp32), dynamo=True,
                          opset_version=OPSET, external_data=False, verbose=False,
                          dynamic_shapes={"hidden": {0: n}, "token": {0: n}},
                          input_names=["hidden", "token"], output_names=["head_logits"])
        # uint8 weights: ORT's AVX2 u8 x s8 kernel saturates (understanding/export.py); fed-back guesses compound
        quantize_dynamic(str(fp32), str(path), weight_type=QuantType.QUInt8, op_types_to_quantize=["MatMul"])
