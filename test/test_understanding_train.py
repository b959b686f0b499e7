"""`globalgen understand`'s pipeline end to end on a tiny corpus: vocabulary, fine-tuning, int8 export,
calibration and prediction (one encoder layer, a few steps: the code path, not the accuracy)."""

from __future__ import annotations

import json

import torch
import torch.nn.functional as F

from globalgen_ros.schema import load_schema
from globalgen_ros.understanding.model import intent_loss


def test_tiny_fine_tune_exports_a_model_that_predicts_schema_intents(tmp_path):
    from globalgen_ros.corpus import build
    from globalgen_ros.understanding import calibrate, nlu_export, train, vocab
    from globalgen_ros.understanding.predict import Understanding

    corpus, kept, tok = tmp_path / "corpus", tmp_path / "kept_ids.npy", tmp_path / "tokenizer.json"
    build.main(["--out", str(corpus), "--train", "60", "--eval", "40"])
    vocab.main(["--corpus", str(corpus), "--out", str(kept), "--tok-out", str(tok)])
    train.main(["--corpus", str(corpus), "--kept", str(kept), "--tokenizer", str(tok), "--out", str(tmp_path / "t"),
                "--layers", "1", "--max-steps", "3", "--batch", "8", "--log-every", "1", "--stop-lists"])
    nlu_export.main(["--ckpt", str(tmp_path / "t"), "--out", str(tmp_path / "nlu")])
    calibrate.main(["--model", str(tmp_path / "nlu"), "--cases", str(corpus / "eval.jsonl"), "--write"])
    u = Understanding(tmp_path / "nlu")
    meta = json.loads((tmp_path / "nlu" / "nlu.json").read_text(encoding="utf-8"))
    info = json.loads((tmp_path / "t" / "train_info.json").read_text(encoding="utf-8"))
    assert info["counts"]["stop_lists"]["kept"] > 6000 and meta["training"]["recipe"]["stop_lists"]
    assert meta["n_layers"] == 1 and meta["calibration"]["n_report"] == 20 and u.min_confidence > 0
    schema = load_schema()
    for text in ("导航到西单大悦城", "call Renée", "把温度调到二十二度"):
        p = u.predict(text)
        assert p["intent"] in schema and 0.0 <= p["confidence"] <= 1.0
        assert not schema.validate_output(p["intent"], {k: v for k, v in p["slots"].items()})
        assert all(text[a:b] == p["slots"][name] for name, (a, b) in p["spans"].items()
                   if not p["slots"][name].isdigit())


def test_intent_loss_is_cross_entropy_on_labels_and_minus_log_not_stop_on_near_misses():
    torch.manual_seed(0)
    il = torch.randn(4, 6, requires_grad=True)  # (B, n_intents); intent 2 is stop
    labels = torch.tensor([0, 5, -2, -2])
    loss = intent_loss(il, labels, stop=2)
    p = torch.softmax(il, dim=1)
    want = (F.cross_entropy(il[:2], labels[:2], reduction="sum") - torch.log1p(-p[2:, 2]).sum()) / 4
    assert torch.allclose(loss, want, atol=1e-6)
    loss.backward()
    assert (il.grad[2:, 2] > 0).all()  # descending the loss lowers stop on the near misses
    assert torch.allclose(intent_loss(il[:2], labels[:2], 2), F.cross_entropy(il[:2], labels[:2]), atol=1e-6)
