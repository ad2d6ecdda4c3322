"""Building small graphs for pass tests, running passes, and judging the result in LiteRT.

    net = Net()
    x = net.input("x", [1, 8, 8, 3])
    y = net.op("CONV_2D", [x, net.const("w", w), net.const("b", b)], conv2d_options())
    z = net.binary("MUL", y, net.const("scale", s))
    net.outputs(z)
    model = net.model()                       # shapes inferred, origins {i} stamped
    after = optimized(model, "fuse_batchnorm_with_conv")
    assert kinds(after) == ["CONV_2D"]
    assert_same_outputs(model, after)         # LiteRT (or the interpreter for circle-only)

Every operator ``i`` of the built model gets origin ``{i}`` and the source name of its first
output, as an import does, so tests can assert the origin algebra with :func:`origin_names`.

The last three lines are also ``assert_optimized(model, PASS, expect=["CONV_2D"])``, and a
near miss (nothing changes) is ``assert_stays(model, PASS)``. Below them: options builders
(``conv2d_options``, ``depthwise_options``, ``tconv_options``, ``pool_options``,
``fc_options``), ``qparam`` and the patterns several pass tests share (``batchnorm``,
``batchnorm_model``, ``strided_slice_net``). Larger shared builders live in their own modules:
``support.recurrent`` (the LSTM model), ``support.bcq`` (BCQ constants).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import one_cmds
from one_cmds.errors import ExportError
from one_cmds.interp import Interpreter
from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.ir.schema import new_options
from one_cmds.shape import infer_shapes
from support.litert import BUILTIN, random_inputs, run_model
from support.quantized import qparam

__all__ = [
    "Net",
    "assert_optimized",
    "assert_same_outputs",
    "assert_stays",
    "batchnorm",
    "batchnorm_model",
    "conv2d_options",
    "depthwise_options",
    "fc_options",
    "kinds",
    "new_options",
    "op_named",
    "optimized",
    "origin_names",
    "pool_options",
    "qparam",
    "run_reference",
    "strided_slice_net",
    "tconv_options",
    "window_options",
]

# The options of the arithmetic operators that Net.binary builds.
ARITHMETIC = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions", "DIV": "DivOptions"}


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

    def binary(
        self,
        opcode: str,
        a: Tensor,
        b: Tensor,
        *,
        swap: bool = False,
        act: int = 0,
        name: str | None = None,
    ) -> Tensor:
        """``opcode(a, b)``, or ``opcode(b, a)`` when ``swap``, for ADD, SUB, MUL and DIV with
        the fused activation ``act``."""
        options = new_options(ARITHMETIC[opcode], fusedActivationFunction=act)
        return self.op(opcode, [b, a] if swap else [a, b], options, name=name)

    def transpose(self, x: Tensor, perm: Sequence[int], name: str) -> Tensor:
        """``TRANSPOSE(x, perm)`` named ``name``, the permutation a constant "{name}/perm"."""
        return self.op("TRANSPOSE", [x, self.const(f"{name}/perm", perm, np.int32)], name=name)

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


def assert_optimized(
    model: Model,
    *passes: str,
    expect: Sequence[str] | None = None,
    any_order: bool = False,
    inputs: Sequence[np.ndarray] | None = None,
    **options: Any,
) -> Model:
    """``optimized(model, *passes)``, checked to hold the operator kinds ``expect`` (None:
    those of ``model``), compared sorted when ``any_order``, and to compute the outputs of
    ``model`` (:func:`assert_same_outputs` on ``inputs``). Returns it."""
    after = optimized(model, *passes, **options)
    got, want = kinds(after), kinds(model) if expect is None else list(expect)
    if any_order:
        got, want = sorted(got), sorted(want)
    assert got == want, f"operators {got}, expected {want}"
    assert_same_outputs(model, after, inputs)
    return after


def assert_stays(model: Model, *passes: str, **checks: Any) -> Model:
    """The near-miss check: after ``passes`` the model has the operator kinds it had and
    computes the same outputs (``checks``: those of :func:`assert_optimized`)."""
    return assert_optimized(model, *passes, expect=None, **checks)


# -- options and small patterns ---------------------------------------------------------------


def window_options(
    name: str,
    padding: int = 0,
    stride: tuple[int, int] = (1, 1),
    activation: int = 0,
    **fields: Any,
) -> Any:
    """The options ``name`` of an operator sliding a window: padding (0 = SAME, 1 = VALID),
    stride (h, w), the fused ``activation`` and the other ``fields``."""
    return new_options(
        name,
        padding=padding,
        strideH=stride[0],
        strideW=stride[1],
        fusedActivationFunction=activation,
        **fields,
    )


def conv2d_options(act: int = 0, *, padding: int = 0, stride: tuple[int, int] = (1, 1)) -> Any:
    """Conv2DOptions, dilation 1."""
    return window_options(
        "Conv2DOptions", padding, stride, act, dilationHFactor=1, dilationWFactor=1
    )


def depthwise_options(
    act: int = 0, *, multiplier: int = 1, padding: int = 0, stride: tuple[int, int] = (1, 1)
) -> Any:
    """DepthwiseConv2DOptions, dilation 1."""
    return window_options(
        "DepthwiseConv2DOptions",
        padding,
        stride,
        act,
        depthMultiplier=multiplier,
        dilationHFactor=1,
        dilationWFactor=1,
    )


def tconv_options(act: int = 0, *, padding: int = 0, stride: tuple[int, int] = (1, 1)) -> Any:
    """TransposeConvOptions."""
    return window_options("TransposeConvOptions", padding, stride, act)


def pool_options(
    act: int = 0, *, size: int = 2, padding: int = 0, stride: tuple[int, int] = (1, 1)
) -> Any:
    """Pool2DOptions of a ``size`` x ``size`` window."""
    return window_options(
        "Pool2DOptions", padding, stride, act, filterHeight=size, filterWidth=size
    )


def fc_options(act: int = 0, keep: bool = False) -> Any:
    """FullyConnectedOptions with the fused activation ``act`` and keepNumDims ``keep``."""
    return new_options("FullyConnectedOptions", fusedActivationFunction=act, keepNumDims=keep)


def batchnorm(
    net: Net,
    x: Tensor,
    gamma: Tensor,
    beta: Tensor,
    *,
    swap_mul: bool = False,
    swap_add: bool = False,
    mul_act: int = 0,
    add_act: int = 0,
) -> tuple[Tensor, Tensor]:
    """``ADD(MUL(x, gamma), beta)``, a batch norm as converters leave it, the operators named
    "mul" and "add"; ``swap_mul``/``swap_add`` put the constant first. Returns the outputs of
    the Mul and of the Add."""
    mul = net.binary("MUL", x, gamma, swap=swap_mul, act=mul_act, name="mul")
    return mul, net.binary("ADD", mul, beta, swap=swap_add, act=add_act, name="add")


def batchnorm_model(
    net: Net,
    producer: Tensor,
    shape: Sequence[int],
    *,
    gamma_range: tuple[float, float] = (-2.0, 2.0),
    swap_mul: bool = False,
    swap_add: bool = False,
    mul_act: int = 0,
    add_act: int = 0,
    second_use: str | None = None,
) -> Model:
    """Completes ``net`` with a batch norm of ``producer`` as its output: random constants
    gamma "scale" (uniform in ``gamma_range``) and beta "shift" of ``shape`` and
    :func:`batchnorm`; with ``second_use`` (an opcode) that operator "other" also reads
    ``producer`` and is a second output. Returns the model."""
    scale = net.random("scale", shape, *gamma_range)
    shift = net.random("shift", shape)
    _, add = batchnorm(
        net,
        producer,
        scale,
        shift,
        swap_mul=swap_mul,
        swap_add=swap_add,
        mul_act=mul_act,
        add_act=add_act,
    )
    net.outputs(add)
    if second_use:
        net.outputs(net.op(second_use, [producer], name="other"))
    return net.model()


def strided_slice_net(
    shape: Sequence[int | None],
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
    **masks: int,
) -> Model:
    """x ``shape`` -> RELU "relu" -> STRIDED_SLICE "ss" with the constants begin "b", end "e"
    and strides "s" (default all 1) and the StridedSliceOptions ``masks``."""
    net = Net()
    relu = net.op("RELU", [net.input("x", shape)], name="relu")
    strides = [1] * len(begin) if strides is None else strides
    operands = [net.const(n, v, np.int32) for n, v in [("b", begin), ("e", end), ("s", strides)]]
    options = new_options("StridedSliceOptions", **masks)
    net.outputs(net.op("STRIDED_SLICE", [relu, *operands], options, name="ss"))
    return net.model()
