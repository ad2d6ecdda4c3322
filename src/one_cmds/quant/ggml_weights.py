"""LLM weights to GGML blocks (quantization.md §22): ``quantize_weights_chunk`` q4_0/q8_0.

Selection, operators in execution order, every graph: FULLY_CONNECTED input 1, and GATHER
input 0 when its indices are not a constant, when that operand is a float32 constant without
a qparam of at least ``skip_chunkquant_size`` elements (or a FLOAT16 one behind a DEQUANTIZE,
whose DEQUANTIZE goes when nothing else reads it). A weight that cannot be converted
stays float32 with ``WARNING: <tensor> not quantized to GGML_<T>: <reason>``. A constant
selected by several operators (a tied embedding) is converted once and shared; its other
readers keep the float32 original. INT64 indices of a converted GATHER become INT32: a graph
input is retyped, an operator output gets a ``CAST`` named ``<indices>_i32``.

The converted tensor has type ``GGML_Q4_0``/``GGML_Q8_0``, the logical float shape, no
quantization table; its bytes are the blocks of the codec (``interp.ggml_blocks``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..interp.ggml_blocks import BLOCK, BLOCK_BYTES, quantize_q4_0, quantize_q8_0
from ..ir import Buffer, Graph, Model, Operator, Tensor
from ..ir.schema import TYPE_BY_NAME, new_options
from .options import ChunkType
from .weight_chunks import row_chunks
from .weights_only import WeightSources

ENCODERS = {ChunkType.q4_0: quantize_q4_0, ChunkType.q8_0: quantize_q8_0}
# |d| = |m| / 8 (Q4_0) or max|x| / 127 (Q8_0) must stay below the float16 overflow.
SCALE_DIVISOR = {ChunkType.q4_0: 8, ChunkType.q8_0: 127}
FLOAT16_OVERFLOW = 65520.0
NOT_MULTIPLE = "last dimension {} is not a multiple of 32"
GATHER_SHAPE = "GATHER needs rank-2 params and axis 0"
OVERFLOW = "scale overflows float16"


def quantize_weights_chunk(
    model: Model, chunk: ChunkType, skip: int, warn: Callable[[str], None]
) -> int:
    """Convert the selected weights of every graph of ``model`` in place; how many were."""
    converted = 0
    for graph in model.graphs:
        conversion = _GraphConversion(graph, ChunkType(chunk), skip, warn)
        conversion.run()
        converted += sum(t is not None for t in conversion.converted.values())
    return converted


class _GraphConversion:
    """The conversion of one graph: converted constants (None: kept float32) and the INT32
    indices made so far, each shared by every reader."""

    def __init__(
        self, graph: Graph, chunk: ChunkType, skip: int, warn: Callable[[str], None]
    ) -> None:
        self.graph = graph
        self.chunk = chunk
        self.skip = skip
        self.warn = warn
        self.converted: dict[int, Tensor | None] = {}
        self.indices: dict[int, Tensor] = {}
        self.warned: set[tuple[int, str]] = set()
        self.casts: list[Operator] = []

    def run(self) -> None:
        sources = WeightSources(self.graph)
        for op in list(self.graph.operators):
            position = _selected_operand(op)
            weight = None if position is None else sources.of(op.inputs[position])
            if weight is None or weight.data.size < self.skip:  # type: ignore[union-attr]
                continue
            assert weight is not None and position is not None
            if op.opcode == "GATHER" and not _plain_gather(op, weight):
                self._refuse(weight, GATHER_SHAPE)
                continue
            converted = self._converted(weight)
            if converted is None:
                continue
            op.inputs[position] = converted
            if op.opcode == "GATHER" and op.inputs[1].dtype == "INT64":
                op.inputs[1] = self._int32(op.inputs[1])
        sources.drop_unread()
        if self.casts:
            self.graph.operators.extend(self.casts)
            self.graph.topological_sort()

    def _refuse(self, weight: Tensor, reason: str) -> None:
        """The warning of a weight kept float32, once per weight and reason."""
        if (id(weight), reason) not in self.warned:
            self.warned.add((id(weight), reason))
            self.warn(f"{weight.name} not quantized to {self.chunk.ggml_dtype}: {reason}")

    def _converted(self, weight: Tensor) -> Tensor | None:
        """The GGML tensor of ``weight`` (converted on first use), None when it stays float."""
        if id(weight) not in self.converted:
            self.converted[id(weight)] = self._convert(weight)
        return self.converted[id(weight)]

    def _convert(self, weight: Tensor) -> Tensor | None:
        depth = weight.shape[-1]
        if depth % BLOCK:
            self._refuse(weight, NOT_MULTIPLE.format(depth))
            return None
        blocks = self._blocks(weight)
        if blocks is None:
            self._refuse(weight, OVERFLOW)
        return blocks

    def _blocks(self, weight: Tensor) -> Tensor | None:
        """``weight`` as GGML blocks, read in row chunks; None when a scale overflows."""
        data = weight.data
        assert data is not None
        rows = data.reshape(-1, data.shape[-1])
        width = data.shape[-1] // BLOCK * BLOCK_BYTES[self.chunk.ggml_dtype]
        out = np.empty((rows.shape[0], width), np.uint8)
        encode, divisor = ENCODERS[self.chunk], np.float32(SCALE_DIVISOR[self.chunk])
        for span, part in row_chunks(rows):
            if part.size and np.abs(part).max() / divisor >= FLOAT16_OVERFLOW:
                return None
            out[span] = encode(part)
        return Tensor(
            weight.name, self.chunk.ggml_dtype, weight.shape, buffer=Buffer.from_array(out)
        )

    def _int32(self, indices: Tensor) -> Tensor:
        """INT32 indices for a converted GATHER: the graph input retyped, or a shared CAST."""
        if any(indices is t for t in self.graph.inputs):
            indices.dtype = "INT32"
            return indices
        if id(indices) not in self.indices:
            result = Tensor(f"{indices.name}_i32", "INT32", indices.shape)
            options = new_options(
                "CastOptions", inDataType=TYPE_BY_NAME["INT64"], outDataType=TYPE_BY_NAME["INT32"]
            )
            self.casts.append(Operator("CAST", [indices], [result], options))
            self.indices[id(indices)] = result
        return self.indices[id(indices)]


def _selected_operand(op: Operator) -> int | None:
    """FULLY_CONNECTED weights (row-major layout), GATHER params with non-constant indices."""
    if op.opcode == "FULLY_CONNECTED" and not getattr(op.options, "weightsFormat", 0):
        return 1
    if op.opcode == "GATHER" and len(op.inputs) > 1 and not op.inputs[1].is_constant:
        return 0
    return None


def _plain_gather(op: Operator, params: Tensor) -> bool:
    """Rank-2 params gathered along axis 0 (onert's only GGML Gather)."""
    return len(params.shape) == 2 and getattr(op.options, "axis", 0) in (0, -2)
