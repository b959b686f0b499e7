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
