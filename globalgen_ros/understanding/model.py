"""Understanding model: pruned e5 encoder + intent, BIO-tag and enum heads; ONNX export with named I/O."""

from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from globalgen_ros.understanding.encoder import load_encoder, mean_pool
from globalgen_ros.understanding.labels import NOT_STOP_ID, Layout
from globalgen_ros.understanding.vocab import build_remap, prune_encoder

INPUTS = ("input_ids", "attention_mask")
OUTPUTS = ("intent_logits", "tag_logits", "enum_logits")


class NLUHeads(nn.Module):
    """Intent (B, C) and enum (B, E) logits from the mean-pooled state; tag logits (B, T, K) per token."""

    def __init__(self, dim: int, n_intents: int, n_tags: int, n_enum: int, dropout: float = 0.1):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.intent = nn.Linear(dim, n_intents)
        self.tags = nn.Linear(dim, n_tags)
        self.enum = nn.Linear(dim, n_enum)

    def forward(self, h: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        pooled = self.drop(mean_pool(h, mask))  # (B, D)
        return self.intent(pooled), self.tags(self.drop(h)), self.enum(pooled)


class NLUModel(nn.Module):
    """input_ids, attention_mask (B, T) int64 -> intent_logits (B, C), tag_logits (B, T, K), enum_logits (B, E)."""

    def __init__(self, enc: nn.Module, heads: NLUHeads):
        super().__init__()
        self.enc, self.heads = enc, heads

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor):
        return self.heads(self.enc(input_ids, attention_mask), attention_mask)


def build_model(layout: Layout, n_layers: int, kept: np.ndarray | None, seed: int = 0) -> NLUModel:
    """Pretrained encoder (first n_layers, vocabulary pruned to kept ids) + freshly initialised heads."""
    enc = load_encoder(n_layers=n_layers)
    if kept is not None:
        prune_encoder(enc, build_remap(kept, enc.cfg.vocab_size))
    for p in enc.parameters():
        p.data = p.data.clone().contiguous()  # weights are assigned from numpy buffers; make them trainable tensors
        p.requires_grad_(True)
    torch.manual_seed(seed)
    return NLUModel(enc, NLUHeads(enc.cfg.dim, len(layout.intents), len(layout.tags), layout.n_enum))


def enum_loss(enum_logits: torch.Tensor, targets: torch.Tensor, layout: Layout) -> torch.Tensor:
    """Mean cross-entropy over the enum groups that have a target (those of the gold intent)."""
    losses = []
    for g, key in enumerate(layout.groups):
        k, n = layout.enums[key]["offset"], len(layout.enums[key]["values"])
        t = targets[:, g]
        if (t >= 0).any():
            losses.append(F.cross_entropy(enum_logits[:, k : k + n], t, ignore_index=-100, reduction="sum"))
    n_t = (targets >= 0).sum().clamp(min=1)
    return torch.stack(losses).sum() / n_t if losses else enum_logits.sum() * 0.0


def intent_loss(il: torch.Tensor, labels: torch.Tensor, stop: int) -> torch.Tensor:
    """Cross-entropy on labelled rows, -log(1 - p(stop)) on "anything but stop" rows (NOT_STOP_ID), averaged over
    the batch."""  # il: (B, n_intents)
    known, not_stop = labels >= 0, labels == NOT_STOP_ID
    ce = F.cross_entropy(il, labels.clamp(min=0), reduction="none") * known
    rest = torch.cat([il[:, :stop], il[:, stop + 1 :]], dim=1)
    ns = (torch.logsumexp(il, dim=1) - torch.logsumexp(rest, dim=1)) * not_stop
    return (ce + ns).sum() / il.shape[0]


def stop_distill_loss(il: torch.Tensor, p_teacher: torch.Tensor, stop: int) -> torch.Tensor:
    """Binary cross-entropy of the model's p(stop) against a teacher's p(stop), averaged over the batch: the other
    intents share what is not stop as they like."""  # il: (B, n_intents), p_teacher: (B,)
    rest = torch.cat([il[:, :stop], il[:, stop + 1 :]], dim=1)
    z = torch.logsumexp(il, dim=1)
    log_p, log_not = il[:, stop] - z, torch.logsumexp(rest, dim=1) - z
    return -(p_teacher * log_p + (1 - p_teacher) * log_not).mean()


def losses(model: NLUModel, batch: dict, layout: Layout) -> dict[str, torch.Tensor]:
    """Intent, tag and enum cross-entropies for a collated batch; with "teacher_stop" in it, the stop distillation."""
    il, tl, el = model(batch["input_ids"], batch["attention_mask"])
    stop = layout.intents.index("stop")
    out = {
        "intent": intent_loss(il, batch["intent"], stop),
        "tag": F.cross_entropy(tl.reshape(-1, tl.shape[-1]), batch["tags"].reshape(-1), ignore_index=-100),
        "enum": enum_loss(el, batch["enums"], layout),
    }
    if "teacher_stop" in batch:
        out["distill"] = stop_distill_loss(il, batch["teacher_stop"], stop)
    return out


def export_nlu(model: NLUModel, path: Path, opset: int = 17) -> Path:
    """TorchScript-based ONNX export with dynamic batch and sequence axes."""
    ids = torch.ones((2, 8), dtype=torch.long)
    mask = torch.ones((2, 8), dtype=torch.long)
    axes = {n: {0: "batch", 1: "seq"} for n in (*INPUTS, "tag_logits")}
    axes |= {"intent_logits": {0: "batch"}, "enum_logits": {0: "batch"}}
    torch.onnx.export(
        model.eval(),
        (ids, mask),
        str(path),
        input_names=list(INPUTS),
        output_names=list(OUTPUTS),
        dynamic_axes=axes,
        opset_version=opset,
        dynamo=False,
    )
    return path
