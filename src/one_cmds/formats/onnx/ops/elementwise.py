"""Element-wise operators with ONNX (numpy) broadcasting, which TFLite's binary operators
share (onnx-import.md §6.1)."""

from __future__ import annotations

from ..lowering import Lowering, converter
from ..node import Node

BINARY = {"Add": ("ADD", "AddOptions"), "Sub": ("SUB", "SubOptions"),
          "Mul": ("MUL", "MulOptions"), "Div": ("DIV", "DivOptions")}  # fmt: skip
UNARY = {"Relu": "RELU", "Sigmoid": "LOGISTIC", "Tanh": "TANH"}


@converter(*BINARY)
def binary(node: Node, lo: Lowering) -> None:
    opcode, table = BINARY[node.op_type]
    a, b = lo.value(node.input(0)), lo.value(node.input(1))
    lo.bind(node.outputs[0], lo.emit(opcode, [a, b], table, dtype=lo.dtype(node.outputs[0])))


@converter(*UNARY)
def unary(node: Node, lo: Lowering) -> None:
    x = lo.value(node.input(0))
    lo.bind(node.outputs[0], lo.emit(UNARY[node.op_type], [x], dtype=x.dtype))
