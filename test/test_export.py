"""ONNX export of a small random model: the contract's inputs/outputs, P = 0 prefill, int8, HF loading."""

import json

import numpy as np
import pytest


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    import torch

    from globalgen_ros.model.export import export_all
    from globalgen_ros.model.llama import LlamaConfig, LlamaWithHeads

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=2, max_position_embeddings=128)
    model = LlamaWithHeads(cfg).eval()
    out = tmp_path_factory.mktemp("export")
    check = export_all(model, out, recipe={"kind": "test"}, keep_fp32=True)
    return model, out, check


def test_onnx_matches_torch(exported):
    _, _, check = exported
    assert max(check["fp32"].values()) < 1e-3
    assert "logits@P=0,k=5" in check["fp32"]  # the first prefill has an empty cache


def test_onnx_interface_names_and_dynamic_axes(exported):
    import onnxruntime as ort

    from globalgen_ros.model.export import example_inputs, onnx_feeds

    model, out, _ = exported
    sess = ort.InferenceSession(str(out / "model.int8.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in sess.get_inputs()] == ["input_ids", "position_ids", "attention_mask", "logit_rows",
                                                    "past_k_0", "past_v_0", "past_k_1", "past_v_1"]
    assert [o.name for o in sess.get_outputs()] == ["logits", "hidden", "new_kv"]
    heads = ort.InferenceSession(str(out / "heads.int8.onnx"), providers=["CPUExecutionProvider"])
    cfg = model.config
    for past, new in [(0, 1), (0, 7), (9, 1), (9, 6)]:
        logits, hidden, new_kv = sess.run(None, onnx_feeds(example_inputs(cfg, past, new)))
        assert logits.shape == (1, new, cfg.vocab_size) and hidden.shape == (1, new, cfg.hidden_size)
        assert new_kv.shape == (new, cfg.num_hidden_layers, 2, cfg.num_attention_heads, cfg.head_dim)
        (head_logits,) = heads.run(None, {"hidden": hidden[0]})
        assert head_logits.shape == (new, cfg.num_extra_heads, cfg.vocab_size)
        rows = np.arange(new - 1, new, dtype=np.int64)  # the last row only: what a prompt needs
        (last,) = sess.run(["logits"], onnx_feeds(example_inputs(cfg, past, new), rows))
        assert last.shape == (1, 1, cfg.vocab_size)


def test_int8_is_quantized_untied_and_row_independent(exported):
    _, out, _ = exported
    assert (out / "model.int8.onnx").stat().st_size < 0.4 * (out / "model.fp32.onnx").stat().st_size
    assert b"DynamicQuantizeLinear" not in (out / "model.int8.onnx").read_bytes()  # per-row activations


def test_manifest_lists_every_artifact(exported):
    from globalgen_ros.runtime.artifacts import load_artifacts

    _, out, _ = exported
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["files"]) >= {"config.json", "model.safetensors", "heads.safetensors", "model.int8.onnx",
                                      "heads.int8.onnx"}
    assert manifest["recipe"] == {"kind": "test"}
    load_artifacts(out, required=("config.json", "model.int8.onnx", "heads.int8.onnx"))


def test_transformers_loads_the_weights(exported):
    import torch
    from transformers import LlamaForCausalLM

    from globalgen_ros.model.export import load_model

    model, out, _ = exported
    hf = LlamaForCausalLM.from_pretrained(out, torch_dtype=torch.float32).eval()
    ours = load_model(out)  # fp16 round trip of the weights
    ids = torch.randint(0, model.config.vocab_size, (1, 12))
    with torch.no_grad():
        ref, _ = ours.forward_train(ids)
        got = hf(ids).logits
    np.testing.assert_allclose(got.numpy(), ref.numpy(), atol=2e-4)
