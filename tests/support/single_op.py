"""Single-operator models built with the project's own graph API, for kernel and shape tests.

``op_model("ADD", [x, y], options=new_options("AddOptions"))`` gives a Model whose graph
inputs are the non-constant operands; wrap an operand in :func:`const` to make it a constant
tensor instead, pass None for an omitted optional input. ``check_against_litert`` runs the
model in LiteRT and in the project's interpreter and compares the outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from one_cmds.interp import Interpreter
from one_cmds.ir import Graph, Model, Operator, Tensor, from_numpy
from one_cmds.ir.schema import new_options
from support.litert import DEFAULT, run_model

__all__ = [
    "TYPE_NAMES",
    "check_against_litert",
    "const",
    "new_options",
    "op_model",
    "pool2d_options",
    "randoms",
    "run_both",
    "run_ours",
]

TYPE_NAMES = {
    np.float32: "FLOAT32",
    np.int32: "INT32",
    np.int8: "INT8",
    np.int64: "INT64",
    np.bool_: "BOOL",
    np.uint8: "UINT8",
    np.int16: "INT16",
}


def randoms(seed: int):
    """``rand(*shape, dtype=...)`` drawing from its own seeded generator: standard normal
    floats, integers in [-100, 100), random booleans."""
    rng = np.random.default_rng(seed)

    def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
        if dtype == np.bool_:
            return rng.random(shape) < 0.5
        if np.issubdtype(dtype, np.integer):
            return rng.integers(-100, 100, shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)

    return rand


@dataclass
class Const:
    value: np.ndarray


def const(value: Any, dtype: Any = None) -> Const:
    """Mark an operand as a constant tensor."""
    return Const(np.asarray(value, dtype=dtype))


def op_model(
    opcode: str,
    operands: Sequence[np.ndarray | Const | None],
    options: Any = None,
    *,
    outputs: int | Sequence[str] = 1,
    custom_code: str | None = None,
    custom_options: bytes | None = None,
    version: int = 1,
) -> Model:
    """A model of one operator. ``outputs`` is a count (FLOAT32 outputs) or a list of dtypes.

    Output shapes are left as placeholders: LiteRT and the interpreter compute them.
    """
    graph_inputs: list[Tensor] = []
    op_inputs: list[Tensor | None] = []
    for i, operand in enumerate(operands):
        if operand is None:
            op_inputs.append(None)
        elif isinstance(operand, Const):
            op_inputs.append(Tensor.constant(f"const{i}", operand.value))
        else:
            arr = np.asarray(operand)
            t = Tensor(f"input{i}", from_numpy(arr.dtype), arr.shape)
            graph_inputs.append(t)
            op_inputs.append(t)
    dtypes = ["FLOAT32"] * outputs if isinstance(outputs, int) else list(outputs)
    outs = [Tensor(f"output{i}", d, ()) for i, d in enumerate(dtypes)]
    op = Operator(
        opcode,
        op_inputs,
        outs,
        options,
        custom_code=custom_code,
        custom_options=custom_options,
        version=version,
    )
    graph = Graph("main", graph_inputs, outs, [op])
    graph.tensors = [t for t in [*op_inputs, *outs] if t is not None]
    return Model(graphs=[graph])


def pool2d_options(filter_hw, stride, padding, activation: int = 0) -> Any:
    """Pool2DOptions of a ``filter_hw`` window."""
    return new_options(
        "Pool2DOptions",
        padding=padding,
        filterHeight=filter_hw[0],
        filterWidth=filter_hw[1],
        strideH=stride[0],
        strideW=stride[1],
        fusedActivationFunction=activation,
    )


def feeds(operands: Sequence[np.ndarray | Const | None]) -> list[np.ndarray]:
    return [np.asarray(o) for o in operands if o is not None and not isinstance(o, Const)]


def run_both(
    model: Model, inputs: Sequence[np.ndarray], resolver: Any = DEFAULT
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(LiteRT outputs, interpreter outputs) of ``model`` on ``inputs``."""
    return run_model(model, inputs, resolver), Interpreter(model).run(list(inputs))


def run_ours(opcode: str, operands: Sequence[Any], options: Any = None, **kwargs: Any):
    """Run a single-operator model in the interpreter only."""
    return Interpreter(op_model(opcode, operands, options, **kwargs)).run(feeds(operands))


def check_against_litert(
    opcode: str,
    operands: Sequence[np.ndarray | Const | None],
    options: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-5,
    **kwargs: Any,
) -> list[np.ndarray]:
    """Build the single-operator model, run it in both runtimes, assert they agree.

    Float outputs must agree within ``rtol``/``atol`` (atol scaled by the output's magnitude
    for large values); other dtypes exactly; shapes always. Returns the LiteRT outputs.
    """
    model = op_model(opcode, operands, options, **kwargs)
    expected, got = run_both(model, feeds(operands))
    assert len(expected) == len(got)
    for e, g in zip(expected, got, strict=True):
        assert e.shape == g.shape, f"shape {g.shape} != LiteRT {e.shape}"
        assert e.dtype == g.dtype, f"dtype {g.dtype} != LiteRT {e.dtype}"
        if np.issubdtype(e.dtype, np.floating):
            scale = max(1.0, float(np.max(np.abs(e[np.isfinite(e)]), initial=0.0)))
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol * scale)
        else:
            np.testing.assert_array_equal(g, e)
    return expected
