"""Building small graphs for pass tests, running passes, and judging the result in LiteRT.

    net = Net()
    x = net.input("x", [1, 8, 8, 3])
    y = net.op("CONV_2D", [x, net.const("w", w), net.const("b", b)], conv_options())
    z = net.op("MUL", [y, net.const("scale", s)], new_options("MulOptions"))
    net.outputs(z)
    model = net.model()                       # shapes inferred, origins {i} stamped
    after = optimized(model, "fuse_batchnorm_with_conv")
    assert kinds(after) == ["CONV_2D"]
    assert_same_outputs(model, after)         # LiteRT (or the interpreter for circle-only)

Every operator ``i`` of the built model gets origin ``{i}`` and the source name of its first
output, as an import does, so tests can assert the origin algebra with :func:`origin_names`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import one_cmds
from one_cmds.errors import ExportError
from one_cmds.formats.schema import new_options
from one_cmds.interp import Interpreter
from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.shape import infer_shapes
from support.litert import BUILTIN, random_inputs, run_model

__all__ = [
    "Net",
    "assert_same_outputs",
    "kinds",
    "new_options",
    "op_named",
    "optimized",
    "origin_names",
    "run_reference",
]


class Net:
    """A graph under construction (subgraph 0 of a one-graph model)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.inputs: list[Tensor] = []
        self.operators: list[Operator] = []
        self.results: list[Tensor] = []

    def input(self, name: str, shape: Sequence[int | None], dtype: str = "FLOAT32") -> Tensor:
        t = Tensor(name, dtype, tuple(shape))
        self.inputs.append(t)
        return t

    def const(self, name: str, value: Any, dtype: Any = None) -> Tensor:
        arr = np.asarray(value, dtype=dtype)
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        return Tensor.constant(name, arr)

    def random(self, name: str, shape: Sequence[int], low: float = -1.0, high: float = 1.0):
        """A float32 constant, uniform in [low, high)."""
        return self.const(name, self.rng.uniform(low, high, shape).astype(np.float32))

    def op(
        self,
        opcode: str,
        inputs: Sequence[Tensor | None],
        options: Any = None,
        *,
        outputs: int | Sequence[str] = 1,
        name: str | None = None,
        **extra: Any,
    ) -> Any:
        """Add an operator; returns its output tensor (a list when it has several)."""
        dtypes = ["FLOAT32"] * outputs if isinstance(outputs, int) else list(outputs)
        base = name or f"{opcode.lower()}{len(self.operators)}"
        outs = [
            Tensor(base if len(dtypes) == 1 else f"{base}:{k}", d, ()) for k, d in enumerate(dtypes)
        ]
        self.operators.append(Operator(opcode, list(inputs), outs, options, **extra))
        return outs[0] if len(outs) == 1 else outs

    def outputs(self, *tensors: Tensor) -> None:
        self.results.extend(tensors)

    def model(self, *, infer: bool = True) -> Model:
        graph = Graph("main", self.inputs, self.results, self.operators)
        model = Model(graphs=[graph], source_md5="0" * 32)
        for i, op in enumerate(self.operators):
            op.origin = frozenset({i})
            model.source_table[i] = op.outputs[0].name if op.outputs else f"op{i}"
        if infer:
            infer_shapes(model)
        return model


def optimized(model: Model, *passes: str, **options: Any) -> Model:
    """An optimized copy of ``model`` with ``passes`` enabled (the one_cmds.optimize API)."""
    return one_cmds.optimize(model, list(passes), **options)


def kinds(model: Model, graph: int = 0) -> list[str]:
    """The operator kinds of a graph, in execution order."""
    return [op.kind for op in model.graphs[graph].operators]


def op_named(model: Model, kind: str, graph: int = 0) -> Operator:
    """The one operator of ``kind`` in the graph."""
    found = [op for op in model.graphs[graph].operators if op.kind == kind]
    assert len(found) == 1, f"{len(found)} operators of kind {kind}: {kinds(model, graph)}"
    return found[0]


def origin_names(model: Model, op: Operator) -> set[str]:
    """The source names of an operator's origin."""
    return {model.source_table[i] for i in op.origin}


def run_reference(model: Model, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Outputs of ``model`` in LiteRT (builtin kernels), or in the project's interpreter when
    the model uses circle-only features that a .tflite file cannot hold."""
    try:
        return run_model(model, inputs, BUILTIN)
    except ExportError:
        return Interpreter(model).run(list(inputs))


def assert_same_outputs(
    before: Model,
    after: Model,
    inputs: Sequence[np.ndarray] | None = None,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-5,
) -> list[np.ndarray]:
    """Run both models on the same inputs (random when not given) and compare: floats
    within rtol/atol, everything else exactly. Returns the outputs of ``before``."""
    if inputs is None:
        inputs = random_inputs(before, seed=7)
    want = run_reference(before, inputs)
    got = run_reference(after, inputs)
    assert len(want) == len(got)
    for w, g in zip(want, got, strict=True):
        assert w.shape == g.shape, f"shape {g.shape} != {w.shape}"
        assert w.dtype == g.dtype, f"dtype {g.dtype} != {w.dtype}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(g, w)
    return want
