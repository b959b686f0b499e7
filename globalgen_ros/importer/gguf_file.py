"""Read a GGUF file of the LLaMA family with the `gguf` package: config, dequantized weights, tokenizer.

llama.cpp stores q_proj / k_proj rows permuted for its interleaved RoPE (convert_hf_to_gguf.py `permute`);
they are permuted back here to HF's rotate-half layout. A llama3-style RoPE is stored as the `rope_freqs`
tensor (frequency i divided by factor i), which becomes `rope_scaling = {"rope_type": "freq_factors"}`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from globalgen_ros.importer.source import ImportedSource, SourceError

LAYER_NAMES = {  # GGUF blk.N.<name>.weight -> HF model.layers.N.<name>.weight
    "attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
    "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj",
}
TOP_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}


def metadata(reader, key: str, default=None):
    """Return the value of a metadata key (strings, numbers, arrays as lists), or `default`."""
    field = reader.fields.get(key)
    return default if field is None else field.contents()


def hf_name(gguf_name: str) -> str | None:
    """Return the HF parameter name of a GGUF tensor name (None: not a parameter, e.g. rope_freqs)."""
    base, _, suffix = gguf_name.rpartition(".")
    if suffix != "weight":
        return None
    if base in TOP_NAMES:
        return f"{TOP_NAMES[base]}.weight"
    parts = base.split(".")
    if len(parts) == 3 and parts[0] == "blk" and parts[2] in LAYER_NAMES:
        return f"model.layers.{parts[1]}.{LAYER_NAMES[parts[2]]}.weight"
    return None


def unpermute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo llama.cpp's RoPE row permutation of a q/k projection (out, in) with `n_heads` heads."""
    half = w.shape[0] // n_heads // 2
    return w.reshape(n_heads, half, 2, *w.shape[1:]).swapaxes(2, 1).reshape(w.shape)


def gguf_config(reader, arch: str, vocab_size: int) -> dict:
    """Return HF LlamaConfig keys from the GGUF metadata of architecture `arch`."""
    def get(key, default=None):
        return metadata(reader, f"{arch}.{key}", default)

    heads = int(get("attention.head_count"))
    hidden = int(get("embedding_length"))
    config = {
        "model_type": "llama", "vocab_size": int(get("vocab_size", vocab_size)), "hidden_size": hidden,
        "intermediate_size": int(get("feed_forward_length")), "num_hidden_layers": int(get("block_count")),
        "num_attention_heads": heads, "num_key_value_heads": int(get("attention.head_count_kv", heads)),
        "max_position_embeddings": int(get("context_length", 2048)),
        "rms_norm_eps": float(get("attention.layer_norm_rms_epsilon", 1e-5)),
        "rope_theta": float(get("rope.freq_base", 10000.0)), "hidden_act": "silu",
        "head_dim": int(get("rope.dimension_count", hidden // heads)),
    }
    if int(get("expert_count", 0) or 0) > 0:
        raise SourceError(f"{arch}: mixture-of-experts GGUF files are not supported")
    kind = get("rope.scaling.type", "none")
    if kind == "linear":
        config["rope_scaling"] = {"rope_type": "linear", "factor": float(get("rope.scaling.factor"))}
    elif kind not in ("none", None):
        raise SourceError(f"GGUF rope scaling {kind!r} is not supported (only linear and llama3 rope_freqs)")
    return config


def load_tensors(reader, config: dict) -> tuple[dict[str, torch.Tensor], dict[str, str], np.ndarray | None]:
    """Return HF-named float32 weights, the GGUF type of each, and the rope_freqs factors if present."""
    from gguf import GGMLQuantizationType, dequantize

    state, types, freqs = {}, {}, None
    for t in reader.tensors:
        w = np.asarray(dequantize(t.data, t.tensor_type), dtype=np.float32)
        w = w.reshape([int(d) for d in reversed(t.shape.tolist())])  # GGUF dims are innermost first
        if t.name == "rope_freqs.weight":
            freqs = w.copy()
            continue
        name = hf_name(t.name)
        if name is None:
            raise SourceError(f"GGUF tensor {t.name!r} is not part of a LLaMA decoder")
        if ".attn_q." in t.name:
            w = unpermute(w, config["num_attention_heads"])
        elif ".attn_k." in t.name:
            w = unpermute(w, config["num_key_value_heads"])
        state[name] = torch.from_numpy(np.array(w, dtype=np.float32))  # a copy: the reader maps the file
        types[t.name] = GGMLQuantizationType(t.tensor_type).name
    return state, types, freqs


def load_gguf(path: Path) -> ImportedSource:
    """Read a LLaMA-family GGUF file into an ImportedSource (weights dequantized to float32)."""
    from gguf import GGUFReader

    from globalgen_ros.importer.gguf_tokenizer import gguf_chat, gguf_tokenizer_json

    reader = GGUFReader(str(path))
    arch = metadata(reader, "general.architecture")
    if arch != "llama":
        raise SourceError(f"{path}: GGUF architecture {arch!r}, not llama")
    tokens = metadata(reader, "tokenizer.ggml.tokens") or []
    config = gguf_config(reader, arch, len(tokens))
    state, types, freqs = load_tensors(reader, config)
    if freqs is not None:
        config["rope_scaling"] = {"rope_type": "freq_factors", "factors": [float(f) for f in freqs]}
    config["tie_word_embeddings"] = "lm_head.weight" not in state
    for key, gguf_key in (("bos_token_id", "bos_token_id"), ("eos_token_id", "eos_token_id"),
                          ("pad_token_id", "padding_token_id")):
        value = metadata(reader, f"tokenizer.ggml.{gguf_key}")
        if value is not None:
            config[key] = int(value)
    chat = gguf_chat(reader, tokens)
    return ImportedSource(kind="gguf", path=path, config=config, state=state,
                          tokenizer_json=gguf_tokenizer_json(path), chat=chat,
                          notes={"gguf_types": sorted(set(types.values())), "name": metadata(reader, "general.name")})
