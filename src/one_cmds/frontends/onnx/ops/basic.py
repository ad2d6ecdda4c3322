"""Identity, Dropout (inference), and the ONNX values that need no operator."""

from __future__ import annotations

from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node


@converter("Identity")
def identity(node: Node, lo: Lowering) -> None:
    lo.bind(node.outputs[0], lo.value(node.input(0)))


@converter("Dropout")
def dropout(node: Node, lo: Lowering) -> None:
    """Inference: the input; the optional mask is all true."""
    training = lo.const(node.input(2)) if node.input(2) else None
    if training is not None and bool(training):
        raise Unsupported("training_mode 1 is not supported")
    lo.bind(node.outputs[0], lo.value(node.input(0)))
    if len(node.outputs) > 1 and node.outputs[1]:
        raise Unsupported("output 'mask' is not supported")
