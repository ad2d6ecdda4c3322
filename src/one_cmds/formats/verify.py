"""Structural verification of a TFLite/circle flatbuffer before it is unpacked.

The Python flatbuffers runtime has no verifier, so every offset, vtable, vector and string the
loader will touch is bounds-checked here, indices are range-checked, and the schema collisions
between TFLite and circle (circle-format-and-metadata.md §4) are detected from the raw vtables.
A problem raises :class:`InvalidModel` with a short description of what is wrong and where.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ..ir.schema import OPCODE_NAME, TFLITE_ONLY_TYPES, TYPE_NAME, options_name

_U8 = struct.Struct("<B")
_U16 = struct.Struct("<H")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


class InvalidModel(Exception):
    """The flatbuffer is malformed (``reason`` says where)."""


class UnsupportedFeature(Exception):
    """The file uses a schema feature this project does not handle."""


@dataclass(frozen=True)
class Table:
    pos: int
    fields: tuple[int, ...]
    size: int

    def field(self, slot: int) -> int:
        return self.fields[slot] if slot < len(self.fields) else 0


class _Buffer:
    """Bounds-checked primitive reads over the file bytes."""

    def __init__(self, data: bytes | memoryview) -> None:
        self.data = data
        self.n = len(data)

    def u32(self, pos: int, where: str) -> int:
        if pos < 0 or pos + 4 > self.n:
            raise InvalidModel(f"{where}: offset {pos} outside the file")
        return _U32.unpack_from(self.data, pos)[0]

    def table(self, pos: int, where: str) -> Table:
        n = self.n
        if pos < 0 or pos + 4 > n:
            raise InvalidModel(f"{where}: table offset {pos} outside the file")
        vt = pos - _I32.unpack_from(self.data, pos)[0]
        if vt < 0 or vt + 4 > n:
            raise InvalidModel(f"{where}: vtable outside the file")
        vt_size = _U16.unpack_from(self.data, vt)[0]
        size = _U16.unpack_from(self.data, vt + 2)[0]
        if vt_size < 4 or vt_size % 2 or vt + vt_size > n:
            raise InvalidModel(f"{where}: invalid vtable")
        if size < 4 or pos + size > n:
            raise InvalidModel(f"{where}: table outside the file")
        fields = struct.unpack_from(f"<{(vt_size - 4) // 2}H", self.data, vt + 4)
        for off in fields:
            if off and (off < 4 or off >= size):
                raise InvalidModel(f"{where}: field outside its table")
        return Table(pos, fields, size)

    def scalar(self, t: Table, slot: int, fmt: struct.Struct, default: int, where: str) -> int:
        off = t.field(slot)
        if not off:
            return default
        if off + fmt.size > t.size:
            raise InvalidModel(f"{where}: field outside its table")
        return fmt.unpack_from(self.data, t.pos + off)[0]

    def ref(self, t: Table, slot: int, where: str) -> int | None:
        """Absolute position that an offset field points to, or None when absent."""
        off = t.field(slot)
        if not off:
            return None
        if off + 4 > t.size:
            raise InvalidModel(f"{where}: field outside its table")
        at = t.pos + off
        return at + self.u32(at, where)

    def vector(self, t: Table, slot: int, elem: int, where: str) -> tuple[int, int]:
        """(start of the elements, length) of a vector field; (0, 0) when absent."""
        target = self.ref(t, slot, where)
        if target is None:
            return 0, 0
        length = self.u32(target, where)
        start = target + 4
        if start + length * elem > self.n:
            raise InvalidModel(f"{where}: vector runs past the end of the file")
        return start, length

    def string(self, t: Table, slot: int, where: str) -> bytes | None:
        target = self.ref(t, slot, where)
        if target is None:
            return None
        length = self.u32(target, where)
        end = target + 4 + length
        if end >= self.n or self.data[end] != 0:
            raise InvalidModel(f"{where}: string runs past the end of the file")
        return bytes(self.data[target + 4 : end])

    def ints(self, t: Table, slot: int, where: str) -> tuple[int, ...]:
        start, length = self.vector(t, slot, 4, where)
        return struct.unpack_from(f"<{length}i", self.data, start) if length else ()

    def tables(self, t: Table, slot: int, where: str) -> list[Table]:
        start, length = self.vector(t, slot, 4, where)
        out = []
        for i in range(length):
            e = start + 4 * i
            out.append(self.table(e + self.u32(e, where), f"{where} {i}"))
        return out

    def subtable(self, t: Table, slot: int, where: str) -> Table | None:
        target = self.ref(t, slot, where)
        return None if target is None else self.table(target, where)


def verify_model(data: bytes | memoryview, *, tflite: bool) -> None:
    """Check the structure of a whole model file; raise InvalidModel / UnsupportedFeature."""
    b = _Buffer(data)
    model = b.table(b.u32(0, "root"), "model")
    if tflite and (model.field(8) or model.field(9)):
        raise UnsupportedFeature("external buffers")
    buffers = b.tables(model, 4, "buffer")
    n_buffers = len(buffers)
    for i, buf in enumerate(buffers):
        _verify_buffer(b, buf, i)
    n_opcodes = _verify_opcodes(b, model)
    graphs = b.tables(model, 2, "graph")
    if not graphs:
        raise InvalidModel("the model has no subgraph")
    tensor_counts = []
    for g, graph in enumerate(graphs):
        tensor_counts.append(_verify_graph(b, graph, g, n_buffers, n_opcodes, tflite))
    b.string(model, 3, "description")
    b.vector(model, 5, 4, "metadata_buffer")
    for i, meta in enumerate(b.tables(model, 6, "metadata")):
        where = f"metadata entry {i}"
        b.string(meta, 0, where)
        index = b.scalar(meta, 1, _U32, 0, where)
        if index >= n_buffers:
            raise InvalidModel(f"{where}: buffer index {index} out of range")
    for i, sig in enumerate(b.tables(model, 7, "signature def")):
        _verify_signature(b, sig, i, tensor_counts)


def _verify_buffer(b: _Buffer, buf: Table, i: int) -> None:
    where = f"buffer {i}"
    _, length = b.vector(buf, 0, 1, where)
    offset = b.scalar(buf, 1, _U64, 0, where)
    size = b.scalar(buf, 2, _U64, 0, where)
    if offset > 1:
        if length:
            raise InvalidModel(f"{where} has both inline data and an offset")
        if offset + size > b.n:
            raise InvalidModel(f"buffer {i} points outside the file")


def _verify_opcodes(b: _Buffer, model: Table) -> int:
    codes = b.tables(model, 1, "operator code")
    for i, code in enumerate(codes):
        where = f"operator code {i}"
        deprecated = b.scalar(code, 0, struct.Struct("<b"), 0, where)
        builtin = b.scalar(code, 3, _I32, 0, where)
        b.string(code, 1, where)
        effective = max(builtin, deprecated)
        if effective not in OPCODE_NAME:
            raise UnsupportedFeature(f"builtin operator code {effective}")
    return len(codes)


def _verify_graph(
    b: _Buffer, graph: Table, g: int, n_buffers: int, n_opcodes: int, tflite: bool
) -> int:
    tensors = b.tables(graph, 0, f"graph {g}: tensor")
    n = len(tensors)
    for i, t in enumerate(tensors):
        _verify_tensor(b, t, f"tensor {i} of graph {g}", n_buffers, tflite)
    for slot, what in ((1, "input"), (2, "output")):
        for k in b.ints(graph, slot, f"graph {g}: {what}s"):
            if not 0 <= k < n:
                raise InvalidModel(f"graph {g}: {what} tensor index {k} out of range")
    for i, op in enumerate(b.tables(graph, 3, f"graph {g}: operator")):
        _verify_operator(b, op, f"operator {i} of graph {g}", n, n_opcodes, tflite)
    b.string(graph, 4, f"graph {g}: name")
    return n


def _verify_tensor(b: _Buffer, t: Table, where: str, n_buffers: int, tflite: bool) -> None:
    shape = b.ints(t, 0, where)
    dtype = b.scalar(t, 1, struct.Struct("<b"), 0, where)
    if tflite and dtype in TFLITE_ONLY_TYPES:
        raise UnsupportedFeature(f"tensor type {TFLITE_ONLY_TYPES[dtype]}")
    if dtype not in TYPE_NAME:
        raise InvalidModel(f"{where}: unknown tensor type {dtype}")
    buffer = b.scalar(t, 2, _U32, 0, where)
    if buffer >= n_buffers:
        raise InvalidModel(f"{where}: buffer index {buffer} out of range")
    b.string(t, 3, where)
    quant = b.subtable(t, 4, where)
    if quant is not None:
        _verify_quantization(b, quant, where)
    sparsity = b.subtable(t, 6, where)
    if sparsity is not None:
        _verify_sparsity(b, sparsity, where)
    signature = b.ints(t, 7, where)
    if signature and len(signature) != len(shape):
        raise InvalidModel(f"{where}: shape_signature rank differs from shape rank")
    for variant in b.tables(t, 9, f"{where}: variant"):
        b.ints(variant, 0, where)
    if t.field(10):
        if tflite:
            raise UnsupportedFeature("external buffers")
        if b.scalar(t, 10, _U8, 0, where):
            raise UnsupportedFeature("tensor compression")


def _verify_quantization(b: _Buffer, q: Table, where: str) -> None:
    for slot in (0, 1, 2):
        b.vector(q, slot, 4, where)
    b.vector(q, 3, 8, where)
    if b.scalar(q, 4, _U8, 0, where):
        raise UnsupportedFeature("quantization details")
    b.scalar(q, 6, _I32, 0, where)


def _verify_sparsity(b: _Buffer, s: Table, where: str) -> None:
    b.ints(s, 0, where)
    b.ints(s, 1, where)
    for dim in b.tables(s, 2, f"{where}: dim_metadata"):
        for type_slot, value_slot in ((2, 3), (4, 5)):
            kind = b.scalar(dim, type_slot, _U8, 0, where)
            vec = b.subtable(dim, value_slot, where)
            if kind and vec is None:
                raise InvalidModel(f"{where}: sparse index vector missing")
            if vec is not None:
                elem = {1: 4, 2: 2, 3: 1}.get(kind)
                if elem is None:
                    raise InvalidModel(f"{where}: unknown sparse index vector type {kind}")
                b.vector(vec, 0, elem, where)


def _verify_operator(
    b: _Buffer, op: Table, where: str, n_tensors: int, n_opcodes: int, tflite: bool
) -> None:
    opcode_index = b.scalar(op, 0, _U32, 0, where)
    if opcode_index >= n_opcodes:
        raise InvalidModel(f"{where}: opcode index {opcode_index} out of range")
    for k in b.ints(op, 1, where):
        if not -1 <= k < n_tensors:
            raise InvalidModel(f"{where}: input tensor index {k} out of range")
    for slot, what in ((2, "output"), (8, "intermediate")):
        for k in b.ints(op, slot, where):
            if not 0 <= k < n_tensors:
                raise InvalidModel(f"{where}: {what} tensor index {k} out of range")
    kind = b.scalar(op, 3, _U8, 0, where)
    options = b.subtable(op, 4, where)
    if kind and options_name(kind) is None:
        raise InvalidModel(f"{where}: unknown builtin options type {kind}")
    if options is not None and not kind:
        raise InvalidModel(f"{where}: builtin options without a type")
    fc_options = options is not None and options_name(kind) == "FullyConnectedOptions"
    if tflite and fc_options and options.field(5):  # type: ignore[union-attr]
        raise UnsupportedFeature("FullyConnectedOptions.quant_spec")
    b.vector(op, 5, 1, where)
    b.vector(op, 7, 1, where)
    large_offset = b.scalar(op, 9, _U64, 0, where)
    large_size = b.scalar(op, 10, _U64, 0, where)
    if large_offset > 1 and large_offset + large_size > b.n:
        raise InvalidModel(f"{where}: custom options point outside the file")
    if b.scalar(op, 11, _U8, 0, where) and b.subtable(op, 12, where) is None:
        raise InvalidModel(f"{where}: builtin options 2 missing")


def _verify_signature(b: _Buffer, sig: Table, i: int, tensor_counts: list[int]) -> None:
    where = f"signature def {i}"
    graph = b.scalar(sig, 4, _U32, 0, where)
    if graph >= len(tensor_counts):
        raise InvalidModel(f"{where}: subgraph index {graph} out of range")
    b.string(sig, 2, where)
    for slot in (0, 1):
        for m in b.tables(sig, slot, where):
            b.string(m, 0, where)
            index = b.scalar(m, 1, _U32, 0, where)
            if index >= tensor_counts[graph]:
                raise InvalidModel(f"{where}: tensor index {index} out of range")
