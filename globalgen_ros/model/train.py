"""Train the default model: corpus -> tokenizer -> LLaMA + multi-token heads -> artifacts (seeded).

    PYTHONPATH=. .venv/bin/python -m globalgen_ros.model.train --out runs/default --export models/default
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import random
import shutil
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from globalgen_ros.corpus.build import build as build_corpus
from globalgen_ros.model.llama import LlamaConfig, LlamaWithHeads
from globalgen_ros.model.tokenizer import corpus_texts, train_tokenizer
from globalgen_ros.model.train_args import TrainConfig, add_arguments, config_from_args
from globalgen_ros.runtime.format import N_SPECIAL, turn_tokens
from globalgen_ros.runtime.tokenizer import Tokenizer
from globalgen_ros.schema import load_schema


def encode_corpus(tok: Tokenizer, schema, path: Path, max_len: int,
                  header_weight: float = 1.0) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Return (ids, target weights, roles) per dialogue; weights: 0 on the prompt, header_weight on the header (through
    <|reply|>), 1 on the reply and <|end|>. A compressed cache beside the corpus file is reused."""
    cache = path.with_suffix(".encoded.npz")
    tok_sha = hashlib.sha256(tok.hf.to_str().encode()).hexdigest()  # a retrained tokenizer invalidates the cache
    if cache.exists() and (not path.exists() or cache.stat().st_mtime >= path.stat().st_mtime):
        z = np.load(cache)
        if "tokenizer_sha256" in z.files and str(z["tokenizer_sha256"]) == tok_sha and int(z["max_len"]) == max_len:
            return _split(z["ids"], z["roles"], z["offsets"], header_weight)
    ids_all, roles_all, offsets = [], [], [0]
    with open(path, encoding="utf-8") as f:
        for line in tqdm(f, desc="encode", unit="dlg", mininterval=2):
            ids, roles = [tok.bos], [0]
            for t in json.loads(line)["turns"]:
                turn, start = turn_tokens(tok, schema, t["user"], t["intent"], t["slots"], t["reply"])
                header = turn.index(tok.reply, start) + 1 - start
                ids += turn
                roles += [0] * start + [1] * header + [2] * (len(turn) - start - header)
            if len(ids) <= max_len:
                ids_all += ids
                roles_all += roles
                offsets.append(len(ids_all))
    ids_np, roles_np = np.array(ids_all, np.uint16), np.array(roles_all, np.uint8)
    offsets_np = np.array(offsets, np.int64)
    np.savez_compressed(cache, ids=ids_np, roles=roles_np, offsets=offsets_np,
                        tokenizer_sha256=tok_sha, max_len=max_len)
    return _split(ids_np, roles_np, offsets_np, header_weight)


def _split(ids: np.ndarray, roles: np.ndarray, offsets: np.ndarray,
           header_weight: float) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Cut the concatenated (ids, roles: 0 prompt / 1 header / 2 reply) back into (ids, weights, roles) dialogues."""
    weights = np.array([0.0, header_weight, 1.0], np.float32)[roles]
    ids = ids.astype(np.int64)
    return [(ids[a:b], weights[a:b], roles[a:b]) for a, b in zip(offsets[:-1], offsets[1:], strict=True)]


def delete_words(ids: np.ndarray, weights: np.ndarray, roles: np.ndarray, rng: random.Random,
                 max_words: int) -> tuple[np.ndarray, np.ndarray]:
    """Delete 1..max_words user tokens: never a special token or a token that occurs in a header of the
    dialogue (so slot values, which headers copy, stay whole)."""
    droppable = (roles == 0) & (ids >= N_SPECIAL) & ~np.isin(ids, ids[roles == 1])
    where = np.flatnonzero(droppable)
    if len(where) < 4:  # short commands keep every word: one of three is often the key word
        return ids, weights
    keep = np.ones(len(ids), bool)
    keep[rng.sample(list(where), min(len(where) // 4, rng.randint(1, max_words)))] = False
    return ids[keep], weights[keep]


def batches(data, batch_tokens: int, pad_id: int, rng: random.Random, word_drop: float = 0.0,
            max_words: int = 2):
    """Yield padded (ids, weights) batches of similar lengths, forever.

    word_drop: fraction of dialogues whose user turns lose a few words (see `delete_words`)."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i][0]), rng.random()))
    while True:
        chunks, i = [], 0
        while i < len(order):
            n = max(1, batch_tokens // len(data[order[i]][0]))
            chunk = order[i:i + n]
            n = max(1, batch_tokens // len(data[chunk[-1]][0]))  # the longest sets the padded size
            chunks.append(order[i:i + n])
            i += n
        rng.shuffle(chunks)
        for chunk in chunks:
            rows = [data[j][:2] if rng.random() >= word_drop else delete_words(*data[j], rng, max_words)
                    for j in chunk]
            T = max(len(r[0]) for r in rows)
            ids = np.full((len(chunk), T), pad_id, dtype=np.int64)
            mask = np.zeros((len(chunk), T), dtype=np.float32)
            for r, (row_ids, row_w) in enumerate(rows):
                ids[r, :len(row_ids)], mask[r, :len(row_w)] = row_ids, row_w
            yield torch.from_numpy(ids), torch.from_numpy(mask)


def loss_fn(model: LlamaWithHeads, ids: torch.Tensor, weights: torch.Tensor, head_weight: float,
            head_sample: float = 1.0, dropout: float = 0.0) -> tuple:
    """Weighted next-token loss on the assistant tokens plus the extra heads' t+2+j losses."""
    _, h = _hidden(model, ids, dropout)  # (B, T, d)
    mask = weights > 0
    tgt_mask, w = mask[:, 1:], weights[:, 1:][mask[:, 1:]]  # position t predicts token t+1
    ce = F.cross_entropy(model.lm_head(h[:, :-1][tgt_mask]), ids[:, 1:][tgt_mask], reduction="none")
    main = (ce * w).sum() / w.sum()
    total, head_losses = main, []
    for j, head in enumerate(model.heads):
        shift = j + 2
        if ids.shape[1] <= shift:
            break
        m = mask[:, shift:] & (torch.rand(mask[:, shift:].shape, device=ids.device) < head_sample)
        if not m.any():
            continue
        hl = F.cross_entropy(model.lm_head(head(h[:, :-shift][m])), ids[:, shift:][m])
        head_losses.append(hl)
        total = total + head_weight * 0.8 ** j * hl
    return total, main, head_losses


def _hidden(model: LlamaWithHeads, ids: torch.Tensor, dropout: float = 0.0):
    """Final hidden states without computing the full logits."""
    lm_head, model.lm_head = model.lm_head, torch.nn.Identity()
    try:
        h, _ = model.forward_train(ids, dropout)
    finally:
        model.lm_head = lm_head
    return None, h


def schedule_progress(step: int, elapsed_s: float, cfg: TrainConfig) -> float:
    """Fraction of the schedule done: by steps, or by time when a time limit runs out first."""
    p = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
    return max(p, elapsed_s / cfg.time_limit_s) if cfg.time_limit_s else p


def lr_at(step: int, cfg: TrainConfig, elapsed_s: float = 0.0) -> float:
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    p = schedule_progress(step, elapsed_s, cfg)
    return cfg.lr * (cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, p))))


def make_optimizer(model: LlamaWithHeads, cfg: TrainConfig) -> torch.optim.Optimizer:
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    other = [p for n, p in model.named_parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                              {"params": other, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.95))


def prepare(cfg: TrainConfig):
    """Build the corpus and the tokenizer if missing; return (tokenizer, schema, corpus dir)."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    corpus = Path(cfg.corpus or out / "corpus")
    schema = load_schema(cfg.schema or None)
    if not (corpus / "train.jsonl").exists() and not (corpus / "train.encoded.npz").exists():
        build_corpus(corpus, cfg.seed, cfg.train_dialogues, schema_path=cfg.schema or None)
    tok_path = out / "tokenizer.json"
    if not tok_path.exists() and cfg.init:  # fine-tuning keeps the checkpoint's tokenizer: its ids are the model's
        init_tok = Path(cfg.init).parent / "tokenizer.json"
        if not init_tok.exists():
            raise FileNotFoundError(f"{init_tok} missing: --init needs the tokenizer of its run next to the checkpoint")
        shutil.copy(init_tok, tok_path)
    if not tok_path.exists():
        train_tokenizer(corpus_texts(corpus / "train.jsonl", schema), cfg.vocab_size, tok_path)
    return Tokenizer(tok_path), schema, corpus


def train(cfg: TrainConfig, data=None, progress: bool = True) -> tuple[LlamaWithHeads, dict]:
    """Run the training loop; return the model and a summary (losses, time)."""
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    device = torch.device(cfg.device)
    torch.backends.cuda.matmul.allow_tf32 = True
    tok, schema, corpus = prepare(cfg)
    if data is None:
        data = encode_corpus(tok, schema, corpus / "train.jsonl", cfg.max_len, cfg.header_weight)
    mcfg = LlamaConfig(**{"vocab_size": tok.vocab_size, "max_position_embeddings": cfg.max_len} | cfg.model)
    model = LlamaWithHeads(mcfg).to(device)
    opt = make_optimizer(model, cfg)
    start = 0
    if cfg.init and not cfg.resume:
        model.load_state_dict(torch.load(cfg.init, map_location=device, weights_only=False)["model"])
    if cfg.resume:
        ckpt = torch.load(cfg.resume, map_location=device, weights_only=False)
        model.load_state_dict(ckpt["model"])
        if "optimizer" in ckpt:
            opt.load_state_dict(ckpt["optimizer"])
        start = ckpt["step"]
    out = Path(cfg.out)
    log = open(out / "train.log", "a", encoding="utf-8")
    stream = batches(data, cfg.batch_tokens, tok.pad, random.Random(cfg.seed), cfg.word_drop)
    for _ in range(start):  # a resumed run sees the batches it has not seen yet
        next(stream)
    t0, losses, summary = time.time(), [], {}
    bar = tqdm(range(start, cfg.steps), desc="train", initial=start, total=cfg.steps, unit="step",
               disable=not progress, mininterval=5)
    for step in bar:
        elapsed = time.time() - t0
        lr = lr_at(step, cfg, elapsed)
        for g in opt.param_groups:
            g["lr"] = lr
        ids, mask = (t.to(device, non_blocking=True) for t in next(stream))
        total, main, head_losses = loss_fn(model, ids, mask, cfg.head_weight, cfg.head_sample, cfg.dropout)
        opt.zero_grad(set_to_none=True)
        total.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(main.item())
        if step % cfg.log_every == 0 or step == cfg.steps - 1:
            row = {"step": step, "loss": round(float(np.mean(losses[-cfg.log_every:])), 4),
                   "heads": [round(h.item(), 4) for h in head_losses], "lr": round(lr, 6),
                   "elapsed_s": round(time.time() - t0, 1)}
            log.write(json.dumps(row) + "\n")
            log.flush()
            bar.set_postfix(loss=row["loss"])
        out_of_time = bool(cfg.time_limit_s) and time.time() - t0 >= cfg.time_limit_s
        if (cfg.checkpoint_every and (step + 1) % cfg.checkpoint_every == 0) or step == cfg.steps - 1 or out_of_time:
            save_checkpoint(model, cfg, out / "last.pt", step + 1, time.time() - t0, opt)
            if (step + 1) % 400 == 0:
                save_checkpoint(model, cfg, out / f"step{step + 1}.pt", step + 1, time.time() - t0)
        if out_of_time:
            log.write(json.dumps({"stopped": "schedule done (time limit)", "step": step + 1}) + "\n")
            break
    model.cpu()
    summary = {"steps": step + 1, "device": cfg.device, "train_seconds": round(time.time() - t0, 1),
               "first_loss": losses[0],
               "final_loss": float(np.mean(losses[-cfg.log_every:])), "params": model.num_params(),
               "params_without_heads": model.num_params(include_heads=False), "dialogues": len(data)}
    log.write(json.dumps({"summary": summary}) + "\n")
    log.close()
    return model.eval(), summary


def recipe(cfg: TrainConfig, model: LlamaWithHeads, **extra) -> dict:
    return {"train_config": dataclasses.asdict(cfg), "model_config": dataclasses.asdict(model.config),
            "command": "globalgen train", **extra}


def save_checkpoint(model: LlamaWithHeads, cfg: TrainConfig, path: Path, step: int, seconds: float,
                    opt: torch.optim.Optimizer | None = None) -> None:
    weights = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    state = {"config": dataclasses.asdict(model.config), "model": weights, "step": step,
             "recipe": recipe(cfg, model, steps_done=step, train_seconds=round(seconds, 1))}
    if opt is not None:
        state["optimizer"] = opt.state_dict()
    torch.save(state, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    cfg = config_from_args(args)
    model, summary = train(cfg)
    print(json.dumps(summary))
    if args.export:
        from globalgen_ros.model.export import export_all

        export_all(model, args.export, recipe=recipe(cfg, model, **summary), tokenizer=Path(cfg.out) / "tokenizer.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
