"""Make dynamically quantized activations per row, so a token's logits do not depend on the other tokens fed.

`quantize_dynamic` quantizes each MatMul input with one scale for the whole tensor (DynamicQuantizeLinear):
a token's activations are then rounded differently when it is fed alone (`ar`, one token per forward) than
when it is fed with a draft tree, and greedy tokens can differ. Parallel decoding is only lossless when the
arithmetic of a row is independent of its batch, so every DynamicQuantizeLinear is replaced by a per-row
(per-token) symmetric quantization: scale = max|x| / 127 over the last axis, stored as uint8 with the scalar
zero point 128, which MatMulInteger and the following scale multiplication accept unchanged.

    PYTHONPATH=. .venv/bin/python -m globalgen_ros.model.rowquant IN.onnx OUT.onnx
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _const(graph: onnx.GraphProto, name: str, value: np.ndarray) -> str:
    if not any(i.name == name for i in graph.initializer):
        graph.initializer.append(numpy_helper.from_array(value, name))
    return name


def row_quant_nodes(x: str, yq: str, ys: str, prefix: str, axes: str, eps: str, c127: str, c128: str,
                    opset: int) -> list[onnx.NodeProto]:
    """Return nodes computing per-row yq (uint8, zero point 128) and ys (scale, shape [..., 1]) from x."""
    p = prefix
    reduce = (helper.make_node("ReduceMax", [f"{p}_abs", axes], [f"{p}_amax"], keepdims=1) if opset >= 18 else
              helper.make_node("ReduceMax", [f"{p}_abs"], [f"{p}_amax"], axes=[-1], keepdims=1))
    return [
        helper.make_node("Abs", [x], [f"{p}_abs"]),
        reduce,
        helper.make_node("Max", [f"{p}_amax", eps], [f"{p}_amax_c"]),
        helper.make_node("Div", [f"{p}_amax_c", c127], [ys]),
        helper.make_node("Div", [x, ys], [f"{p}_xs"]),
        helper.make_node("Round", [f"{p}_xs"], [f"{p}_xr"]),
        helper.make_node("Add", [f"{p}_xr", c128], [f"{p}_xo"]),
        helper.make_node("Cast", [f"{p}_xo"], [yq], to=TensorProto.UINT8),
    ]


def per_row_activations(model: onnx.ModelProto) -> tuple[onnx.ModelProto, int]:
    """Replace every DynamicQuantizeLinear by per-row quantization; return the model and how many were replaced."""
    graph = model.graph
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 18)
    axes = _const(graph, "rowq_axes", np.array([-1], np.int64))
    eps = _const(graph, "rowq_eps", np.array(1e-8, np.float32))
    c127 = _const(graph, "rowq_127", np.array(127.0, np.float32))
    c128 = _const(graph, "rowq_128", np.array(128.0, np.float32))
    zp = _const(graph, "rowq_zero_point", np.array(128, np.uint8))
    new_nodes, replaced = [], 0
    for node in graph.node:
        if node.op_type != "DynamicQuantizeLinear":
            new_nodes.append(node)
            continue
        x, (yq, ys, yzp) = node.input[0], node.output
        new_nodes += row_quant_nodes(x, yq, ys, f"rowq{replaced}", axes, eps, c127, c128, opset)
        new_nodes.append(helper.make_node("Identity", [zp], [yzp]))
        replaced += 1
    del graph.node[:]
    graph.node.extend(new_nodes)
    return model, replaced


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__)
        return 2
    model, n = per_row_activations(onnx.load(argv[0]))
    onnx.checker.check_model(model)
    onnx.save(model, argv[1])
    print(f"{argv[1]}: {n} activation quantizations made per row")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
