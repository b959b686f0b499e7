"""Check how well the cache's turn values rank earlier turns by the attention they really receive (needs torch).

    PYTHONPATH=. .venv/bin/python scripts/check_turn_values.py models/default [--sessions 60]

Held-out sessions are answered turn by turn; for each session's last turn, the attention that every turn older
than the two most recent ones (the candidates of compaction) receives from the new turn, summed over all layers
and heads, is computed with the torch model and compared (Spearman rank correlation, top turn) with the values
of cache/attention.py (layer 0 from the weights), the key-norm proxy of cache/window.py, and position alone.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from globalgen_ros.assistant import Assistant
from globalgen_ros.bench.cache_bench import held_out_sessions
from globalgen_ros.cache.window import key_value_scores, turn_values
from globalgen_ros.model.export import load_model
from globalgen_ros.model.llama import rope_cos_sin
from globalgen_ros.runtime.format import prompt_tokens


def attention_and_kv(model, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Return causal attention (L, H, T, T) and K/V rows (T, L, 2, H, D) of one sequence."""
    cfg, T = model.config, len(ids)
    cos, sin = rope_cos_sin(torch.arange(T)[None], cfg.head_dim, cfg.rope_theta)
    mask = torch.full((T, T), float("-inf")).triu(1)
    h, atts, kvs = model.model.embed_tokens(torch.tensor([ids])), [], []
    with torch.no_grad():
        for layer in model.model.layers:
            q, k, v = layer.self_attn.qkv(layer.input_layernorm(h), cos, sin)  # (1, H, T, D)
            att = torch.softmax(q @ k.transpose(-1, -2) / cfg.head_dim ** 0.5 + mask, -1)
            h = h + layer.self_attn.out(att @ v)
            h = h + layer.mlp(layer.post_attention_layernorm(h))
            atts.append(att[0])
            kvs.append(torch.stack([k[0].transpose(0, 1), v[0].transpose(0, 1)], 1))  # (T, 2, H, D)
    return torch.stack(atts).numpy(), torch.stack(kvs, 1).numpy()


def spearman(a, b) -> float:
    ra, rb = (np.argsort(np.argsort(np.asarray(x), kind="stable"), kind="stable") for x in (a, b))
    return float(np.corrcoef(ra, rb)[0, 1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model_dir")
    parser.add_argument("--sessions", type=int, default=60)
    args = parser.parse_args()
    model = load_model(args.model_dir)
    bot = Assistant(args.model_dir, calibration=None, strategy="ar")
    tok, scorer = bot.tokenizer, bot.cache.scorer
    rho = {"layer0": [], "key_norm": [], "oldest_first": []}
    top = dict.fromkeys(rho, 0)
    for session in held_out_sessions(args.sessions, seed=3):
        history: list[tuple[str, str]] = []
        for text in session[:-1]:
            history.append((text, bot.respond(text, history=history, max_new_tokens=40).raw))
        ids, _ = prompt_tokens(tok, session[-1], history)
        starts = [i for i, t in enumerate(ids) if t == tok.user]
        new, old = starts[-1], len(starts) - 3  # turns older than the two recent ones
        if old < 2:
            continue
        att, kv = attention_and_kv(model, ids)
        spans = list(zip(starts[:old], starts[1:old + 1], strict=True))
        target = [att[:, :, new:, a:b].sum(axis=(0, 1, 2)).mean() for a, b in spans]
        values = {"layer0": scorer.turn_values(ids, starts, len(ids))[:old],
                  "key_norm": turn_values(key_value_scores(kv), starts[:-1], new)[:old],
                  "oldest_first": list(range(old, 0, -1))}
        for name, v in values.items():
            rho[name].append(spearman(target, v))
            top[name] += int(np.argmax(target) == np.argmax(v))
    n = len(rho["layer0"])
    print(json.dumps({"sessions": n, **{k: {"spearman": round(float(np.mean(v)), 3), "top_turn": round(top[k] / n, 3)}
                                        for k, v in rho.items()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
