"""The tokenizer and chat template of a GGUF file, as a `tokenizers` tokenizer.json and a ChatInfo.

transformers converts the GGUF vocabulary (byte-level BPE or sentencepiece, control tokens as special); the
pre-tokenizer is then set from `tokenizer.ggml.pre` for the llama.cpp pre-tokenizer names transformers does
not know, so text is split the way the merges were learned (SmolLM2: every digit on its own).
"""

from __future__ import annotations

from pathlib import Path

from tokenizers import pre_tokenizers

from globalgen_ros.importer.source import ChatInfo


def byte_level(individual_digits: bool = False) -> pre_tokenizers.PreTokenizer:
    """Return GPT-2's byte-level split, optionally with every digit split off first (SmolLM's tokenizer.json)."""
    level = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)
    if not individual_digits:
        return level
    return pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), level])


# llama.cpp's pre-tokenizer names (llama-vocab.cpp) -> the split of the model's own tokenizer.json
PRE_TOKENIZERS = {
    "smollm": lambda: byte_level(individual_digits=True),
    "gpt-2": byte_level,
    "default": byte_level,
}


def gguf_tokenizer_json(path: Path) -> str:
    """Return the GGUF file's tokenizer as tokenizer.json text."""
    from transformers.integrations.gguf import convert_gguf_tokenizer, get_gguf_tokenizer

    architecture, tokenizer_dict, _ = get_gguf_tokenizer(str(path))
    backend, _ = convert_gguf_tokenizer(architecture, tokenizer_dict)
    pre = tokenizer_dict.get("pre_tokenizer_type")
    if tokenizer_dict.get("tokenizer_type") == "gpt2" and pre in PRE_TOKENIZERS:
        backend.pre_tokenizer = PRE_TOKENIZERS[pre]()
    return backend.to_str()


def gguf_chat(reader, tokens: list[str]) -> ChatInfo:
    """Return the chat template and special tokens recorded in the GGUF metadata."""
    from globalgen_ros.importer.gguf_file import metadata

    def token(key: str) -> str | None:
        i = metadata(reader, f"tokenizer.ggml.{key}")
        return tokens[int(i)] if i is not None and 0 <= int(i) < len(tokens) else None

    eos = metadata(reader, "tokenizer.ggml.eos_token_id")
    eot = metadata(reader, "tokenizer.ggml.eot_token_id")  # end of turn, where it differs from eos
    ids = [int(i) for i in (eos, eot) if i is not None]
    spm = metadata(reader, "tokenizer.ggml.model") == "llama"  # llama.cpp adds BOS to sentencepiece by default
    return ChatInfo(template=metadata(reader, "tokenizer.chat_template"), bos_token=token("bos_token_id"),
                    eos_token=token("eos_token_id"), eos_token_ids=list(dict.fromkeys(ids)),
                    add_bos_token=bool(metadata(reader, "tokenizer.ggml.add_bos_token", spm)))
