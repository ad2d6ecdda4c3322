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

from one_cmds.formats.schema import new_options
from one_cmds.interp import Interpreter
from one_cmds.ir import Graph, Model, Operator, Tensor, from_numpy
from support.litert import run_model

__all__ = ["check_against_litert", "const", "new_options", "op_model", "run_both"]


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


def feeds(operands: Sequence[np.ndarray | Const | None]) -> list[np.ndarray]:
    return [np.asarray(o) for o in operands if o is not None and not isinstance(o, Const)]


def run_both(
    model: Model, inputs: Sequence[np.ndarray]
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(LiteRT outputs, interpreter outputs) of ``model`` on ``inputs``."""
    return run_model(model, inputs), Interpreter(model).run(list(inputs))


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
