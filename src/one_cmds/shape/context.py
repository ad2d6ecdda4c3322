"""What a shape rule may read about the operator it infers."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ..ir import Operator, Shape, Tensor
from .partial import Known, PartialValue

Output = tuple[Shape, str]
GraphCall = Callable[[int, list[Shape]], list[Output]]


class RuleContext:
    """The operands of one operator: shapes, dtypes and values known during inference.

    ``values`` maps ``id(tensor)`` to the value shape-value inference computed for it (every
    element, or a :class:`PartialValue`); ``call_graph(index, shapes)`` infers subgraph
    ``index`` with the given input shapes and returns its outputs' ``(shape, dtype)``
    (control-flow rules).
    """

    def __init__(self, op: Operator, values: Mapping[int, Known], call_graph: GraphCall):
        self.op = op
        self._values = values
        self._call_graph = call_graph

    @property
    def num_inputs(self) -> int:
        return len(self.op.inputs)

    def _input(self, i: int) -> Tensor | None:
        return self.op.inputs[i] if i < len(self.op.inputs) else None

    def shape(self, i: int) -> Shape | None:
        """Input ``i``'s shape; None for an omitted optional input."""
        t = self._input(i)
        return None if t is None else t.shape

    def dtype(self, i: int) -> str | None:
        t = self._input(i)
        return None if t is None else t.dtype

    def value(self, i: int) -> np.ndarray | None:
        """Input ``i``'s value when it is a constant or computed from known shapes, else None."""
        known = self.known(i)
        return None if isinstance(known, PartialValue) else known

    def known(self, i: int) -> Known | None:
        """What is known of input ``i``'s value: all of it (an array), some elements (a
        :class:`PartialValue`) or nothing (None)."""
        t = self._input(i)
        if t is None:
            return None
        known = self._values.get(id(t))
        if known is not None or t.is_variable or t.sparsity is not None:
            return known
        return t.data

    def output_shape(self, k: int) -> Shape:
        """The shape output ``k`` carries now (declared in the file or inferred before)."""
        return self.op.outputs[k].shape

    def output_dtype(self, k: int) -> str:
        """The declared dtype of output ``k``, for operators whose output type is an attribute."""
        return self.op.outputs[k].dtype

    def call_graph(self, index: int, shapes: list[Shape]) -> list[Output]:
        """Infer subgraph ``index`` with input shapes ``shapes``; its outputs' shapes, dtypes."""
        return self._call_graph(index, shapes)
