"""Writing the in-memory model as a circle (``CIR0``) or TFLite (``TFL3``) file.

The output name decides the format (``.tflite`` → TFL3). Unchanged parts keep their source
order, new items follow in creation order, removed items leave no gaps; the bytes depend only
on the model and the options. Files that would not fit the 2 GiB flatbuffer limit keep their
weights after the flatbuffer (circle-format-and-metadata.md §5). Either way the weights are
streamed into the file (see :mod:`.streamed`), never packed in memory.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import flatbuffers
import numpy as np
from circle_schema.v0_10.circle.Buffer import BufferT
from circle_schema.v0_10.circle.Metadata import MetadataT
from circle_schema.v0_10.circle.Model import ModelT
from circle_schema.v0_10.circle.Operator import OperatorT
from circle_schema.v0_10.circle.OperatorCode import OperatorCodeT
from circle_schema.v0_10.circle.QuantizationParameters import QuantizationParametersT
from circle_schema.v0_10.circle.SignatureDef import SignatureDefT
from circle_schema.v0_10.circle.SubGraph import SubGraphT
from circle_schema.v0_10.circle.Tensor import TensorT
from circle_schema.v0_10.circle.TensorMap import TensorMapT

from ..errors import ExportError
from ..ir import Buffer, Graph, Model, Operator, QuantParam, Tensor
from ..ir.schema import (
    CIRCLE_ONLY_OPTIONS,
    OPCODE_BY_NAME,
    PLACEHOLDER_FOR_GREATER_OP_CODES,
    TYPE_BY_NAME,
    options2_type,
    options_type,
)
from . import metadata as md
from .files import Output, write_atomically
from .reader import BUFFER_LOCATION, CIRCLE_IDENTIFIER, TFLITE_IDENTIFIER
from .streamed import ExternalFile, Hole, InlineFile

FLATBUFFER_LIMIT = 2**31 - 1
MD5_PLACEHOLDER = "0" * 32  # replaced by the source's md5 once the weights are written
_ALIGN = 16
SHUFFLED16x1FLOAT32 = 127


def is_tflite_path(path: str) -> bool:
    return path.lower().endswith(".tflite")


def save(model: Model, path: str, *, profile: bool = False) -> int:
    """Write ``model`` to ``path``; return the file size. ``profile`` adds the ONE tables.

    The md5 of the source that the tables name is computed while the weights are written (a
    placeholder is written first, then replaced), so a multi-GB source is hashed and copied
    at the same time.
    """
    tflite = is_tflite_path(path)
    if tflite:
        _check_tflite_compatible(model, path)
    if profile and not model.has_source_md5:
        raise ExportError(
            f"Failed to export: {path} (profiling data needs the md5 of the source model file; "
            "this model was not loaded from a file)"
        )
    layout = _Layout(model, profile)
    ident = TFLITE_IDENTIFIER if tflite else CIRCLE_IDENTIFIER
    version = 3 if tflite else 0
    holes: list[Hole] = []
    file: InlineFile | ExternalFile = InlineFile(
        _pack(layout.tree(version, holes=holes), ident), holes
    )
    if file.size > FLATBUFFER_LIMIT:
        file = _external(layout, ident, version)
    if layout.md5_buffer is None:
        return write_atomically(path, file.write)
    with ThreadPoolExecutor(1) as pool:
        md5 = pool.submit(lambda: model.source_md5)

        def write(output: Output) -> None:
            file.write(output)
            position = file.positions[id(layout.md5_buffer)]
            output.write_at(position, md.encode_md5(md5.result()))  # type: ignore[arg-type]

        return write_atomically(path, write)


def settle(model: Model) -> None:
    """Give ``model`` the order its file has: operator codes and each graph's tensor list as
    :func:`save` writes them, which is what loading the file gives back. A model handed on
    in memory after its step's file is written then continues as a re-read one would, so
    later items follow the same file order either way (cli-and-config.md §10)."""
    layout = _Layout(model, profile=False)
    model.operator_codes = list(layout.codes)
    for graph, tensors in zip(model.graphs, layout.tensors, strict=True):
        graph.tensors = list(tensors)


def _external(layout: _Layout, ident: bytes, version: int) -> ExternalFile:
    """Weights after the flatbuffer, each 16-byte aligned; offsets are counted from 0."""
    placeholder = {id(b): (2**40, b.nbytes) for b in layout.buffers if b.nbytes}
    head = len(_pack(layout.tree(version, external=placeholder), ident))
    offsets: dict[int, tuple[int, int]] = {}
    placed: list[tuple[int, Buffer]] = []
    pos = _aligned(head)
    for b in layout.buffers:
        if b.nbytes:
            offsets[id(b)] = (pos, b.nbytes)
            placed.append((pos, b))
            pos = _aligned(pos + b.nbytes)
    flat = _pack(layout.tree(version, external=offsets), ident)
    if len(flat) != head:
        raise ExportError("internal error: the flatbuffer size changed between two packs")
    return ExternalFile(flat, placed, pos)


def _aligned(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _pack(tree: ModelT, ident: bytes) -> memoryview:
    """Pack the object tree (its weights are holes or outside: the result is small)."""
    builder = flatbuffers.Builder(2**20)
    try:
        builder.Finish(tree.Pack(builder), file_identifier=ident)
    except flatbuffers.builder.BuilderSizeError:
        raise ExportError(
            "internal error: the model's structure alone exceeds the 2 GiB flatbuffer limit"
        ) from None
    return memoryview(builder.Bytes)[builder.Head() :]


class _Layout:
    """Decides the order of every item of the output and builds the object tree."""

    def __init__(self, model: Model, profile: bool) -> None:
        self.model = model
        self.profile = profile
        self.tensors = [g.referenced_tensors() for g in model.graphs]
        for signature in model.signature_defs:  # a signature may name a tensor no op uses
            listed = self.tensors[signature.graph_index]
            known = {id(t) for t in listed}
            for _, t in (*signature.inputs, *signature.outputs):
                if id(t) not in known:
                    listed.append(t)
                    known.add(id(t))
        self.tensor_index = [{id(t): i for i, t in enumerate(ts)} for ts in self.tensors]
        self.codes = self._operator_codes()
        self.code_index = {c: i for i, c in enumerate(self.codes)}
        self.md5_buffer: Buffer | None = None
        self.extra_metadata = self._one_tables() if profile else []
        self.buffers = self._buffers()
        self.buffer_index = {id(b): i + 1 for i, b in enumerate(self.buffers)}

    def _operator_codes(self) -> list[tuple[str, str | None, int]]:
        used = {_code_key(op): None for g in self.model.graphs for op in g.operators}
        kept = [c for c in self.model.operator_codes if c in used]
        known = set(kept)
        return kept + [c for c in used if c not in known]

    def _buffers(self) -> list[Buffer]:
        seen: dict[int, Buffer] = {}
        for ts in self.tensors:
            for t in ts:
                if t.buffer is not None:
                    seen[id(t.buffer)] = t.buffer
        for entry in self.model.metadata:
            seen[id(entry.buffer)] = entry.buffer
        for b in self.model.spare_buffers:
            seen[id(b)] = b
        ordered = sorted(seen.values(), key=lambda b: b.seq)
        return ordered + [b for _, b in self.extra_metadata]

    def _one_tables(self) -> list[tuple[str, Buffer]]:
        model = self.model
        op_table = {k: op.origin for k, op in enumerate(model.main.operators) if op.origin}
        self.md5_buffer = Buffer.from_bytes(md.encode_md5(MD5_PLACEHOLDER))
        return [
            (md.SOURCE_TABLE, Buffer.from_bytes(md.encode_source_table(model.source_table))),
            (md.OP_TABLE, Buffer.from_bytes(md.encode_op_table(op_table))),
            (md.SOURCE_MD5, self.md5_buffer),
        ]

    # -- object tree -----------------------------------------------------------------------
    def tree(
        self,
        version: int,
        *,
        external: dict[int, tuple[int, int]] | None = None,
        holes: list[Hole] | None = None,
    ) -> ModelT:
        """The object tree; weights are ``external`` (offset, size) by buffer id, or holes
        (appended to ``holes``) for an inline file."""
        model = self.model
        tree = ModelT()
        tree.version = version
        tree.operatorCodes = [_operator_code(c) for c in self.codes]
        tree.subgraphs = [self._graph(g, i) for i, g in enumerate(model.graphs)]
        tree.description = _bytes(model.description)
        tree.buffers = [BufferT()] + [self._buffer(b, external, holes) for b in self.buffers]
        entries = [(e.name, e.buffer) for e in model.metadata] + self.extra_metadata
        metadata = [_metadata(name, self.buffer_index[id(b)]) for name, b in entries]
        if external is not None:
            tree.buffers.append(_buffer_bytes(b"outside flatbuffers"))
            metadata.append(_metadata(BUFFER_LOCATION, len(tree.buffers) - 1))
        tree.metadata = metadata
        tree.signatureDefs = [self._signature(s) for s in model.signature_defs]
        return tree

    def _buffer(
        self, b: Buffer, external: dict[int, tuple[int, int]] | None, holes: list[Hole] | None
    ) -> BufferT | Hole:
        out = BufferT()
        if b.raw is None:
            return out
        if external is not None:
            if b.nbytes:  # an empty constant has no bytes to place
                out.offset, out.size = external[id(b)]
            return out
        hole = Hole(b)
        holes.append(hole)  # type: ignore[union-attr]
        return hole

    def _graph(self, graph: Graph, g: int) -> SubGraphT:
        index = self.tensor_index[g]
        out = SubGraphT()
        out.tensors = [self._tensor(t) for t in self.tensors[g]]
        out.inputs = _int32([index[id(t)] for t in graph.inputs])
        out.outputs = _int32([index[id(t)] for t in graph.outputs])
        out.operators = [self._operator(op, index) for op in graph.operators]
        out.name = _bytes(graph.name)
        return out

    def _tensor(self, t: Tensor) -> TensorT:
        out = TensorT()
        out.shape = _int32([1 if d is None else d for d in t.shape])
        if not t.is_static:
            out.shapeSignature = _int32([-1 if d is None else d for d in t.shape])
        out.type = TYPE_BY_NAME[t.dtype]
        out.buffer = 0 if t.buffer is None else self.buffer_index[id(t.buffer)]
        out.name = _bytes(t.name)
        out.quantization = None if t.quant is None else _quantization(t.quant)
        out.isVariable = t.is_variable
        out.sparsity = t.sparsity
        out.hasRank = t.has_rank
        out.variantTensors = t.variant_tensors
        return out

    def _operator(self, op: Operator, index: dict[int, int]) -> OperatorT:
        out = OperatorT()
        out.opcodeIndex = self.code_index[_code_key(op)]
        out.inputs = _int32([-1 if t is None else index[id(t)] for t in op.inputs])
        out.outputs = _int32([index[id(t)] for t in op.outputs])
        out.builtinOptionsType = options_type(op.options)
        out.builtinOptions = op.options
        out.builtinOptions2Type = options2_type(op.options2)
        out.builtinOptions2 = op.options2
        if op.custom_options is not None:
            out.customOptions = np.frombuffer(op.custom_options, np.uint8)
        out.customOptionsFormat = op.custom_options_format
        if op.mutating_variable_inputs is not None:
            out.mutatingVariableInputs = np.array(op.mutating_variable_inputs, np.bool_)
        if op.intermediates:
            out.intermediates = _int32([index[id(t)] for t in op.intermediates])
        return out

    def _signature(self, s: Any) -> SignatureDefT:
        index = self.tensor_index[s.graph_index]
        out = SignatureDefT()
        out.inputs = [_tensor_map(name, index[id(t)]) for name, t in s.inputs]
        out.outputs = [_tensor_map(name, index[id(t)]) for name, t in s.outputs]
        out.signatureKey = _bytes(s.key)
        out.subgraphIndex = s.graph_index
        return out


def _code_key(op: Operator) -> tuple[str, str | None, int]:
    return op.opcode, op.custom_code, op.version


def _operator_code(key: tuple[str, str | None, int]) -> OperatorCodeT:
    name, custom, version = key
    code = OPCODE_BY_NAME[name]
    out = OperatorCodeT()
    out.builtinCode = code
    out.deprecatedBuiltinCode = min(code, PLACEHOLDER_FOR_GREATER_OP_CODES)
    out.customCode = _bytes(custom)
    out.version = version
    return out


def _quantization(q: QuantParam) -> QuantizationParametersT:
    out = QuantizationParametersT()
    out.min = _array(q.min, np.float32)
    out.max = _array(q.max, np.float32)
    out.scale = _array(q.scale, np.float32)
    out.zeroPoint = _array(q.zero_point, np.int64)
    out.quantizedDimension = q.quantized_dimension
    return out


def _metadata(name: str, buffer: int) -> MetadataT:
    out = MetadataT()
    out.name = _bytes(name)
    out.buffer = buffer
    return out


def _buffer_bytes(data: bytes) -> BufferT:
    out = BufferT()
    out.data = np.frombuffer(data, np.uint8)
    return out


def _tensor_map(name: str, index: int) -> TensorMapT:
    out = TensorMapT()
    out.name = _bytes(name)
    out.tensorIndex = index
    return out


def _int32(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def _array(values: Any, dtype: type) -> np.ndarray | None:
    return None if values is None else np.asarray(values, dtype=dtype)


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8", errors="surrogateescape")


def circle_only_feature(model: Model) -> str | None:
    """The first feature of ``model`` that only circle can hold, with where it is (e.g.
    ``operator BCQ_GATHER exists only in circle: graph 0, operator 3``); None when the model
    can be written as TFLite."""
    for g, graph in enumerate(model.graphs):
        for i, op in enumerate(graph.operators):
            where = f"graph {g}, operator {i}"
            if OPCODE_BY_NAME[op.opcode] < 0:
                return f"operator {op.opcode} exists only in circle: {where}"
            if options_type(op.options) in CIRCLE_ONLY_OPTIONS:
                return f"options {type(op.options).__name__[:-1]} exists only in circle: {where}"
            if getattr(op.options, "weightsFormat", 0) == SHUFFLED16x1FLOAT32:
                return f"weights format SHUFFLED16x1FLOAT32 exists only in circle: {where}"
        for t in graph.referenced_tensors():
            if TYPE_BY_NAME[t.dtype] < 0:
                return f"tensor type {t.dtype} exists only in circle: graph {g}, tensor {t.name}"
    return None


def _check_tflite_compatible(model: Model, path: str) -> None:
    """Refuse a TFL3 output for a model that uses circle-only features."""
    feature = circle_only_feature(model)
    if feature is not None:
        raise ExportError(f"Failed to export: {path} ({feature})")
