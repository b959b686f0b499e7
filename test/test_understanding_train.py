"""`globalgen understand`'s pipeline end to end on a tiny corpus: vocabulary, fine-tuning, int8 export,
calibration and prediction (one encoder layer, a few steps: the code path, not the accuracy)."""

from __future__ import annotations

import json

from globalgen_ros.schema import load_schema


def test_tiny_fine_tune_exports_a_model_that_predicts_schema_intents(tmp_path):
    from globalgen_ros.corpus import build
    from globalgen_ros.understanding import calibrate, nlu_export, train, vocab
    from globalgen_ros.understanding.predict import Understanding

    corpus, kept, tok = tmp_path / "corpus", tmp_path / "kept_ids.npy", tmp_path / "tokenizer.json"
    build.main(["--out", str(corpus), "--train", "60", "--eval", "40"])
    vocab.main(["--corpus", str(corpus), "--out", str(kept), "--tok-out", str(tok)])
    train.main(["--corpus", str(corpus), "--kept", str(kept), "--tokenizer", str(tok), "--out", str(tmp_path / "t"),
                "--layers", "1", "--max-steps", "3", "--batch", "8", "--log-every", "1"])
    nlu_export.main(["--ckpt", str(tmp_path / "t"), "--out", str(tmp_path / "nlu")])
    calibrate.main(["--model", str(tmp_path / "nlu"), "--cases", str(corpus / "eval.jsonl"), "--write"])
    u = Understanding(tmp_path / "nlu")
    meta = json.loads((tmp_path / "nlu" / "nlu.json").read_text(encoding="utf-8"))
    assert meta["n_layers"] == 1 and meta["calibration"]["n_report"] == 20 and u.min_confidence > 0
    schema = load_schema()
    for text in ("导航到西单大悦城", "call Renée", "把温度调到二十二度"):
        p = u.predict(text)
        assert p["intent"] in schema and 0.0 <= p["confidence"] <= 1.0
        assert not schema.validate_output(p["intent"], {k: v for k, v in p["slots"].items()})
        assert all(text[a:b] == p["slots"][name] for name, (a, b) in p["spans"].items()
                   if not p["slots"][name].isdigit())
