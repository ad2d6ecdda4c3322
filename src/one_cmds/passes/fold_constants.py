"""Constant folding (optimization.md §5.21): an operator whose operands are all constant
becomes constants holding its results, computed by the interpreter's kernel (fused
activation included); the operator disappears with its origin (§9).

* ``fold_add_v2``: Custom(AddV2) of two INT64 constants of the same shape.
* ``fold_cast``: Cast of an INT64 constant to INT32 (plain conversion, as the kernel and
  LiteRT do; the reference saturates out-of-range values instead).
* ``fold_densify``: Densify of a sparse constant.
* ``fold_dwconv``: DepthwiseConv2D with constant input, filter and bias or none (the
  reference also demands float32 and a bias; the kernel refuses quantized operands).
* ``fold_fully_connected``: FullyConnected with float32 constant input and weights, a float32
  constant bias or none, default weights format.
* ``fold_gather``: Gather of constant params and indices (the reference: INT32/INT64 params
  only).
* ``fold_sparse_to_dense``: SparseToDense with constant indices, shape, values and default
  (the reference folds only empty indices with INT64 values).

DepthwiseConv2D and FullyConnected fold only with a fused activation NONE, RELU,
RELU_N1_TO_1 or RELU6: LiteRT's float kernels ignore a fused TANH while the interpreter's
kernels apply it (the reference folds TANH as NONE, as LiteRT runs it). The folded
constants keep the quantization parameters of the results they replace.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir import Operator
from . import graph_pass
from .toolkit import (
    NONE,
    RELU,
    RELU6,
    RELU_N1_TO_1,
    GraphEditor,
    activation,
    fold,
    is_float32,
)

_CLAMPS = frozenset({NONE, RELU, RELU_N1_TO_1, RELU6})


def _fold_all(g: GraphEditor, opcode: str, foldable: Callable[[Operator], bool]) -> int:
    """Fold every operator of kind ``opcode`` that passes ``foldable``."""
    return sum(foldable(op) and fold(g, op) for op in g.ops(opcode))


def _add_v2(op: Operator) -> bool:
    x, y = [*op.inputs, None, None][:2]
    return (
        op.kind == "CUSTOM(AddV2)"
        and len(op.inputs) == 2
        and x is not None
        and y is not None
        and x.dtype == y.dtype == op.outputs[0].dtype == "INT64"
        and x.shape == y.shape
    )


def _fully_connected(op: Operator) -> bool:
    x, w, b = [*op.inputs, None][:3]
    weights_format = getattr(op.options, "weightsFormat", 0)
    plain_bias = b is None or is_float32(b)
    return is_float32(x, w) and plain_bias and weights_format == 0 and activation(op) in _CLAMPS


@graph_pass("fold_add_v2")
def fold_add_v2(g: GraphEditor) -> int:
    return _fold_all(g, "CUSTOM", _add_v2)


@graph_pass("fold_cast")
def fold_cast(g: GraphEditor) -> int:
    return _fold_all(
        g, "CAST", lambda op: op.inputs[0].dtype == "INT64" and op.outputs[0].dtype == "INT32"
    )


@graph_pass("fold_densify")
def fold_densify(g: GraphEditor) -> int:
    return _fold_all(g, "DENSIFY", lambda op: op.inputs[0].sparsity is not None)


@graph_pass("fold_dwconv")
def fold_dwconv(g: GraphEditor) -> int:
    return _fold_all(g, "DEPTHWISE_CONV_2D", lambda op: activation(op) in _CLAMPS)


@graph_pass("fold_fully_connected")
def fold_fully_connected(g: GraphEditor) -> int:
    return _fold_all(g, "FULLY_CONNECTED", _fully_connected)


@graph_pass("fold_gather")
def fold_gather(g: GraphEditor) -> int:
    return _fold_all(g, "GATHER", lambda op: True)


@graph_pass("fold_sparse_to_dense")
def fold_sparse_to_dense(g: GraphEditor) -> int:
    return _fold_all(g, "SPARSE_TO_DENSE", lambda op: True)
