"""The decoder's weight format of an import: `int4` (weight-only 4-bit blocks) or `int8` (dynamic, per row).

int4: ONNX Runtime's `MatMulNBits` (every MatMul, the output layer included) and `GatherBlockQuantized` (the
embeddings), symmetric blocks of 32 weights along the input dimension, accuracy level unset (activations and
accumulation stay fp32). Nothing depends on the other tokens of a forward, so tree verification stays
lossless; measured on SmolLM2-135M (docs/import.md) it is the format whose `parallel` equals its `ar`, but
slower per reply than int8: with fp32 accumulation a forward of k >= 2 tokens dequantizes every block again.
int8: `model/export.py` `quantize` (per-channel uint8 weights, activations quantized per row): row-independent
too, and with grouped-query attention the decoder's attention is exact per row as well (`model/llama.py`
`grouped_attention`), so `parallel` says bit for bit what `ar` says; it is then the faster format and the
default. Without GQA (one K/V head per query head) the attention keeps its split form, whose last-bit noise the
per-row rounding amplifies over many layers into different tokens: int4 stays the default there.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

WEIGHTS = ("int4", "int8")
DECODER_FILES = {"int4": "model.int4.onnx", "int8": "model.int8.onnx"}
BLOCK_SIZE = 32
INT4_OPSET = 21  # GatherBlockQuantized with int4 data needs opset 21
# ops whose versions 19-21 only add types (float8, int4) or an attribute for them (Cast's saturate)
TYPES_ONLY = frozenset({"Cast", "Constant", "ConstantOfShape", "Identity", "Reshape", "Shape", "Size", "Squeeze",
                        "Transpose", "Unsqueeze"})


def default_weights(n_heads: int, n_kv_heads: int) -> str:
    """Return the default format: int8 where its tree verification is exact (GQA), int4 elsewhere."""
    return "int8" if n_kv_heads < n_heads else "int4"


def decoder_file(weights: str) -> str:
    """Return the decoder file name of a weight format; ValueError naming the valid ones otherwise."""
    if weights not in DECODER_FILES:
        raise ValueError(f"unknown weights {weights!r}; choose one of {', '.join(WEIGHTS)}")
    return DECODER_FILES[weights]


def to_opset(model, version: int):
    """Return `model` at opset `version`: in place when every op it uses changed only by new types since (the
    decoder's Cast, Reshape, Shape, (Un)Squeeze, Transpose), else by onnx's version converter (3 GB more RAM
    for a 135 M model)."""
    from onnx import defs, version_converter

    main = next(o for o in model.opset_import if o.domain in ("", "ai.onnx"))
    changed = {n.op_type for n in model.graph.node if n.domain in ("", "ai.onnx")
               and defs.get_schema(n.op_type, main.version).since_version
               != defs.get_schema(n.op_type, version).since_version}
    if not changed <= TYPES_ONLY:
        return version_converter.convert_version(model, version)
    main.version = version
    return model


def quantize_int4(src: Path, dst: Path, block_size: int = BLOCK_SIZE) -> None:
    """Write `src` (fp32 decoder) as 4-bit weight-only blocks: MatMulNBits + GatherBlockQuantized, fp32 activations."""
    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    model = to_opset(onnx.load(str(src)), INT4_OPSET)
    quiet = logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer")
    level = quiet.level
    quiet.setLevel(logging.WARNING)  # it logs every node it skips at INFO
    try:
        q = MatMulNBitsQuantizer(model, bits=4, block_size=block_size, is_symmetric=True, accuracy_level=None,
                                 op_types_to_quantize=("MatMul", "Gather"), quant_axes=(("MatMul", 0), ("Gather", 1)))
        with np.errstate(divide="ignore", invalid="ignore"):  # all-zero blocks: scale 0, handled by np.where
            q.process()
    finally:
        quiet.setLevel(level)
    onnx.save(q.model.model, str(dst))


def quantize_decoder(weights: str, src: Path, dst: Path) -> None:
    """Quantize the fp32 decoder `src` into `dst` in the given weight format."""
    if weights == "int4":
        quantize_int4(src, dst)
    else:
        from globalgen_ros.model.export import quantize

        quantize(src, dst, unsigned=True)  # exact on AVX2 too (no u8 x s8 saturation), closer to fp32
