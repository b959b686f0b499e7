"""Constrained greedy decoding with the torch model (reference for checks; the runtime uses ONNX Runtime)."""

from __future__ import annotations

import torch

from globalgen_ros.decoding.step import greedy
from globalgen_ros.model.llama import LlamaWithHeads
from globalgen_ros.runtime.constraints import HeaderConstraint
from globalgen_ros.runtime.format import parse_output, prompt_tokens


def causal_mask(past: int, new: int) -> torch.Tensor:
    """Additive mask (1, 1, new, past + new): all past visible, causal among the new tokens."""
    mask = torch.zeros(1, 1, new, past + new)
    mask[0, 0, :, past:] = torch.triu(torch.full((new, new), -1e4), diagonal=1)
    return mask


@torch.no_grad()
def decode_step(model: LlamaWithHeads, ids: list[int], kv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Feed ids after the cache kv (P, L, 2, H, D); return the last logits (V,) and the grown cache."""
    past, new = kv.shape[0], len(ids)
    logits, _, new_kv = model(torch.tensor([ids]), torch.arange(past, past + new)[None], causal_mask(past, new), kv)
    return logits[0, -1], torch.cat([kv, new_kv], dim=0)


@torch.no_grad()
def generate(model: LlamaWithHeads, tok, schema, text: str, history=(), max_new_tokens: int = 64,
             constraint=None) -> list[int]:
    """Return the greedy output ids (header + reply, ending with <|end|> unless cut off).

    constraint: the header constraint to decode under (default: the schema's; the Assistant's
    `header_constraint` gives the one with the understanding model's header forced)."""
    cfg = model.config
    prompt, user = prompt_tokens(tok, text, history)
    cons = constraint if constraint is not None else HeaderConstraint(schema, tok, user)
    state = cons.start()
    kv = torch.zeros(0, cfg.num_hidden_layers, 2, cfg.num_attention_heads, cfg.head_dim)
    out, feed = [], prompt
    while len(out) < max_new_tokens:
        logits, kv = decode_step(model, feed, kv)
        t = greedy(logits.numpy(), cons.allowed(state))  # the runtime's rule, free text included
        out.append(t)
        state = cons.advance(state, t)
        if t == tok.end:
            break
        feed = [t]
    return out


def respond(model: LlamaWithHeads, tok, schema, text: str, history=()) -> dict:
    ids = generate(model, tok, schema, text, history)
    raw = tok.decode([i for i in ids if i != tok.end])
    p = parse_output(raw)
    return {"intent": p.intent, "slots": p.slots, "response": p.reply, "raw": raw, "ids": ids}
