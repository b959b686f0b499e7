"""Draft heads for an imported model, trained on its own greedy replies (self-distillation, Medusa-style).

    globalgen heads --model-dir models/NAME [--prompts 1000] [--heads 3] [--vocab 8192] [--minutes 20]

1. collect: English transcripts of the corpus (never the llm benchmark's prompts), rendered as the assistant
   renders them (ChatAssistant: decision in the system prompt, the model's chat template), and the model's own
   `ar` replies: the tokens verification will accept.
2. hidden: one forward of prompt + reply through the model's shipped ONNX decoder gives the final hidden state
   (after the last norm) of every position, as the decoder hands it to the heads at run time.
3. train: head j maps the hidden state of position t to the token at t + j + 2 (the decoder's own logits give
   t + 1) through a residual SiLU block (model/llama.py ExtraHead) and the model's output layer restricted to a
   draft vocabulary (the reply tokens seen, most frequent first, at most --vocab), frozen. A 135 M model's full
   output layer (49 k x 576) per head would cost a third of a forward; restricted, the heads cost ~1 ms.
4. write heads.int8.onnx (hidden (n, d) -> head_logits (n, K, Vd)), heads_vocab.npy (Vd,) the full ids of the
   draft vocabulary, config.json num_extra_heads = K, and the manifest (sha256, the recipe, the measured
   top-1 accuracy per head on held-out replies).
Verification stays exact: a head only proposes; the decoder accepts what `ar` would have said.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from globalgen_ros.runtime.onnx_model import HEAD_VOCAB_FILE

HEADS_FILE, VOCAB_FILE = "heads.int8.onnx", HEAD_VOCAB_FILE
PHRASINGS = Path(__file__).resolve().parent.parent / "corpus" / "phrasings"
OPEN_STARTS = ("what", "why", "how", "who", "when", "where", "which", "tell me", "explain", "can you tell",
               "do you know")


def training_prompts(n: int, seed: int = 0, exclude: tuple[str, ...] = ()) -> list[str]:
    """Return n distinct English transcripts from the phrasing data (commands and declines), minus `exclude`:
    up to half of them questions and open requests."""
    import yaml

    seen, texts = {t.lower() for t in exclude}, []
    for path in sorted(PHRASINGS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for text in _strings(data):
            if text.isascii() and "{" not in text and "[" not in text and 3 <= len(text) <= 120 \
                    and text.lower() not in seen:
                seen.add(text.lower())
                texts.append(text)
    rng = random.Random(seed)
    rng.shuffle(texts)
    # Half questions and open requests where there are enough: their free-text replies are what look-up and the
    # datastore cannot draft (a command's reply repeats the command), so that is where heads can help.
    open_ = [t for t in texts if t.endswith("?") or t.lower().startswith(OPEN_STARTS)]
    rest = [t for t in texts if t not in set(open_)]
    take = min(len(open_), n // 2)
    chosen = open_[:take] + rest[: n - take]
    rng.shuffle(chosen)
    return chosen


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def file_prompts(path: Path, exclude: tuple[str, ...] = ()) -> list[str]:
    """Return the distinct non-empty lines of a text file, minus `exclude` (compared by words: case and
    punctuation aside)."""
    seen, texts = {_words(t) for t in exclude}, []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if text and _words(text) not in seen:
            seen.add(_words(text))
            texts.append(text)
    return texts


def _strings(node):
    """Yield every `text` string (or plain list string) of a phrasing file."""
    if isinstance(node, dict):
        if isinstance(node.get("text"), str):
            yield node["text"]
        for key, value in node.items():
            if key != "text":
                yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from (_strings(item) if not isinstance(item, str) else [item])


def collect(assistant, prompts: list[str], max_new: int) -> list[tuple[list[int], int]]:
    """Return (prompt + reply ids, prompt length) of the model's `ar` reply to each prompt."""
    out = []
    for text in prompts:
        ids = assistant.chat_prompt(text, assistant.decision(text)[0], [], max_new)
        gen = assistant.decoder.generate(ids, constraint=assistant.constraint, strategy="ar", max_new_tokens=max_new)
        out.append((ids + gen.tokens, len(ids)))
    return out


def save_samples(path: Path, samples: list[tuple[list[int], int]]) -> None:
    """Write collected (ids, prompt length) pairs to an .npz file."""
    lengths = np.asarray([len(ids) for ids, _ in samples], np.int64)
    starts = np.asarray([start for _, start in samples], np.int64)
    np.savez(path, ids=np.concatenate([np.asarray(ids, np.int64) for ids, _ in samples]), lengths=lengths,
             starts=starts)


def load_samples(path: Path) -> list[tuple[list[int], int]]:
    """Read the pairs save_samples wrote."""
    data = np.load(path)
    ends = np.cumsum(data["lengths"])
    return [(data["ids"][e - n: e].tolist(), int(s)) for e, n, s in zip(ends, data["lengths"], data["starts"],
                                                                         strict=True)]


def hidden_states(model, ids: list[int]) -> np.ndarray:
    """Return the final hidden states (T, d) of one causal forward over `ids` from an empty cache."""
    from globalgen_ros.runtime.onnx_model import MASKED

    T = len(ids)
    mask = np.triu(np.full((T, T), MASKED, np.float32), 1)[None, None]  # (1, 1, T, T)
    tokens = np.asarray(ids, np.int64)[None]
    positions = np.arange(T, dtype=np.int64)[None]
    _, hidden, _ = model.forward(tokens, positions, mask, None, logits_from=T - 1)
    return hidden[0]  # (T, d)


def examples(model, samples: list[tuple[list[int], int]], n_heads: int):
    """Return hidden states (N, d) of reply positions, their bonus tokens (N,): token t + 1, and their targets
    (N, K): token t + j + 2, or -1 past the end."""
    hs, bonus, ys = [], [], []
    for ids, start in samples:
        h = hidden_states(model, ids)
        for t in range(start - 1, len(ids) - 2):  # the last prompt token predicts the reply's first
            hs.append(h[t])
            bonus.append(ids[t + 1])
            ys.append([ids[t + j + 2] if t + j + 2 < len(ids) else -1 for j in range(n_heads)])
    return np.stack(hs), np.asarray(bonus, np.int64), np.asarray(ys, np.int64)


def draft_vocab(targets: np.ndarray, size: int) -> np.ndarray:
    """Return the full ids of the draft vocabulary: the targets seen, most frequent first, at most `size`."""
    counts = Counter(int(t) for t in targets.ravel() if t >= 0)
    return np.asarray([t for t, _ in counts.most_common(size)], np.int64)


class DraftHeads:
    """K residual SiLU blocks and the frozen output layer rows of the draft vocabulary (torch)."""

    def __init__(self, out_rows, n_heads: int):
        import torch
        from torch import nn

        from globalgen_ros.model.llama import ExtraHead

        class Module(nn.Module):
            def __init__(self):
                super().__init__()
                self.heads = nn.ModuleList(ExtraHead(out_rows.shape[1]) for _ in range(n_heads))
                for head in self.heads:
                    nn.init.zeros_(head.proj.weight)  # start as the model's own next-token head
                self.register_buffer("out", torch.as_tensor(out_rows, dtype=torch.float32))  # (Vd, d)

            def forward(self, hidden):  # (n, d) -> (n, K, Vd)
                return torch.stack([head(hidden) @ self.out.T for head in self.heads], dim=-2)

        self.module = Module()


def fit(module, batch_loss, n: int, *, epochs: int, minutes: float, lr: float = 1e-3, batch: int = 256,
        seed: int = 0, one_cycle: bool = False) -> dict:
    """Minimise batch_loss(indices) over n examples with AdamW for `epochs` or `minutes`; return the log."""
    import torch

    torch.manual_seed(seed)
    opt = torch.optim.AdamW([p for p in module.parameters() if p.requires_grad], lr=lr, weight_decay=0.0)
    sched = (torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * -(-n // batch) + 1, pct_start=0.05)
             if one_cycle else None)
    t0, steps, loss, first = time.perf_counter(), 0, float("nan"), None
    for _ in range(epochs):
        for idx in torch.randperm(n).split(batch):
            loss_t = batch_loss(idx)
            opt.zero_grad()
            loss_t.backward()
            opt.step()
            if sched is not None:
                sched.step()
            steps, loss = steps + 1, loss_t.item()
            first = loss if first is None else first
            if time.perf_counter() - t0 > minutes * 60:
                break
        if time.perf_counter() - t0 > minutes * 60:
            break
    module.eval()
    return {"steps": steps, "first_loss": round(first or loss, 4), "last_loss": round(loss, 4),
            "train_s": round(time.perf_counter() - t0, 1)}


def train(hidden: np.ndarray, targets: np.ndarray, vocab: np.ndarray, out_rows: np.ndarray, *, epochs: int,
          minutes: float, lr: float = 1e-3, batch: int = 256, seed: int = 0) -> tuple[object, dict]:
    """Fit the heads on (hidden, targets); targets outside the vocabulary are ignored. Returns (module, log)."""
    import torch

    torch.manual_seed(seed)
    index = np.full(int(max(vocab.max(), targets.max())) + 1, -100, np.int64)
    index[vocab] = np.arange(len(vocab))
    y = torch.as_tensor(np.where(targets >= 0, index[np.maximum(targets, 0)], -100))  # (N, K) draft ids
    x = torch.as_tensor(hidden, dtype=torch.float32)
    module = DraftHeads(out_rows, targets.shape[1]).module

    def batch_loss(idx):
        logits = module(x[idx])  # (b, K, Vd)
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), y[idx].flatten(), ignore_index=-100)

    return module, fit(module, batch_loss, len(x), epochs=epochs, minutes=minutes, lr=lr, batch=batch, seed=seed)


def accuracy(module, hidden: np.ndarray, targets: np.ndarray, vocab: np.ndarray,
             bonus: np.ndarray | None = None) -> list[float]:
    """Return the top-1 accuracy of each head on (hidden, targets) (positions past a reply's end left out);
    recurrent heads also get the bonus tokens and run on their own guesses, as at run time."""
    import torch

    inputs = (torch.as_tensor(hidden, dtype=torch.float32),) + (() if bonus is None else (torch.as_tensor(bonus),))
    with torch.no_grad():
        best = vocab[module(*inputs).argmax(-1).numpy()]  # (N, K)
    valid = targets >= 0
    return [round(float((best[:, j] == targets[:, j])[valid[:, j]].mean()), 4) for j in range(targets.shape[1])]


def export(module, d: int, path: Path, with_token: bool = False) -> None:
    """Write heads.int8.onnx: hidden (n, d) [, token (n,)] -> head_logits (n, K, Vd), uint8 weights (ORT's AVX2
    u8 x s8 kernel saturates: understanding/export.py; a recurrent head's guesses feed its next step)."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from globalgen_ros.model.export import OPSET

    names = ["hidden", "token"] if with_token else ["hidden"]
    example = (torch.randn(3, d), torch.zeros(3, dtype=torch.int64))[: len(names)]
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "heads.onnx"
        n = torch.export.Dim("n", min=1, max=4096)
        torch.onnx.export(module, example, str(fp32), dynamo=True, opset_version=OPSET, external_data=False,
                          dynamic_shapes={name: {0: n} for name in names}, verbose=False, input_names=names,
                          output_names=["head_logits"])
        quantize_dynamic(str(fp32), str(path), weight_type=QuantType.QUInt8, op_types_to_quantize=["MatMul"])


def write(model_dir: Path, module, vocab: np.ndarray, n_heads: int, recipe: dict, with_token: bool = False) -> None:
    """Write the heads, their vocabulary, num_extra_heads in config.json and the manifest's entries."""
    from globalgen_ros.runtime.artifacts import sha256_file

    export(module, module.out.shape[1], model_dir / HEADS_FILE, with_token)
    np.save(model_dir / VOCAB_FILE, vocab)
    cfg_path = model_dir / "config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    cfg["num_extra_heads"] = n_heads
    cfg_path.write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
    man_path = model_dir / "manifest.json"
    manifest = json.loads(man_path.read_text(encoding="utf-8"))
    for name in ("config.json", HEADS_FILE, VOCAB_FILE):
        manifest["files"][name] = {"sha256": sha256_file(model_dir / name), "size": (model_dir / name).stat().st_size}
    manifest["heads"] = recipe
    man_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def embedding_rows(model_dir: Path, vocab: np.ndarray) -> np.ndarray:
    """Return the input embedding rows (Vd, d) of the draft vocabulary."""
    from safetensors.numpy import load_file

    return load_file(str(model_dir / "model.safetensors"))["model.embed_tokens.weight"][vocab].astype(np.float32)


def output_rows(model_dir: Path, vocab: np.ndarray) -> np.ndarray:
    """Return the output layer rows (Vd, d) of the draft vocabulary (lm_head, else the tied embedding)."""
    from safetensors.numpy import load_file

    state = load_file(str(model_dir / "model.safetensors"))
    weight = state.get("lm_head.weight", state.get("model.embed_tokens.weight"))
    return weight[vocab].astype(np.float32)
