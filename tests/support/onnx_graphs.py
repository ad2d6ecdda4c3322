"""Small ONNX graphs for converter tests (onnx-import.md §10: a unit graph per §6 row).

``graph_model(nodes, {"x": (FLOAT, ["N", 3])}, {"y": FLOAT}, consts={"c": array})`` builds a
model from nodes; ``node_model("Add", ["x", "c"], {"x": ...}, consts=...)`` one node whose
output is ``out``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT, INT64, INT32, BOOL = (
    TensorProto.FLOAT,
    TensorProto.INT64,
    TensorProto.INT32,
    TensorProto.BOOL,
)
Inputs = dict[str, tuple[int, Sequence[int | str]]]


def graph_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Inputs,
    outputs: dict[str, int],
    consts: dict[str, np.ndarray] | None = None,
    opset: int = 17,
) -> onnx.ModelProto:
    """A model: ``inputs`` name → (element type, shape), ``outputs`` name → element
    type (shapes left to inference), ``consts`` initializers."""
    graph = helper.make_graph(
        list(nodes),
        "g",
        [helper.make_tensor_value_info(n, t, list(s)) for n, (t, s) in inputs.items()],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs.items()],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in (consts or {}).items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return model


def node_model(
    op_type: str,
    operands: Sequence[str],
    inputs: Inputs,
    consts: dict[str, np.ndarray] | None = None,
    *,
    opset: int = 17,
    out: int = FLOAT,
    **attrs,
) -> onnx.ModelProto:
    """One ``op_type`` node reading ``operands`` ("" for an omitted one) and writing ``out``."""
    node = helper.make_node(op_type, list(operands), ["out"], name=op_type.lower(), **attrs)
    return graph_model([node], inputs, {"out": out}, consts, opset)


def opcodes(model) -> list[str]:
    """The opcodes of an imported model's main graph, in order."""
    return [op.opcode for op in model.main.operators]
