"""Map an imported checkpoint onto the project's decoder: `LlamaConfig` from the HF config, weights untied."""

from __future__ import annotations

import torch

from globalgen_ros.importer.source import ImportedSource, SourceError
from globalgen_ros.model.llama import LlamaConfig, LlamaWithHeads

MODEL_TYPES = ("llama", "mistral")
ROPE_KINDS = ("linear", "llama3", "freq_factors")  # position-only: the K/V of a cached token never change
IGNORED = (".rotary_emb.inv_freq",)  # buffers some old checkpoints saved


def rope_of(config: dict) -> tuple[float, dict | None]:
    """Return rope_theta and the rope scaling (None: plain RoPE) of an HF config, v4 or v5 form."""
    params = dict(config.get("rope_parameters") or {})
    theta = float(params.pop("rope_theta", config.get("rope_theta", 10000.0)))
    scaling = dict(config.get("rope_scaling") or params)
    kind = scaling.pop("rope_type", scaling.pop("type", "default"))
    if kind == "default":
        return theta, None
    if kind not in ROPE_KINDS:
        raise SourceError(f"rope scaling {kind!r} is not supported: only {', '.join(ROPE_KINDS)} (a dynamic or "
                          f"length-dependent RoPE would change the K/V of cached tokens)")
    if float(scaling.pop("attention_factor", 1.0) or 1.0) != 1.0:
        raise SourceError(f"rope scaling {kind!r} with an attention factor is not supported")
    return theta, {"rope_type": kind, **scaling}


def check_supported(config: dict) -> None:
    """Raise SourceError naming the first feature of `config` that the project's decoder does not have."""
    heads, hidden = config["num_attention_heads"], config["hidden_size"]
    kv = config.get("num_key_value_heads") or heads
    problems = {
        f"model_type {config.get('model_type')!r} (LLaMA family: {', '.join(MODEL_TYPES)})":
            config.get("model_type", "llama") not in MODEL_TYPES,
        f"hidden_act {config.get('hidden_act')!r} (SwiGLU with silu)": config.get("hidden_act", "silu") != "silu",
        "attention or MLP biases": bool(config.get("attention_bias") or config.get("mlp_bias")),
        f"head_dim {config.get('head_dim')} != hidden_size / num_attention_heads":
            (config.get("head_dim") or hidden // heads) != hidden // heads or hidden % heads != 0,
        f"{heads} query heads not a multiple of {kv} key/value heads": heads % kv != 0,
        "a sliding attention window shorter than the context":
            (config.get("sliding_window") or 1 << 30) < config.get("max_position_embeddings", 2048),
    }
    for what, bad in problems.items():
        if bad:
            raise SourceError(f"not supported: {what}")


def llama_config(config: dict, max_len: int | None = None) -> LlamaConfig:
    """Return the project's LlamaConfig for an HF LLaMA-family config (no extra heads), context capped at max_len."""
    check_supported(config)
    theta, scaling = rope_of(config)
    heads = config["num_attention_heads"]
    kv = config.get("num_key_value_heads") or heads
    context = int(config.get("max_position_embeddings", 2048))
    return LlamaConfig(
        vocab_size=config["vocab_size"], hidden_size=config["hidden_size"],
        intermediate_size=config["intermediate_size"], num_hidden_layers=config["num_hidden_layers"],
        num_attention_heads=heads, max_position_embeddings=min(context, max_len or context),
        rms_norm_eps=float(config.get("rms_norm_eps", 1e-6)), rope_theta=theta, num_extra_heads=0,
        num_key_value_heads=kv if kv != heads else None, rope_scaling=scaling)


def untied_state(source: ImportedSource) -> dict[str, torch.Tensor]:
    """Return the source's weights with an output layer of its own (a copy of the embeddings when tied)."""
    state = {k: v for k, v in source.state.items() if not k.endswith(IGNORED)}
    if "lm_head.weight" not in state:
        state["lm_head.weight"] = state["model.embed_tokens.weight"].clone()  # int8 quantizes it on its own
    return state


def build_model(source: ImportedSource, cfg: LlamaConfig) -> LlamaWithHeads:
    """Return the project's decoder holding the source's weights (float32, eval mode)."""
    with torch.device("meta"):
        model = LlamaWithHeads(cfg)
    try:
        missing, unexpected = model.load_state_dict(untied_state(source), strict=False, assign=True)
    except RuntimeError as e:  # a tensor of the wrong shape
        raise SourceError(f"weights do not fit a LLaMA decoder of this config: {e}") from e
    if missing or unexpected:
        raise SourceError(f"weights do not fit a LLaMA decoder of this config: missing {sorted(missing)[:5]}, "
                          f"unexpected {sorted(unexpected)[:5]}")
    return model.float().eval()
