"""Rebuilding the shipped understanding model from its int8 graph (understanding/from_shipped.py)."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from globalgen_ros.understanding.export import quantize_int8, session  # noqa: E402
from globalgen_ros.understanding.from_shipped import dequantize, initializers, rebuild  # noqa: E402
from globalgen_ros.understanding.model import export_nlu  # noqa: E402
from globalgen_ros.understanding.predict import Understanding  # noqa: E402

NLU = Path(__file__).resolve().parents[1] / "models" / "default" / "nlu"
TEXTS = ["导航到首都机场", "pick up the red box", "call Renée", "把温度调到二十二度", "what's the weather like", "停下"]


@pytest.fixture(scope="module")
def rebuilt():
    torch.set_num_threads(2)
    return rebuild(NLU)


def test_the_rebuilt_model_exports_exactly_the_shipped_weights_dequantized(rebuilt, tmp_path):
    """Every quantized weight of the shipped graph, dequantized, is the same float tensor in a fresh fp32 export of
    the rebuilt model (uint8 asymmetric quantization is not idempotent, so requantizing cannot prove this)."""
    model, kept, meta = rebuilt
    assert kept.size == meta["kept_vocab_size"] and (np.diff(kept) > 0).all()
    graph = initializers(NLU / "nlu.int8.onnx")
    shipped = dequantize(graph)
    fresh = initializers(export_nlu(model, tmp_path / "fp32.onnx"))
    quantized = [k for k in shipped if k + "_quantized" in graph]
    assert len(quantized) >= 70 and set(quantized) <= set(fresh)
    for name in quantized:
        np.testing.assert_array_equal(fresh[name], shipped[name], err_msg=name)


def test_requantizing_the_rebuilt_model_keeps_the_shipped_decisions(rebuilt, tmp_path):
    model, _, _ = rebuilt
    shipped = Understanding(NLU)
    again = session(quantize_int8(export_nlu(model, tmp_path / "fp32.onnx"), tmp_path / "int8.onnx"))
    for text in TEXTS:
        ref = shipped.run(text)
        ids = shipped.encode(ref["norm"])[0]
        il, tl, _ = (x[0] for x in again.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)}))
        assert il.argmax() == ref["intent"].argmax() and (tl.argmax(-1) == ref["tags"].argmax(-1)).all(), text


def test_the_rebuilt_fp32_model_agrees_with_the_shipped_int8_one(rebuilt):
    model, _, _ = rebuilt
    shipped = Understanding(NLU)
    for text in TEXTS:
        ref = shipped.run(text)
        ids = torch.from_numpy(shipped.encode(ref["norm"])[0])
        with torch.no_grad():
            il, _, _ = model(ids, torch.ones_like(ids))
        assert int(il[0].argmax()) == int(ref["intent"].argmax())


def test_dequantize_undoes_per_column_and_transposed_quantization():
    w = np.arange(12, dtype=np.float32).reshape(3, 4) - 5  # (K, N)
    scale = np.abs(w).max(0) / 127  # (N,)
    q = np.round(w / scale).astype(np.int8)
    zero = np.zeros(4, np.int8)
    out = dequantize({"m_quantized": q, "m_scale": scale, "m_zero_point": zero, "b": np.ones(2, np.float32),
                      "g.weight_Transposed_quantized": q, "g.weight_Transposed_scale": scale,
                      "g.weight_Transposed_zero_point": zero})
    np.testing.assert_allclose(out["m"], w, atol=scale.max())
    np.testing.assert_allclose(out["g.weight"], w.T, atol=scale.max())
    assert set(out) == {"m", "b", "g.weight"}


def test_a_schema_with_a_new_intent_cannot_continue_from_the_shipped_model(tmp_path):
    from globalgen_ros.understanding.from_shipped import check_layout

    check_layout(NLU)  # the shipped schema fits
    schema = (NLU.parents[2] / "config" / "intents.yaml").read_text()
    extended = schema.replace("  none:\n", "  honk:\n    description: Sound the horn.\n  none:\n")
    assert extended != schema
    (tmp_path / "intents.yaml").write_text(extended)
    with pytest.raises(ValueError, match="honk.*without --from-shipped"):
        check_layout(NLU, tmp_path / "intents.yaml")


def test_the_stop_teacher_is_the_shipped_stop_decision_and_distilling_moves_towards_it(rebuilt):
    """train.stop_teacher gives the shipped model's p(stop); the rebuilt model already sits at the distillation's
    minimum; one whose stop logit is pushed up loses more, and a gradient step on the loss brings it back."""
    from globalgen_ros.understanding.data import Encoded
    from globalgen_ros.understanding.model import stop_distill_loss
    from globalgen_ros.understanding.train import collate, stop_teacher

    model, _, meta = rebuilt
    stop = meta["intents"].index("stop")
    shipped = Understanding(NLU)
    ids = [shipped.encode(shipped.run(t)["norm"])[0][0].tolist() for t in TEXTS]
    batch = collate([Encoded(x, [-100] * len(x), 0, [], None) for x in ids])  # right-padded as in training
    p_t = stop_teacher(NLU / "nlu.int8.onnx", stop)(batch)
    assert p_t[TEXTS.index("停下")] > 0.9 and p_t[TEXTS.index("pick up the red box")] < 0.05
    with torch.no_grad():
        il, _, _ = model(batch["input_ids"], batch["attention_mask"])
        at_teacher = stop_distill_loss(il, p_t, stop)
        np.testing.assert_allclose(torch.softmax(il, 1)[:, stop].numpy(), p_t.numpy(), atol=0.05)
        model.heads.intent.bias[stop] += 8.0
    try:
        il, _, _ = model(batch["input_ids"], batch["attention_mask"])
        pushed = stop_distill_loss(il, p_t, stop)
        assert pushed > 2 * at_teacher + 0.01
        pushed.backward()
        assert model.heads.intent.bias.grad[stop] > 0  # descent lowers the stop logit again
    finally:
        with torch.no_grad():
            model.heads.intent.bias[stop] -= 8.0
        model.zero_grad()
