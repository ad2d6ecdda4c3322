"""Helpers of the shape-inference tests: infer single-operator models, compare with LiteRT."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from one_cmds.ir import Graph, Operator, Shape, Tensor, from_numpy
from one_cmds.shape import infer_shapes
from support.litert import run_model
from support.single_op import Const, feeds, op_model

RNG = np.random.default_rng(0)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def ints(*shape: int, high: int = 10) -> np.ndarray:
    return RNG.integers(0, high, shape).astype(np.int32)


def infer_op(
    opcode: str,
    operands: Sequence[np.ndarray | Const | None],
    options: Any = None,
    *,
    shapes: Sequence[Shape] | None = None,
    **kwargs: Any,
) -> list[tuple[Shape, str]]:
    """Infer a single-operator model; ``shapes`` overrides the graph inputs' shapes."""
    model = op_model(opcode, operands, options, **kwargs)
    for t, shape in zip(model.main.inputs, shapes or [], strict=False):
        t.shape = tuple(shape)
    infer_shapes(model)
    return [(t.shape, t.dtype) for t in model.main.outputs]


def infer_shape(*args: Any, **kwargs: Any) -> Shape:
    """The inferred shape of the single output."""
    [(shape, _)] = infer_op(*args, **kwargs)
    return shape


def check_litert(
    opcode: str,
    operands: Sequence[np.ndarray | Const | None],
    options: Any = None,
    *,
    partial: bool = False,
    **kwargs: Any,
) -> list[tuple[Shape, str]]:
    """Assert the inferred output shapes and dtypes are those LiteRT produces.

    ``partial``: an inferred dimension may be unknown (data-dependent sizes).
    """
    model = op_model(opcode, operands, options, **kwargs)
    infer_shapes(model)
    inferred = [(t.shape, t.dtype) for t in model.main.outputs]
    actual = run_model(model, feeds(operands))
    assert len(actual) == len(inferred)
    for (shape, dtype), a in zip(inferred, actual, strict=True):
        assert dtype == from_numpy(a.dtype), f"dtype {dtype} != LiteRT {a.dtype}"
        if partial:
            assert len(shape) == a.ndim, f"shape {shape} != LiteRT {a.shape}"
            assert all(d is None or d == n for d, n in zip(shape, a.shape, strict=True)), (
                f"shape {shape} != LiteRT {a.shape}"
            )
        else:
            assert shape == a.shape, f"shape {shape} != LiteRT {a.shape}"
    return inferred


class GraphBuilder:
    """Builds a graph operator by operator: ``b.op("ADD", [x, y], options)`` returns the
    output tensor (shape left as a placeholder for inference)."""

    def __init__(self, name: str = "main") -> None:
        self.name = name
        self.inputs: list[Tensor] = []
        self.operators: list[Operator] = []
        self.constants = 0

    def input(self, shape: Shape, dtype: str = "FLOAT32") -> Tensor:
        t = Tensor(f"{self.name}_in{len(self.inputs)}", dtype, shape)
        self.inputs.append(t)
        return t

    def const(self, value: Any, dtype: Any = np.int32) -> Tensor:
        self.constants += 1
        return Tensor.constant(f"{self.name}_c{self.constants}", np.asarray(value, dtype))

    def op(
        self, opcode: str, inputs: list[Tensor | None], options: Any = None, *,
        dtypes: Sequence[str] = ("FLOAT32",),
    ) -> Any:  # fmt: skip
        n = len(self.operators)
        outs = [Tensor(f"{self.name}_op{n}_{k}", d, ()) for k, d in enumerate(dtypes)]
        self.operators.append(Operator(opcode, inputs, outs, options))
        return outs[0] if len(outs) == 1 else outs

    def graph(self, *outputs: Tensor) -> Graph:
        return Graph(self.name, self.inputs, list(outputs), self.operators)
