"""Loading a TFLite or circle file into the in-memory :class:`~one_cmds.ir.Model`.

The format is decided by the file identifier, never the extension. Weights stay read-only
views into the mapped file. Origins and the source md5 are stamped as
circle-format-and-metadata.md §8 and §12 say.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
from circle_schema.v0_10.circle.Model import ModelT

from ..errors import ModelFileError
from ..interp.ggml_blocks import BLOCK, BLOCK_BYTES, ggml_size
from ..ir import Buffer, Graph, MetadataEntry, Model, Operator, QuantParam, SignatureDef, Tensor
from ..ir.schema import OPCODE_NAME, TYPE_NAME
from . import metadata as md
from .files import open_model_bytes, source_md5
from .verify import InvalidModel, UnsupportedFeature, verify_model

TFLITE_IDENTIFIER = b"TFL3"
CIRCLE_IDENTIFIER = b"CIR0"

Warn = Callable[[str], None]

# Metadata names interpreted by this project (everything else is kept verbatim).
_ONE_NAMES = (md.SOURCE_TABLE, md.OP_TABLE, md.EXECUTION_PLAN_TABLE, md.SOURCE_MD5)
BUFFER_LOCATION = "buffer_location"


def is_onnx(path: str) -> bool:
    """Whether ``path`` is read as an ONNX model: ONNX files carry no identifier, so a file
    named ``*.onnx`` without the TFLite or circle identifier (or one that cannot be read: the
    ONNX importer then says why)."""
    if not path.lower().endswith(".onnx"):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return True
    return head[4:8] not in (TFLITE_IDENTIFIER, CIRCLE_IDENTIFIER)


def load(path: str, warn: Warn | None = None) -> Model:
    """Read a model file; raise :class:`ModelFileError` with the spec's messages."""
    return load_bytes(open_model_bytes(path), path, warn)


def load_bytes(data: memoryview | bytes, path: str, warn: Warn | None = None) -> Model:
    """Read a model held in memory (a converter's result, or a mapped file); ``path`` names
    it in messages and becomes the model's ``source_path``."""
    ident = bytes(data[4:8]) if len(data) >= 8 else b""
    if ident not in (TFLITE_IDENTIFIER, CIRCLE_IDENTIFIER):
        raise ModelFileError(f"Invalid input file: {path} (not a TFLite or circle model)")
    try:
        verify_model(data, tflite=ident == TFLITE_IDENTIFIER)
        tree = ModelT.InitFromPackedBuf(data, 0)
    except InvalidModel as e:
        raise ModelFileError(f"Invalid input file: {path} ({e})") from None
    except UnsupportedFeature as e:
        raise ModelFileError(f"Invalid input file: {path} ({e} is not supported)") from None
    except (ValueError, IndexError, TypeError) as e:  # malformed options tables
        raise ModelFileError(f"Invalid input file: {path} (malformed table: {e})") from None
    try:
        model = _Converter(tree, data).model()
        _stamp(model, data, warn or _no_warning)
    except (InvalidModel, md.MetadataDecodeError) as e:
        raise ModelFileError(f"Invalid input file: {path} ({e})") from None
    model.source_path = path
    return model


def _no_warning(message: str) -> None:
    return None


class _Converter:
    """Turns the unpacked object tree into the in-memory model."""

    def __init__(self, tree: ModelT, data: memoryview | bytes) -> None:
        self.tree = tree
        self.data = data
        self.buffers = [self._buffer(i, b) for i, b in enumerate(tree.buffers or [])]
        self.readers = Counter(t.buffer for g in tree.subgraphs or [] for t in g.tensors or [])

    def _buffer(self, index: int, b: Any) -> Buffer | None:
        if index == 0:
            return None
        if b.offset > 1:
            return Buffer(np.frombuffer(self.data, np.uint8, b.size, b.offset) if b.size else None)
        data = b.data
        return Buffer(data if data is not None and len(data) else None)

    def model(self) -> Model:
        tree = self.tree
        codes = [_opcode(c) for c in tree.operatorCodes or []]
        graphs = [self._graph(g, codes) for g in tree.subgraphs]
        self._check_subgraph_references(graphs)
        self._check_blocks(graphs)
        model = Model(
            graphs=graphs,
            description=_text(tree.description),
            operator_codes=list(dict.fromkeys(codes)),
        )
        model.signature_defs = [self._signature(s, graphs) for s in tree.signatureDefs or []]
        model.metadata = [
            MetadataEntry(_text(m.name) or "", self.buffers[m.buffer] or Buffer())
            for m in tree.metadata or []
        ]
        used = {id(t.buffer) for g in graphs for t in g.tensors}
        used.update(id(m.buffer) for m in model.metadata)
        model.spare_buffers = [b for b in self.buffers if b is not None and id(b) not in used]
        return model

    def _graph(self, g: Any, codes: list[tuple[str, str | None, int]]) -> Graph:
        tensors = [self._tensor(t) for t in g.tensors or []]
        operators = [self._operator(op, codes, tensors) for op in g.operators or []]
        graph = Graph(
            name=_text(g.name) or "",
            inputs=[tensors[i] for i in _indices(g.inputs)],
            outputs=[tensors[i] for i in _indices(g.outputs)],
            operators=operators,
            tensors=tensors,
        )
        self._empty_constants(graph, [t.buffer for t in g.tensors or []])
        return graph

    def _empty_constants(self, graph: Graph, indices: list[int]) -> None:
        """Zero-element tensors that no operator writes and that are neither graph inputs
        nor variables are constants: their value, the empty array, is known, and an empty
        buffer is all a file can hold for them (luci's importer reads them so too). A reshape
        to a scalar keeps its constant target shape through a file."""
        made = {id(t) for op in graph.operators for t in op.outputs}
        made.update(id(t) for t in graph.inputs)
        for t, index in zip(graph.tensors, indices, strict=True):
            if t.is_constant or t.is_variable or id(t) in made:
                continue
            if not t.is_static or 0 not in t.shape:
                continue
            empty = np.empty(0, np.uint8)
            empty.flags.writeable = False
            if t.buffer is not None and self.readers[index] == 1:
                t.buffer.raw = empty  # its own buffer: it keeps its place in the file
            else:
                t.buffer = Buffer(empty)

    def _tensor(self, t: Any) -> Tensor:
        shape = _indices(t.shape)
        signature = _indices(t.shapeSignature)
        dims = tuple(None if signature and signature[r] == -1 else d for r, d in enumerate(shape))
        q = t.quantization
        quant = None
        if q is not None:
            quant = QuantParam(
                scale=q.scale,
                zero_point=q.zeroPoint,
                min=q.min,
                max=q.max,
                quantized_dimension=q.quantizedDimension,
            )
        return Tensor(
            _text(t.name) or "",
            TYPE_NAME[t.type],
            dims,
            buffer=self.buffers[t.buffer],
            quant=quant,
            is_variable=bool(t.isVariable),
            sparsity=t.sparsity,
            has_rank=bool(t.hasRank),
            variant_tensors=t.variantTensors,
        )

    def _operator(
        self, op: Any, codes: list[tuple[str, str | None, int]], tensors: list[Tensor]
    ) -> Operator:
        opcode, custom_code, version = codes[op.opcodeIndex]
        custom = op.customOptions
        if op.largeCustomOptionsOffset > 1:
            start, size = op.largeCustomOptionsOffset, op.largeCustomOptionsSize
            custom = np.frombuffer(self.data, np.uint8, size, start)
        mutating = op.mutatingVariableInputs
        return Operator(
            opcode,
            [tensors[i] if i >= 0 else None for i in _indices(op.inputs)],
            [tensors[i] for i in _indices(op.outputs)],
            op.builtinOptions,
            custom_code=custom_code,
            custom_options=None if custom is None else bytes(custom),
            custom_options_format=op.customOptionsFormat,
            version=version,
            options2=op.builtinOptions2,
            intermediates=[tensors[i] for i in _indices(op.intermediates)],
            mutating_variable_inputs=None if mutating is None else [bool(v) for v in mutating],
        )

    def _signature(self, s: Any, graphs: list[Graph]) -> SignatureDef:
        tensors = graphs[s.subgraphIndex].tensors
        return SignatureDef(
            key=_text(s.signatureKey),
            graph_index=s.subgraphIndex,
            inputs=[(_text(m.name) or "", tensors[m.tensorIndex]) for m in s.inputs or []],
            outputs=[(_text(m.name) or "", tensors[m.tensorIndex]) for m in s.outputs or []],
        )

    @staticmethod
    def _check_subgraph_references(graphs: list[Graph]) -> None:
        for g, graph in enumerate(graphs):
            for i, op in enumerate(graph.operators):
                for field in SUBGRAPH_FIELDS:
                    index = getattr(op.options, field, None)
                    if index is None:
                        index = getattr(op.options2, field, None)
                    if index is not None and not 0 <= index < len(graphs):
                        raise InvalidModel(
                            f"operator {i} of graph {g}: subgraph index {index} out of range"
                        )

    @staticmethod
    def _check_blocks(graphs: list[Graph]) -> None:
        """GGML_Q4_0 / GGML_Q8_0 tensors: rows of whole blocks and the buffer their logical
        shape needs (quantization.md §22.3)."""
        for g, graph in enumerate(graphs):
            for t in graph.tensors:
                if t.dtype not in BLOCK_BYTES:
                    continue
                where = f"tensor {t.name} of graph {g}"
                last = t.shape[-1] if t.shape else 1
                if last is None or last % BLOCK:
                    dim = -1 if last is None else last
                    reason = f"last dimension {dim} is not a multiple of {BLOCK}"
                    raise InvalidModel(f"{where}: {reason}")
                if not t.is_static:
                    raise InvalidModel(f"{where}: a {t.dtype} tensor needs a static shape")
                expected = ggml_size(t.dtype, t.shape)  # type: ignore[arg-type]
                size = 0 if t.buffer is None else t.buffer.nbytes
                if size != expected:
                    raise InvalidModel(
                        f"{where}: {t.dtype} buffer has {size} bytes, expected {expected}"
                    )


SUBGRAPH_FIELDS = (
    "condSubgraphIndex",
    "bodySubgraphIndex",
    "thenSubgraphIndex",
    "elseSubgraphIndex",
    "initSubgraphIndex",
    "decompositionSubgraphIndex",
    "subgraph",
)


def _opcode(code: Any) -> tuple[str, str | None, int]:
    effective = max(code.builtinCode, code.deprecatedBuiltinCode)
    return OPCODE_NAME[effective], _text(code.customCode), code.version


def _indices(values: Any) -> list[int]:
    return [] if values is None else [int(v) for v in values]


def _text(value: bytes | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.decode("utf-8", errors="surrogateescape")


# -- origins and md5 (circle-format-and-metadata.md §8, §12) -------------------------------
def _stamp(model: Model, data: memoryview | bytes, warn: Warn) -> None:
    tables: dict[str, bytes] = {}
    kept: list[MetadataEntry] = []
    for entry in model.metadata:
        if entry.name in _ONE_NAMES:
            if entry.name in tables:
                raise md.MetadataDecodeError(entry.name, "duplicated metadata entry")
            tables[entry.name] = entry.buffer.tobytes()
        elif entry.name != BUFFER_LOCATION:
            kept.append(entry)
    model.metadata = kept
    if md.EXECUTION_PLAN_TABLE in tables:
        md.decode_execution_plan_table(tables[md.EXECUTION_PLAN_TABLE])
    sources = md.decode_source_table(tables[md.SOURCE_TABLE]) if md.SOURCE_TABLE in tables else {}
    ops = md.decode_op_table(tables[md.OP_TABLE]) if md.OP_TABLE in tables else {}
    main = model.graphs[0]
    if sources and ops:
        _restore_origins(main, sources, ops, warn)
        model.source_table = sources
    else:
        for name, table in ((md.SOURCE_TABLE, sources), (md.OP_TABLE, ops)):
            if table:
                warn(f"{name} ignored: ONE_source_table and ONE_op_table must both be present")
        for i, op in enumerate(main.operators):
            op.origin = frozenset({i})
        model.source_table = {
            i: op.outputs[0].name if op.outputs else "" for i, op in enumerate(main.operators)
        }
    if md.SOURCE_MD5 in tables:
        model.source_md5 = md.decode_md5(tables[md.SOURCE_MD5])
    else:
        model.defer_source_md5(lambda: source_md5(data))


def _restore_origins(
    main: Graph, sources: dict[int, str], ops: dict[int, frozenset[int]], warn: Warn
) -> None:
    n = len(main.operators)
    for index in sorted(ops):
        ids = ops[index]
        if index >= n:
            warn(f"ONE_op_table entry {index} ignored: graph 0 has {n} operators")
            continue
        for source_id in sorted(ids):
            if source_id not in sources:
                raise md.MetadataDecodeError(md.OP_TABLE, f"unknown source ID {source_id}")
        main.operators[index].origin = ids
