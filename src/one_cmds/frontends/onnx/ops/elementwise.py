"""Element-wise operators (onnx-import.md §6.1): arithmetic, Pow, variadic Max/Min/Sum/Mean,
Mod, unary math, logic, comparisons, IsNaN and IsInf, Where, Cast and CastLike (§7.2).

ONNX's multidirectional (numpy) broadcasting is TFLite's, so binary operators map one to one.
INT64 values compute as INT32 inside the graph; TFLite's DIV on INT32 truncates toward zero
as ONNX's integer Div does.
"""

from __future__ import annotations

import functools
import weakref

import numpy as np
import onnx

from ....ir import Tensor
from ....ir.schema import TYPE_BY_NAME
from ..errors import Unsupported
from ..lowering import INSIDE, NUMPY, Lowering, converter
from ..node import Node
from . import fusions
from .common import options

TABLES = {
    "ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions", "DIV": "DivOptions",
    "POW": "PowOptions", "MAXIMUM": "MaximumMinimumOptions", "MINIMUM": "MaximumMinimumOptions",
    "FLOOR_MOD": "FloorModOptions", "EQUAL": "EqualOptions", "NOT_EQUAL": "NotEqualOptions",
    "LESS": "LessOptions", "LESS_EQUAL": "LessEqualOptions", "GREATER": "GreaterOptions",
    "GREATER_EQUAL": "GreaterEqualOptions", "LOGICAL_AND": "LogicalAndOptions",
    "LOGICAL_OR": "LogicalOrOptions", "LOGICAL_NOT": "LogicalNotOptions",
    "SELECT_V2": "SelectV2Options", "SQUARE": "SquareOptions", "NEG": "NegOptions",
    "EXP": "ExpOptions", "ABS": "AbsOptions", "CAST": "CastOptions",
    "LEAKY_RELU": "LeakyReluOptions", "GELU": "GeluOptions", "HARD_SWISH": "HardSwishOptions",
    "SOFTMAX": "SoftmaxOptions", "LOG_SOFTMAX": "LogSoftmaxOptions", "SHAPE": "ShapeOptions",
}  # fmt: skip
ARITHMETIC = {"Add": "ADD", "Sub": "SUB", "Mul": "MUL", "Div": "DIV"}
VARIADIC = {"Max": "MAXIMUM", "Min": "MINIMUM", "Sum": "ADD", "Mean": "ADD"}
UNARY = {"Sqrt": "SQRT", "Exp": "EXP", "Log": "LOG", "Neg": "NEG", "Abs": "ABS",
         "Floor": "FLOOR", "Ceil": "CEIL", "Round": "ROUND", "Sin": "SIN", "Cos": "COS",
         "Not": "LOGICAL_NOT"}  # fmt: skip
PREDICATES = {"Equal": "EQUAL", "Greater": "GREATER", "GreaterOrEqual": "GREATER_EQUAL",
              "Less": "LESS", "LessOrEqual": "LESS_EQUAL", "And": "LOGICAL_AND",
              "Or": "LOGICAL_OR", "Xor": "NOT_EQUAL"}  # fmt: skip
NARROW_FLOATS = (onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16)
NARROW_INTS = frozenset({"INT8", "UINT8", "INT16"})
_WARNED: weakref.WeakSet[Lowering] = weakref.WeakSet()


def op(
    lo: Lowering, opcode: str, inputs: list[Tensor], dtype: str | None = None, **fields
) -> Tensor:
    """``opcode`` on ``inputs`` with its options table (``fields`` set); the result has input
    0's dtype unless ``dtype`` says otherwise."""
    table = TABLES.get(opcode)
    opts = options(table, **fields) if table else None
    return lo.emit(opcode, inputs, opts, dtype=dtype or inputs[0].dtype)


def scalar(lo: Lowering, value: float, like: Tensor) -> Tensor:
    """A constant scalar of ``like``'s dtype."""
    return lo.constant(np.array(value, NUMPY[like.dtype]))


def scaled(lo: Lowering, x: Tensor, factor: float) -> Tensor:
    """``x·factor``."""
    return op(lo, "MUL", [x, scalar(lo, factor, x)])


def shifted(lo: Lowering, x: Tensor, offset: float) -> Tensor:
    """``x+offset``."""
    return op(lo, "ADD", [x, scalar(lo, offset, x)])


def widened(lo: Lowering, values: list[Tensor]) -> tuple[list[Tensor], str | None]:
    """Operands of input 0's type as INT32 when it is INT8, UINT8 or INT16, which TFLite's
    arithmetic reads as quantized; and that narrow type to cast results back to (or None)."""
    narrow = values[0].dtype if values[0].dtype in NARROW_INTS else None
    if narrow is None:
        return values, None
    return [cast(lo, v, "INT32") if v.dtype == narrow else v for v in values], narrow


def narrowed(lo: Lowering, y: Tensor, narrow: str | None) -> Tensor:
    """A result computed by :func:`widened` operands, back in the narrow type."""
    return y if narrow is None else cast(lo, y, narrow)


def _operands(lo: Lowering, node: Node, count: int) -> tuple[list[Tensor], str | None]:
    return widened(lo, [lo.value(node.input(k)) for k in range(count)])


def trunc(lo: Lowering, x: Tensor) -> Tensor:
    """Rounding toward zero of a float: ``sign(x)·floor(|x|)``."""
    magnitude = op(lo, "FLOOR", [op(lo, "ABS", [x])])
    return op(lo, "MUL", [op(lo, "SIGN", [x]), magnitude])


@converter(*ARITHMETIC)
def arithmetic(node: Node, lo: Lowering) -> None:
    if fusions.claim(node, lo):
        return
    operands, narrow = _operands(lo, node, 2)
    lo.bind(node.outputs[0], narrowed(lo, op(lo, ARITHMETIC[node.op_type], operands), narrow))


def _exponent(lo: Lowering, node: Node) -> float | None:
    """Pow's exponent when it is a constant scalar that leaves the base's shape as it is."""
    value, base = lo.const(node.input(1)), lo.shape(node.input(0))
    if value is None or value.size != 1 or base is None or value.ndim > len(base):
        return None
    return float(value.reshape(()))


@converter("Pow")
def power(node: Node, lo: Lowering) -> None:
    """Pow (7, 12: the exponent's type may differ): by 2 MUL(x, x), by ½ SQRT, else POW with
    the exponent in the base's dtype; an integer base with a float exponent is raised in
    FLOAT32 and truncated back, as onnxruntime does."""
    if fusions.claim(node, lo):
        return
    (x, e), narrow = _operands(lo, node, 2)
    exponent = _exponent(lo, node)
    if exponent == 2:
        y = op(lo, "MUL", [x, x])
    elif exponent == 0.5 and x.dtype == "FLOAT32":
        y = op(lo, "SQRT", [x])
    elif x.dtype != "FLOAT32" and e.dtype == "FLOAT32":
        y = cast(lo, op(lo, "POW", [cast(lo, x, "FLOAT32"), e]), x.dtype)
    else:
        y = op(lo, "POW", [x, cast(lo, e, x.dtype)])
    lo.bind(node.outputs[0], narrowed(lo, y, narrow))


@converter(*VARIADIC)
def variadic(node: Node, lo: Lowering) -> None:
    """Max, Min, Sum: a chain of the binary operator; Mean: the Sum times 1/n."""
    values, narrow = widened(lo, [lo.value(name) for name in node.inputs if name])
    opcode = VARIADIC[node.op_type]
    y = functools.reduce(lambda a, b: op(lo, opcode, [a, b]), values)
    if node.op_type == "Mean" and len(values) > 1:
        y = scaled(lo, y, 1 / len(values))
    lo.bind(node.outputs[0], narrowed(lo, y, narrow))


@converter("Mod")
def mod(node: Node, lo: Lowering) -> None:
    """``fmod`` 0: FLOOR_MOD (the divisor's sign); 1: ``x−trunc(x/y)·y`` (the dividend's)."""
    (x, y), narrow = _operands(lo, node, 2)
    if not node.attr("fmod", 0):
        result = op(lo, "FLOOR_MOD", [x, y])
    else:
        quotient = op(lo, "DIV", [x, y])
        if x.dtype == "FLOAT32":
            quotient = trunc(lo, quotient)
        result = op(lo, "SUB", [x, op(lo, "MUL", [quotient, y])])
    lo.bind(node.outputs[0], narrowed(lo, result, narrow))


@converter(*UNARY)
def unary(node: Node, lo: Lowering) -> None:
    (x,), narrow = _operands(lo, node, 1)
    lo.bind(node.outputs[0], narrowed(lo, op(lo, UNARY[node.op_type], [x]), narrow))


@converter("Reciprocal")
def reciprocal(node: Node, lo: Lowering) -> None:
    x = lo.value(node.input(0))
    lo.bind(node.outputs[0], op(lo, "DIV", [scalar(lo, 1, x), x]))


@converter(*PREDICATES)
def predicate(node: Node, lo: Lowering) -> None:
    """Comparisons and logical binaries (Xor is NOT_EQUAL of booleans): BOOL results."""
    operands, _ = _operands(lo, node, 2)
    lo.bind(node.outputs[0], op(lo, PREDICATES[node.op_type], operands, dtype="BOOL"))


@converter("IsNaN")
def is_nan(node: Node, lo: Lowering) -> None:
    """IsNaN (9, 13, 20): ``x != x``, true exactly for NaN (what the dynamo exporter writes for
    ``torch.isnan`` in Hugging Face decoders' attention masks)."""
    x = lo.value(node.input(0))
    lo.bind(node.outputs[0], op(lo, "NOT_EQUAL", [x, x], dtype="BOOL"))


@converter("IsInf")
def is_inf(node: Node, lo: Lowering) -> None:
    """IsInf (10, 20): ``|x| == inf``, ``x == inf`` or ``x == -inf`` as ``detect_positive`` and
    ``detect_negative`` say; neither gives ``x < x`` (false everywhere, NaN included)."""
    x = lo.value(node.input(0))
    positive, negative = node.attr("detect_positive", 1), node.attr("detect_negative", 1)
    if positive and negative:
        found = op(lo, "EQUAL", [op(lo, "ABS", [x]), scalar(lo, np.inf, x)], dtype="BOOL")
    elif positive or negative:
        found = op(lo, "EQUAL", [x, scalar(lo, np.inf if positive else -np.inf, x)], dtype="BOOL")
    else:
        found = op(lo, "LESS", [x, x], dtype="BOOL")
    lo.bind(node.outputs[0], found)


@converter("Where")
def where(node: Node, lo: Lowering) -> None:
    condition, a, b = (lo.value(node.input(k)) for k in range(3))
    lo.bind(node.outputs[0], op(lo, "SELECT_V2", [condition, a, b], dtype=a.dtype))


def cast(lo: Lowering, x: Tensor, dtype: str) -> Tensor:
    """``x`` as ``dtype``: itself when it has it, a converted constant, else a CAST."""
    if x.dtype == dtype:
        return x
    if x.is_constant:
        return lo.constant(x.data.astype(NUMPY[dtype]), dtype=dtype)
    table = {"inDataType": TYPE_BY_NAME[x.dtype], "outDataType": TYPE_BY_NAME[dtype]}
    return op(lo, "CAST", [x], dtype=dtype, **table)


@converter("Cast", "CastLike")
def cast_node(node: Node, lo: Lowering) -> None:
    """Cast (``to``) and CastLike (input 1's type) with the inside dtypes of §7.2: FLOAT16 and
    BFLOAT16 compute as FLOAT32 (one warning per import), INT64 as INT32."""
    cast_like = node.op_type == "CastLike"
    target = _elem_type(lo, node.input(1)) if cast_like else int(node.attr("to"))
    if target not in INSIDE:
        raise Unsupported(f"to '{onnx.TensorProto.DataType.Name(target)}' is not supported")
    if target in NARROW_FLOATS and lo not in _WARNED:
        _WARNED.add(lo)
        name = onnx.TensorProto.DataType.Name(target)
        lo.warn(f"Cast '{node.source_name}' to {name} is computed in FLOAT32")
    lo.bind(node.outputs[0], cast(lo, lo.value(node.input(0)), INSIDE[target]))


def _elem_type(lo: Lowering, name: str) -> int:
    """The ONNX element type of a value."""
    value = lo.const(name)
    if value is not None:
        return onnx.helper.np_dtype_to_tensor_dtype(value.dtype)
    elem = lo.facts.types.get(name)
    if elem is None:
        raise Unsupported(f"the type of '{name}' must be known")
    return elem
