"""Fine-tune the understanding model on the corpus + declines + near-misses; validate; fit a temperature.

python -m globalgen_ros.understanding.train --layers 6 --epochs 1 --out runs/nlu/train
"""

import argparse
import json
import math
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

from globalgen_ros.schema import load_schema
from globalgen_ros.understanding.data import IGNORE, Encoded, augment_context, build_examples, encode_example
from globalgen_ros.understanding.labels import Layout, layout_from_schema
from globalgen_ros.understanding.model import NLUModel, build_model, losses


def collate(items: list[Encoded], pad_id: int = 1) -> dict[str, torch.Tensor]:
    """Right-pad a list of encoded examples into tensors."""
    T = max(len(x.ids) for x in items)
    ids = torch.full((len(items), T), pad_id, dtype=torch.long)
    mask = torch.zeros((len(items), T), dtype=torch.long)
    tags = torch.full((len(items), T), IGNORE, dtype=torch.long)
    for i, x in enumerate(items):
        ids[i, : len(x.ids)] = torch.tensor(x.ids)
        mask[i, : len(x.ids)] = 1
        tags[i, : len(x.ids)] = torch.tensor(x.tags)
    return {
        "input_ids": ids,
        "attention_mask": mask,
        "tags": tags,
        "intent": torch.tensor([x.intent for x in items]),
        "enums": torch.tensor([x.enums for x in items]),
    }


def split_data(
    tok: Tokenizer, layout: Layout, corpus: Path, max_len: int, seed: int, ctx_pos: float = 0.0, ctx_none: float = 0.0,
    none_share: float = 0.27, stop_lists: bool = False, surface: float = 0.0,
) -> dict:
    """Encode all sources, hold out 5 % of the unique examples for validation, repeat declines/near-misses; with
    ctx_pos / ctx_none > 0, context-wrap that share of the positive / none training examples (data.augment_context)
    and also return val_ctx, every validation example wrapped (seed + 1). With stop_lists, the stop lists' lines
    are added to training once (never to validation: their near misses have no intent label). With surface > 0,
    that share of the training examples (after context wrapping) is given a surface form (surface.py)."""
    b, drops = build_examples(corpus, seed=seed, target_none=none_share, stop_lists=stop_lists), Counter()
    sources = ("corpus", "declines", "near_misses", "supplements", "stop_lists")
    enc = {s: [encode_example(tok, layout, e, max_len, drops) for e in b[s]] for s in sources}
    uniq = [x for s in sources[:-1] for x in enc[s] if x is not None]
    random.Random(seed).shuffle(uniq)
    n_val = len(uniq) // 20
    val, train = uniq[:n_val], uniq[n_val:]
    train = train + [x for x in train if x.ex.source != "corpus"] * (b["repeat"] - 1)
    train += [x for x in enc["stop_lists"] if x is not None]
    ctx_counts: dict = {}
    if ctx_pos > 0 or ctx_none > 0:
        train, ctx_counts = wrap_encoded(train, b["context_pool"], tok, layout, max_len, seed, ctx_pos, ctx_none)
        val_ctx, c2 = wrap_encoded(val, b["context_pool"], tok, layout, max_len, seed + 1, 1.0, 1.0)
        val_ctx = [x for x in val_ctx if x.ex.source.endswith("+ctx")]
        ctx_counts["val_ctx"] = {"n": len(val_ctx), **c2}
    surface_counts: dict = {}
    if surface > 0:
        train, surface_counts = surface_encoded(train, tok, layout, max_len, seed, surface)
    counts = {s: {"raw": len(b[s]), "kept": sum(x is not None for x in enc[s])} for s in enc}
    counts["train_after_repeat"] = dict(Counter(x.ex.source for x in train))
    counts["train_none_share"] = sum(x.intent >= 0 and layout.intents[x.intent] == "none" for x in train) / len(train)
    meta = {"counts": counts, "drops": dict(drops), "repeat": b["repeat"], "held_out_families": b["held_out_families"]}
    if surface_counts:
        meta["surface"] = surface_counts
    if ctx_counts:
        meta["context_wrap"] = ctx_counts | {"pool": {k: len(v) for k, v in b["context_pool"].items()}}
        return {"train": train, "val": val, "val_ctx": val_ctx, "meta": meta}
    return {"train": train, "val": val, "meta": meta}


def surface_encoded(
    data: list[Encoded], tok: Tokenizer, layout: Layout, max_len: int, seed: int, share: float,
) -> tuple[list[Encoded], dict]:
    """surface.surface_form on that share of data (seeded); a transformed example that no longer encodes or is
    longer than max_len tokens is dropped (counted) and the original kept in its place."""
    from globalgen_ros.understanding.normalise import normalise
    from globalgen_ros.understanding.surface import homophones, surface_form

    rng, n, drops, out = random.Random(seed + 2), Counter(), Counter(), []
    sounds = homophones([x.ex.text for x in data if x.ex.lang == "zh"])
    for x in data:
        form = surface_form(x.ex, sounds, rng) if rng.random() < share else None
        e = (encode_example(tok, layout, form, max_len, drops)
             if form and len(tok.encode(normalise(form.text)[0]).ids) <= max_len else None)
        n[form.source.rsplit("+", 1)[1] if e else ("dropped" if form else "kept")] += 1
        out.append(e or x)
    return out, dict(n)


def wrap_encoded(
    data: list[Encoded], pool: dict, tok: Tokenizer, layout: Layout, max_len: int, seed: int, p_pos: float,
    p_none: float,
) -> tuple[list[Encoded], dict]:
    """data.augment_context on the examples of data; a wrapped example longer than max_len tokens, or whose slots
    no longer encode, is dropped (counted) and the original kept in its place."""
    from globalgen_ros.understanding.normalise import normalise

    wrapped, n = augment_context([x.ex for x in data], pool, seed, p_pos, p_none)
    out, drops = [], Counter()
    for x, w in zip(data, wrapped, strict=True):
        if w is x.ex:
            out.append(x)
            continue
        if len(tok.encode(normalise(w.text)[0]).ids) > max_len:
            n["dropped_too_long"] += 1
            out.append(x)
            continue
        e = encode_example(tok, layout, w, max_len, drops)
        if e is None:
            n["dropped_slot"] += 1
        out.append(e or x)
    n["kept_wrapped"] = sum(o.ex.source.endswith("+ctx") for o in out)
    return out, dict(n)


def lr_lambda(warmup: int, total: int):
    """Linear warmup then linear decay to 0."""
    return lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (total - s) / max(1, total - warmup))


@torch.no_grad()
def predict_batches(model: NLUModel, data: list[Encoded], bs: int = 128) -> dict[str, list[np.ndarray]]:
    """Intent logits (N, C), and per example tag argmax (T,) and enum logits (E,)."""
    model.eval()
    out = {"intent": [], "tags": [], "enum": []}
    for i in range(0, len(data), bs):
        b = collate(data[i : i + bs])
        il, tl, el = model(b["input_ids"], b["attention_mask"])
        out["intent"].append(il.numpy())
        out["tags"] += [tl[j, : len(x.ids)].argmax(-1).numpy() for j, x in enumerate(data[i : i + bs])]
        out["enum"] += list(el.numpy())
    out["intent"] = np.concatenate(out["intent"])
    return out


def frame_correct(x: Encoded, tags: np.ndarray, enum: np.ndarray, layout: Layout) -> bool:
    """All BIO tags of real tokens and all enum groups of the gold intent right (token-level slot exact match)."""
    gold = np.array(x.tags)
    if not (tags[gold != IGNORE] == gold[gold != IGNORE]).all():
        return False
    for g, key in enumerate(layout.groups):
        if x.enums[g] != IGNORE:
            k, n = layout.enums[key]["offset"], len(layout.enums[key]["values"])
            if int(enum[k : k + n].argmax()) != x.enums[g]:
                return False
    return True


def ece(probs: np.ndarray, labels: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error of the top-class confidence, equal-width bins."""
    conf, pred = probs.max(1), probs.argmax(1)
    edges = np.linspace(0, 1, bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            total += m.mean() * abs((pred[m] == labels[m]).mean() - conf[m].mean())
    return float(total)


def softmax(z: np.ndarray) -> np.ndarray:
    """Row softmax."""
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """Temperature minimising the validation NLL (log-spaced grid, then refined)."""

    def nll(t: float) -> float:
        return float(-np.log(softmax(logits / t)[np.arange(len(labels)), labels] + 1e-12).mean())

    grid = np.exp(np.linspace(np.log(0.25), np.log(8.0), 121))
    best = min(grid, key=nll)
    fine = best * np.exp(np.linspace(-0.03, 0.03, 61))
    return float(min(fine, key=nll))


def validate(model: NLUModel, val: list[Encoded], layout: Layout) -> dict:
    """Per-language intent accuracy and slot exact match; temperature and ECE before/after."""
    p = predict_batches(model, val)
    labels = np.array([x.intent for x in val])
    res: dict = {}
    for lang in ("en", "zh"):
        idx = [i for i, x in enumerate(val) if x.ex.lang == lang]
        res[lang] = {
            "n": len(idx),
            "intent_acc": float((p["intent"][idx].argmax(1) == labels[idx]).mean()),
            "slot_em": float(np.mean([frame_correct(val[i], p["tags"][i], p["enum"][i], layout) for i in idx])),
        }
    t = fit_temperature(p["intent"], labels)
    res["temperature"] = t
    res["ece_before"] = ece(softmax(p["intent"]), labels)
    res["ece_after"] = ece(softmax(p["intent"] / t), labels)
    return res


def stop_teacher(path: Path, stop: int, threads: int = 1):
    """A function giving an int8 ONNX model's p(stop) (B,) for a collated batch: the target of --stop-teacher."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def p_stop(batch: dict[str, torch.Tensor]) -> torch.Tensor:
        feed = {"input_ids": batch["input_ids"].numpy(), "attention_mask": batch["attention_mask"].numpy()}
        (il,) = sess.run(["intent_logits"], feed)  # (B, n_intents), raw: the temperature is fitted afterwards
        return torch.from_numpy(softmax(il.astype(np.float64))[:, stop]).float()

    return p_stop


def train(model: NLUModel, data: list[Encoded], layout: Layout, args) -> dict:
    """AdamW with warmup/decay; separate lr for encoder and heads; stops at max_steps or the time budget. With
    --stop-teacher, the model's p(stop) is also pulled towards the teacher's (weight --stop-distill)."""
    rng = random.Random(args.seed)
    steps_per_epoch = math.ceil(len(data) / args.batch)
    total = args.max_steps or int(args.epochs * steps_per_epoch)
    groups = [
        {"params": list(model.enc.parameters()), "lr": args.lr_enc},
        {"params": list(model.heads.parameters()), "lr": args.lr_heads},
    ]
    opt = torch.optim.AdamW(groups, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(max(1, int(0.06 * total)), total))
    teacher = stop_teacher(args.stop_teacher, layout.intents.index("stop"), args.threads) if args.stop_teacher else None
    t0, step, order = time.time(), 0, []
    model.train()
    while step < total and time.time() - t0 < args.budget_s:
        if not order:
            order = list(range(len(data)))
            rng.shuffle(order)
        batch = collate([data[i] for i in order[: args.batch]])
        order = order[args.batch :]
        if teacher:
            batch["teacher_stop"] = teacher(batch)
        ls = losses(model, batch, layout)
        loss = ls["intent"] + ls["tag"] + ls["enum"] + args.stop_distill * ls.get("distill", 0.0)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        step += 1
        if step % args.log_every == 0 or step == 1:
            el = time.time() - t0
            print(f"step {step}/{total} {el:.0f}s ({el / step:.3f}s/step) " + " ".join(
                f"{k}={v.item():.4f}" for k, v in ls.items()), flush=True)
    return {"steps": step, "planned_steps": total, "steps_per_epoch": steps_per_epoch, "wall_s": time.time() - t0}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=Path("runs/nlu/corpus"))
    ap.add_argument("--kept", type=Path, default=Path("runs/nlu/kept_ids.npy"))
    ap.add_argument("--tokenizer", type=Path, default=Path("runs/nlu/tokenizer_pruned.json"))
    ap.add_argument("--out", type=Path, default=Path("runs/nlu/train"))
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--budget-s", type=float, default=1e9, help="stop training after this many seconds")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-len", type=int, default=48)
    ap.add_argument("--lr-enc", type=float, default=5e-5)
    ap.add_argument("--lr-heads", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--init", type=Path, default=None, help="state dict (model.pt) to continue training from")
    ap.add_argument("--ctx-pos", type=float, default=0.0, help="share of positive train examples context-wrapped")
    ap.add_argument("--ctx-none", type=float, default=0.0, help="share of none train examples context-wrapped")
    ap.add_argument("--none-share", type=float, default=0.27, help="target share of intent none in training")
    ap.add_argument("--stop-lists", action="store_true", help="train on the tuned-on stop lists too (data.STOP_LISTS)")
    ap.add_argument("--surface", type=float, default=0.0, help="share of train examples given a surface form")
    ap.add_argument("--stop-teacher", type=Path, default=None,
                    help="an int8 nlu ONNX file whose p(stop) the model is pulled towards on each training batch")
    ap.add_argument("--stop-distill", type=float, default=1.0, help="weight of the stop distillation loss")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)  # denormal grads/moments otherwise slow CPU training to a crawl
    args.out.mkdir(parents=True, exist_ok=True)
    layout, tok = layout_from_schema(load_schema()), Tokenizer.from_file(str(args.tokenizer))
    kept = np.load(args.kept)
    assert tok.get_vocab_size() == kept.size, "tokenizer and kept ids disagree"
    d = split_data(tok, layout, args.corpus, args.max_len, args.seed, args.ctx_pos, args.ctx_none, args.none_share,
                   args.stop_lists, args.surface)
    print(json.dumps(d["meta"], indent=1), flush=True)
    model = build_model(layout, args.layers, kept, args.seed)
    if args.init:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
        if "val_ctx" in d:
            print(json.dumps({"init_val_ctx": validate(model, d["val_ctx"], layout)}, indent=1), flush=True)
    run = train(model, d["train"], layout, args)
    val = validate(model, d["val"], layout)
    if "val_ctx" in d:
        val["ctx"] = validate(model, d["val_ctx"], layout)
    print(json.dumps({"run": run, "val": val}, indent=1), flush=True)
    torch.save(model.state_dict(), args.out / "model.pt")
    recipe = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    info = {**d["meta"], "run": run, "val": val, "recipe": recipe, "layout": layout.to_json(), "kept": kept.size}
    (args.out / "train_info.json").write_text(json.dumps(info, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
