"""A 50-step training run on a slice of the corpus: the loss falls (needs torch)."""

import json

from model_fixtures import *  # noqa: F403 (fixtures)


def test_fifty_steps_reduce_the_loss(small_corpus, small_tokenizer, tmp_path):
    import shutil

    from globalgen_ros.model.train import TrainConfig, train

    out = tmp_path / "run"
    out.mkdir()
    shutil.copy(small_corpus / "info.json", out / "info.json")
    (out / "tokenizer.json").write_text(small_tokenizer.hf.to_str())
    cfg = TrainConfig(out=str(out), corpus=str(small_corpus), steps=50, batch_tokens=1024, lr=3e-3, warmup=5,
                      model={"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                             "num_attention_heads": 2}, checkpoint_every=0, log_every=10, threads=1)
    model, summary = train(cfg, progress=False)
    log = [json.loads(line) for line in (out / "train.log").read_text().splitlines()]
    losses = [row["loss"] for row in log if "loss" in row]
    assert summary["steps"] == 50 and (out / "last.pt").exists()
    assert losses[-1] < 0.75 * losses[0], losses
    assert all(h < losses[0] for h in log[-2]["heads"])  # the extra heads learn too


def test_init_fine_tunes_from_a_checkpoint(small_corpus, small_tokenizer, tmp_path):
    """`init` starts from a checkpoint's weights with a fresh schedule (unlike `resume`)."""
    import shutil

    import torch

    from globalgen_ros.model.train import TrainConfig, train

    runs = []
    for name, init, steps in (("base", "", 30), ("tuned", "base", 5)):
        out = tmp_path / name
        out.mkdir()
        shutil.copy(small_corpus / "info.json", out / "info.json")
        if not init:  # the fine-tune takes the tokenizer from the checkpoint's run directory
            (out / "tokenizer.json").write_text(small_tokenizer.hf.to_str())
        cfg = TrainConfig(out=str(out), corpus=str(small_corpus), steps=steps, batch_tokens=1024, lr=3e-3, warmup=2,
                          model={"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                                 "num_attention_heads": 2}, checkpoint_every=0, log_every=1, threads=1,
                          init=str(tmp_path / init / "last.pt") if init else "")
        train(cfg, progress=False)
        runs.append([json.loads(line) for line in (out / "train.log").read_text().splitlines()])
    base, tuned = runs
    assert tuned[0]["step"] == 0 and tuned[0]["lr"] < 3e-3  # a fresh warm-up, not a resumed schedule
    assert tuned[0]["loss"] < 0.9 * base[0]["loss"]  # but the base model's weights
    assert torch.load(tmp_path / "tuned" / "last.pt", weights_only=False)["recipe"]["train_config"]["init"]
    assert (tmp_path / "tuned" / "tokenizer.json").read_text() == small_tokenizer.hf.to_str()


def test_word_drop_keeps_slot_values_and_special_tokens(small_corpus, small_tokenizer):
    """Augmentation deletes only ordinary user words: every header still copies a span of its transcript."""
    import random

    import numpy as np

    from globalgen_ros.model.train import N_SPECIAL, batches, encode_corpus
    from globalgen_ros.schema import load_schema

    tok, schema = small_tokenizer, load_schema()
    data = encode_corpus(tok, schema, small_corpus / "train.jsonl", 256, 2.0)[:300]
    stream = batches(data, 4096, tok.pad, random.Random(0), word_drop=1.0)
    shortened = checked = 0
    for _ in range(20):
        ids, weights = next(stream)
        for row, w in zip(ids.numpy(), weights.numpy(), strict=True):
            row = row[row != tok.pad]
            original = next(d for d in data if np.array_equal(d[0][d[1] > 0], row[w[:len(row)] > 0]))
            specials = original[0][original[0] < N_SPECIAL]
            assert np.array_equal(row[row < N_SPECIAL], specials)  # structure intact
            shortened += len(row) < len(original[0])
            for start in np.flatnonzero(row == tok.value):  # each copied (text) value is still in the prompt
                end = next(i for i in range(start + 1, len(row)) if row[i] < N_SPECIAL)
                intent_at = int(np.flatnonzero(row[:start] == tok.intent)[-1])
                intent = tok.decode(row[intent_at + 1:intent_at + 1 + next(
                    i for i, t in enumerate(row[intent_at + 1:]) if t < N_SPECIAL)]).strip()
                slot_at = int(np.flatnonzero(row[:start] == tok.slot)[-1])
                slot = schema[intent].slot(tok.decode(row[slot_at + 1:start]).strip())
                value, prompt = list(row[start + 1:end]), list(row[:intent_at])
                if slot.type == "text":
                    checked += 1
                    assert any(prompt[i:i + len(value)] == value for i in range(len(prompt))), tok.decode(row)
    assert shortened > 0 and checked > 0
