"""Writing a model file whose weights are streamed from where they live.

The flatbuffer part is packed in memory without the weights; each weight is then written
straight into the output: an unchanged weight of a mapped source file is copied file to
file, a new one from its array. No step holds a second copy of the weights.

Inline files (the usual case, circle-format-and-metadata.md §5.3) must have exactly the
bytes the bindings' ``Pack`` gives, with every weight inside the flatbuffer. They are packed
with each weight's bytes cut down to ``size mod 16`` (a *hole*): every object then sits at
its final position minus the sizes cut from the holes before it, and since only multiples
of 16 were cut, every alignment padding is the one of the full file. The few offsets that
span a hole — from the model table, the buffer, metadata and signature tables and vectors,
which the bindings pack after the weights — are corrected, hole lengths restored, and the
weights poured into the holes while the file is written.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Iterable

import flatbuffers

from ..ir import Buffer
from .files import Output, file_span

_U16 = struct.Struct("<H")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_CUT = 16  # holes keep their size modulo this; the largest alignment in the schema is 8

# Offset field slots (schema order) of the tables packed after the weights: Model (operator
# codes, subgraphs, description, buffers, metadata buffer, metadata, signature defs), the
# name of Metadata and TensorMap, the data of Buffer, SignatureDef (inputs, outputs, key).
_MODEL_SLOTS = (1, 2, 3, 4, 5, 6, 7)
_BUFFERS, _METADATA, _SIGNATURES = 4, 6, 7
_SIGNATURE_MAPS = (0, 1)
_SIGNATURE_SLOTS = (0, 1, 2)


def write_buffer(output: Output, buffer: Buffer) -> None:
    """Append the bytes of ``buffer``: file to file when they are a view of a mapped source."""
    raw = buffer.raw
    if raw is None:
        return
    span = file_span(raw)
    if span is None:
        output.write(memoryview(raw))
    else:
        output.copy_from(span[0], span[1], raw.nbytes)


class Hole:
    """A ``Buffer`` table packed with its bytes cut down to ``size mod 16`` zero bytes."""

    __slots__ = ("buffer", "end_offset", "kept")

    def __init__(self, buffer: Buffer) -> None:
        self.buffer = buffer
        self.kept = buffer.nbytes % _CUT
        self.end_offset = 0  # where the bytes start, counted from the end of the flatbuffer

    def Pack(self, builder: flatbuffers.Builder) -> int:
        builder.StartVector(1, self.kept, 1)
        builder.head = builder.head - self.kept  # fresh builder bytes are zero
        self.end_offset = builder.Offset()
        builder.vectorNumElems = self.kept
        data = builder.EndVector()
        builder.StartObject(3)
        builder.PrependUOffsetTRelativeSlot(0, data, 0)
        return builder.EndObject()


class InlineFile:
    """An inline model file: the flatbuffer packed with holes, corrected to the full file."""

    def __init__(self, packed: memoryview, holes: Iterable[Hole]) -> None:
        self.packed = bytes(packed)  # read from: the positions and offsets as packed
        self.flat = bytearray(self.packed)  # written to: the corrected bytes
        n = len(self.packed)
        self.holes = sorted(
            ((n - h.end_offset, h) for h in holes if h.buffer.nbytes), key=lambda p: p[0]
        )
        self.starts = [start for start, _ in self.holes]
        self.grown = [0]
        for _, h in self.holes:
            self.grown.append(self.grown[-1] + h.buffer.nbytes - h.kept)
        self.size = n + self.grown[-1]
        self.positions: dict[int, int] = {}  # where each buffer's bytes were written, by id

    def write(self, output: Output) -> None:
        """Write the full file (its ``size`` must fit the flatbuffer offsets)."""
        self._correct()
        at = 0
        for start, hole in self.holes:
            output.write(memoryview(self.flat)[at:start])
            self.positions[id(hole.buffer)] = output.position
            write_buffer(output, hole.buffer)
            at = start + hole.kept
        output.write(memoryview(self.flat)[at:])

    # -- corrections ----------------------------------------------------------------------
    def _grown_between(self, low: int, high: int) -> int:
        """The bytes gained in the full file between packed positions ``low`` and ``high``:
        by the holes starting after ``low`` and up to ``high`` (an object starting where an
        emptied hole starts comes after the hole's bytes)."""
        after_low = bisect.bisect_right(self.starts, low)
        return self.grown[bisect.bisect_right(self.starts, high)] - self.grown[after_low]

    def _offset(self, pos: int) -> int:
        """Correct the uoffset at ``pos``; return its target (packed position)."""
        value = _U32.unpack_from(self.packed, pos)[0]
        target = pos + value
        _U32.pack_into(self.flat, pos, value + self._grown_between(pos, target))
        return target

    def _table(self, pos: int) -> int:
        """Correct the vtable soffset of the table at ``pos``; return its vtable position."""
        value = _I32.unpack_from(self.packed, pos)[0]
        vtable = pos - value
        if vtable > pos:
            value -= self._grown_between(pos, vtable)
        else:
            value += self._grown_between(vtable, pos)
        _I32.pack_into(self.flat, pos, value)
        return vtable

    def _field(self, table: int, vtable: int, slot: int) -> int | None:
        """The position of a table field, None when absent."""
        size = _U16.unpack_from(self.packed, vtable)[0]
        at = vtable + 4 + 2 * slot
        off = _U16.unpack_from(self.packed, at)[0] if at + 2 <= vtable + size else 0
        return table + off if off else None

    def _elements_of(self, targets: dict[int, int], slot: int) -> list[int]:
        """The positions of the elements of the vector field ``slot`` (none when absent)."""
        if slot not in targets:
            return []
        vector = targets[slot]
        count = _U32.unpack_from(self.packed, vector)[0]
        return [vector + 4 + 4 * i for i in range(count)]

    def _table_offsets(self, pos: int, slots: Iterable[int]) -> dict[int, int]:
        """Correct the table an offset at ``pos`` leads to and its offset fields in ``slots``;
        return the fields' targets by slot."""
        table = self._offset(pos)
        vtable = self._table(table)
        targets = {}
        for slot in slots:
            field = self._field(table, vtable, slot)
            if field is not None:
                targets[slot] = self._offset(field)
        return targets

    def _correct(self) -> None:
        model = self._table_offsets(0, _MODEL_SLOTS)
        hole_at = {start - 4: hole for start, hole in self.holes}  # vector length fields
        for element in self._elements_of(model, _BUFFERS):
            data = self._table_offsets(element, [0]).get(0)
            if data in hole_at:
                _U32.pack_into(self.flat, data, hole_at[data].buffer.nbytes)
        for element in self._elements_of(model, _METADATA):
            self._table_offsets(element, [0])
        for element in self._elements_of(model, _SIGNATURES):
            signature = self._table_offsets(element, _SIGNATURE_SLOTS)
            for slot in _SIGNATURE_MAPS:
                for entry in self._elements_of(signature, slot):
                    self._table_offsets(entry, [0])


class ExternalFile:
    """A model file with its weights after the flatbuffer at the given offsets."""

    def __init__(self, flat: memoryview, placed: list[tuple[int, Buffer]], end: int) -> None:
        self.flat = flat
        self.placed = placed
        self.end = end
        self.positions = {id(buffer): offset for offset, buffer in placed}

    def write(self, output: Output) -> None:
        output.write(self.flat)
        for offset, buffer in self.placed:
            output.pad_to(offset)
            write_buffer(output, buffer)
        output.pad_to(self.end)
