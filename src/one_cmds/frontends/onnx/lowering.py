"""Lowering ONNX nodes into IR operators (onnx-import.md §5.1, §6, §7.2, §9).

A converter is ``fn(node, lo)`` registered with :func:`converter` for one or more op types.
It reads its operands with :meth:`Lowering.value` (an IR tensor in ONNX axis order),
:meth:`Lowering.const` (a constant's value, or None) and :meth:`Lowering.shape`; it creates
operators with :meth:`Lowering.emit` and constants with :meth:`Lowering.constant`, and gives
each ONNX output its tensor with :meth:`Lowering.bind`. A node it cannot lower raises
:class:`~.errors.Unsupported` with the reason; every node is tried, so all failures are
reported at once. Emitted operators carry the node's origin; shapes are left to the
project's shape inference after lowering.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx

from ...formats.files import release_pages
from ...ir import Operator, Tensor
from ...ir.schema import new_options
from .errors import OnnxFileError, Unsupported
from .folding import Facts, Shape, known_elements
from .node import Node
from .options import OnnxOptions

Converter = Callable[[Node, "Lowering"], None]
CONVERTERS: dict[str, Converter] = {}

# ONNX element types -> IR dtypes inside the graph (§7.2: INT64 computes as INT32).
INSIDE = {
    onnx.TensorProto.FLOAT: "FLOAT32",
    onnx.TensorProto.FLOAT16: "FLOAT32",
    onnx.TensorProto.BFLOAT16: "FLOAT32",
    onnx.TensorProto.DOUBLE: "FLOAT32",
    onnx.TensorProto.INT64: "INT32",
    onnx.TensorProto.INT32: "INT32",
    onnx.TensorProto.UINT32: "INT32",
    onnx.TensorProto.INT16: "INT16",
    onnx.TensorProto.INT8: "INT8",
    onnx.TensorProto.UINT8: "UINT8",
    onnx.TensorProto.BOOL: "BOOL",
}
NUMPY = {
    "FLOAT32": np.float32, "INT32": np.int32, "INT16": np.int16, "INT8": np.int8,
    "UINT8": np.uint8, "BOOL": np.bool_, "INT64": np.int64, "FLOAT16": np.float16,
}  # fmt: skip
INT32 = np.iinfo(np.int32)
# A 16-bit float constant of at least this many elements is a weight kept 16-bit (:meth:`weight`).
WEIGHT_ELEMENTS = 1024


def converter(*op_types: str) -> Callable[[Converter], Converter]:
    """Register ``fn`` as the converter of each ONNX op type (default domain)."""

    def add(fn: Converter) -> Converter:
        for op_type in op_types:
            if op_type in CONVERTERS:
                raise ValueError(f"two converters for {op_type}")
            CONVERTERS[op_type] = fn
        return fn

    return add


class Lowering:
    """The state of one import: ONNX values bound to IR tensors, the emitted operators."""

    def __init__(
        self, facts: Facts, path: str, warn: Callable[[str], None], options: OnnxOptions
    ) -> None:
        self.facts = facts
        self.path = path
        self.warn = warn
        self.options = options  # what converters may consult (unroll_lstm, unroll_rnn, ...)
        self.values: dict[str, Tensor] = {}
        # Sequence values (SplitToSequence): each part with its dims.
        self.sequences: dict[str, list[tuple[Tensor, list[Any]]]] = {}
        # Indices of nodes another node's converter lowered with its own (Conv + BatchNorm).
        self.absorbed: set[int] = set()
        self.operators: list[Operator] = []
        self.names: dict[str, int] = {}
        self.node: Node | None = None
        self._const_tensors: dict[str, Tensor] = {}
        self._named: set[int] = set()
        self._reserved: set[str] = set()
        # The whole graph, for converters that match patterns over several nodes.
        self.nodes: Sequence[Node] = ()
        self.graph_outputs: frozenset[str] = frozenset()

    # -- reading operands ---------------------------------------------------------------------
    def const(self, name: str) -> np.ndarray | None:
        """The value of a constant (initializer, Constant or folded), None otherwise."""
        return self.facts.consts.get(name) if name else None

    def require_const(self, name: str) -> np.ndarray:
        """The value of a constant operand, or :class:`Unsupported` saying it must be one."""
        value = self.const(name)
        if value is None:
            raise Unsupported(f"input '{name}' must be constant")
        return value

    def partial(self, name: str) -> list[int | None] | None:
        """A small 1-D integer value's elements when some are known (None for the unknown
        ones, which come from unknown dims): constants and shape values (§8.1)."""
        value = self.const(name)
        if value is not None:
            return [int(v) for v in value.reshape(-1)] if value.dtype.kind in "iu" else None
        return known_elements(self.facts.partial.get(name))

    def shape(self, name: str) -> Shape | None:
        """The ONNX shape of a value (None dims unknown); None when even the rank is not."""
        value = self.const(name)
        if value is not None:
            return tuple(value.shape)
        return self.facts.shapes.get(name)

    def rank(self, name: str) -> int:
        shape = self.shape(name)
        if shape is None:
            raise Unsupported(f"rank of '{name}' must be known")
        return len(shape)

    def dtype(self, name: str) -> str:
        """The IR dtype a value has inside the graph."""
        value = self.const(name)
        if value is not None:
            return _const_dtype(value)
        elem = self.facts.types.get(name)
        if elem not in INSIDE:
            return "FLOAT32"
        return INSIDE[elem]

    def value(self, name: str) -> Tensor:
        """The IR tensor of an ONNX value (a constant tensor for a constant)."""
        tensor = self.values.get(name)
        if tensor is not None:
            return tensor
        value = self.const(name)
        if value is None:
            raise Unsupported(f"input '{name}' is not available")
        tensor = self._const_tensors.get(name)
        if tensor is None:
            tensor = self.weight(value, name)
            self._const_tensors[name] = tensor
        return tensor

    # -- creating --------------------------------------------------------------------------------
    def unique(self, name: str) -> str:
        """``name``, or ``name_1``, ``name_2``, … when taken."""
        count = self.names.get(name)
        self.names[name] = 0 if count is None else count + 1
        return name if count is None else f"{name}_{count + 1}"

    def helper_name(self, purpose: str) -> str:
        """``<node name>/<purpose>``, made unique (and reserved: :meth:`constant` takes it as
        it is)."""
        base = self.node.source_name if self.node is not None else "onnx"
        name = self.unique(f"{base}/{purpose}")
        self._reserved.add(name)
        return name

    def constant(self, value: Any, name: str | None = None, dtype: str | None = None) -> Tensor:
        """A constant tensor (INT64 narrowed to INT32, float types to FLOAT32)."""
        array = np.asarray(value)
        dtype = dtype or _const_dtype(array)
        wide = dtype == "INT32" and array.dtype == np.int64 and array.size > 0
        if wide and (array.min() < INT32.min or array.max() > INT32.max):
            raise OnnxFileError(
                f"Invalid input file: {self.path} (int64 constant '{name}' out of int32 range)"
            )
        array = array.astype(NUMPY[dtype], copy=False)
        name = name or self.helper_name("const")
        if name in self._reserved:
            self._reserved.discard(name)
        else:
            name = self.unique(name)
        return Tensor.constant(name, array, dtype)

    def weight(self, value: np.ndarray, name: str | None = None) -> Tensor:
        """A float operand that may be a weight: a float16 or bfloat16 constant of at least
        :data:`WEIGHT_ELEMENTS` elements stays FLOAT16 behind a DEQUANTIZE to FLOAT32, as the
        TFLite converter writes float16 models (bfloat16 converted, values beyond float16's
        range counted in a warning); anything else (or with ``float32_weights``) is
        :meth:`constant`. A view of a mapped weights file is released once copied."""
        array = np.asarray(value)
        wide = self.options.float32_weights
        if wide or not _sixteen_bit(array) or array.size < WEIGHT_ELEMENTS:
            tensor = self.constant(array, name)
        else:
            half = self.constant(self._float16(array, name), name, dtype="FLOAT16")
            tensor = self.emit("DEQUANTIZE", [half], name=self.unique(f"{half.name}_DQ"))
        release_pages(array)
        return tensor

    def _float16(self, array: np.ndarray, name: str | None) -> np.ndarray:
        if array.dtype == np.float16:
            return array
        with np.errstate(over="ignore"):
            half = array.astype(np.float16)
        overflow = int(np.count_nonzero(np.isinf(half) & np.isfinite(array)))
        if overflow:
            self.warn(
                f"bfloat16 weight '{name}': {overflow} of {array.size} values overflow float16 "
                "(give float32_weights to keep them)"
            )
        return half

    def emit(
        self,
        opcode: str,
        inputs: Sequence[Tensor | None],
        options: Any = None,
        *,
        name: str | None = None,
        dtype: str | Sequence[str] = "FLOAT32",
        outputs: int = 1,
        **extra: Any,
    ) -> Any:
        """Append an operator; return its output tensor (a list when ``outputs`` > 1).
        ``options`` is an options object or the options table name (built empty)."""
        if isinstance(options, str):
            options = new_options(options)
        dtypes = [dtype] * outputs if isinstance(dtype, str) else list(dtype)
        base = name or self.helper_name(opcode.lower())
        outs = [
            Tensor(base if len(dtypes) == 1 else self.unique(f"{base}:{k}"), d, ())
            for k, d in enumerate(dtypes)
        ]
        origin = frozenset({self.node.index}) if self.node is not None else frozenset()
        self.operators.append(Operator(opcode, list(inputs), outs, options, origin=origin, **extra))
        return outs[0] if len(outs) == 1 else outs

    def hold(self, name: str, tensor: Tensor) -> None:
        """``tensor`` holds the ONNX value ``name`` and keeps its own name (graph inputs), also
        when a converter binds it to another value (Identity, a Cast to the same type)."""
        self._named.add(id(tensor))
        self.values[name] = tensor

    def bind(self, name: str, tensor: Tensor) -> None:
        """``tensor`` holds the ONNX value ``name``; it takes the name unless it is a constant
        or already holds another value (Identity)."""
        if not name:
            return
        if not tensor.is_constant and id(tensor) not in self._named:
            tensor.name = self.unique(name)
            self._named.add(id(tensor))
        self.values[name] = tensor


def _sixteen_bit(array: np.ndarray) -> bool:
    return array.dtype == np.float16 or array.dtype.name == "bfloat16"


def _const_dtype(array: np.ndarray) -> str:
    kind = np.asarray(array).dtype
    if kind.kind == "f":
        return "FLOAT32"
    if kind == np.int64 or kind == np.uint64 or kind == np.uint32:
        return "INT32"
    if kind == np.bool_:
        return "BOOL"
    for dtype, np_type in NUMPY.items():
        if kind == np_type:
            return dtype
    return "FLOAT32"


def lower_nodes(
    lo: Lowering, nodes: Sequence[Node], graph_outputs: Sequence[str] = ()
) -> list[str]:
    """Lower every node not folded; return the §3 entries of those that cannot be."""
    lo.nodes, lo.graph_outputs = nodes, frozenset(graph_outputs)
    failures: list[str] = []
    for node in nodes:
        if node.index in lo.facts.folded:
            continue
        lo.node = node
        fn = CONVERTERS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        try:
            if fn is None:
                raise Unsupported()
            fn(node, lo)
        except Unsupported as e:
            failures.append(node.label + (f": {e.reason}" if e.reason else ""))
            _placeholders(lo, node)
    lo.node = None
    return failures


def _placeholders(lo: Lowering, node: Node) -> None:
    """Stand-ins for the outputs of a node that failed, so later nodes can be checked."""
    for name in node.outputs:
        if name and name not in lo.values:
            lo.values[name] = Tensor(name, lo.dtype(name), ())
