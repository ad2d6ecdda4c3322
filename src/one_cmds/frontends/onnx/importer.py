"""The ONNX import pipeline (onnx-import.md §4): load, shapes and constants, support check
and lowering, layout pass, shape inference."""

from __future__ import annotations

from collections.abc import Callable

import onnx

from ...ir import Graph, Model, SignatureDef, Tensor
from ...shape import ShapeInferenceError, infer_shapes
from . import ops  # noqa: F401  (registers the converters)
from .errors import OnnxImportError
from .folding import gather_facts
from .io_shapes import apply_input_shapes, check_output_shapes
from .loader import OnnxSource, load_source
from .lowering import INSIDE, Lowering, lower_nodes
from .node import Node
from .options import OnnxOptions

# Graph I/O element types kept at the boundary (computed inside as INSIDE says, §7.2);
# bfloat16 ones are FLOAT32 (LiteRT has no bfloat16 tensors).
BOUNDARY = {
    onnx.TensorProto.FLOAT: "FLOAT32",
    onnx.TensorProto.FLOAT16: "FLOAT16",
    onnx.TensorProto.BFLOAT16: "FLOAT32",
    onnx.TensorProto.INT64: "INT64",
    onnx.TensorProto.INT32: "INT32",
    onnx.TensorProto.INT16: "INT16",
    onnx.TensorProto.INT8: "INT8",
    onnx.TensorProto.UINT8: "UINT8",
    onnx.TensorProto.BOOL: "BOOL",
}


def _ignore(message: str) -> None:
    return None


def import_onnx(
    path: str,
    options: OnnxOptions | None = None,
    *,
    warn: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> Model:
    """Import an ``.onnx`` file as a model (``note`` hears the ``-V`` listing)."""
    return import_source(load_source(path), options, warn=warn, note=note)


def import_source(
    source: OnnxSource,
    options: OnnxOptions | None = None,
    *,
    warn: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> Model:
    """Import a loaded ONNX model (:func:`.loader.load_source`, or a model made in memory by
    another front end and prepared by :func:`.loader.prepare_source`)."""
    path = source.path
    options = options or OnnxOptions()
    warn = warn or _ignore
    apply_input_shapes(source, options)
    facts = gather_facts(source)
    check_output_shapes(source, facts, options, warn)
    lo = Lowering(facts, path, warn, options)
    graph = source.model.graph
    inputs = _graph_inputs(lo, graph, path)
    nodes = [Node(graph.node[k], k, _opset_of(source, graph.node[k])) for k in source.order]
    failures = lower_nodes(lo, nodes, [o.name for o in graph.output])
    if failures:
        raise OnnxImportError(
            f"Unsupported ONNX operators ({len(failures)}): {'; '.join(failures)}"
        )
    outputs = _graph_outputs(lo, graph, path, inputs)
    model = Model(
        [Graph("main", inputs, outputs, lo.operators)],
        source_md5=source.md5,
        source_table={k: Node(n, k, source.opset).source_name for k, n in enumerate(graph.node)},
        signature_defs=[
            SignatureDef(
                "serving_default",
                0,
                [(t.name, t) for t in inputs],
                [(t.name, t) for t in outputs],
            )
        ],
    )
    model.source_path = path
    from .layout import arrange_layout

    report = arrange_layout(model, options)
    try:
        infer_shapes(model)
    except ShapeInferenceError as e:
        raise OnnxImportError(f"Invalid input file: {path} (after lowering: {e})") from None
    if note is not None:
        _listing(note, nodes, lo, model, report, not options.disable_transpose_propagation)
    return model


def _opset_of(source, node: onnx.NodeProto) -> int:
    """The opset version the model imports for the node's domain."""
    if node.domain in ("", "ai.onnx"):
        return source.opset
    versions = {o.domain: o.version for o in source.model.opset_import}
    return versions.get(node.domain, 1)


def _boundary(lo: Lowering, elem: int, what: str) -> str:
    """The IR dtype of a graph input or output of ONNX type ``elem`` (the §3 error if none)."""
    dtype = BOUNDARY.get(elem)
    if dtype is None:
        name = onnx.TensorProto.DataType.Name(elem)
        raise OnnxImportError(f"Unsupported data type: {name} ({what})")
    if elem == onnx.TensorProto.BFLOAT16:
        lo.warn(f"{what} is bfloat16: written as FLOAT32 (LiteRT has no bfloat16 tensors)")
    return dtype


def _graph_inputs(lo: Lowering, graph: onnx.GraphProto, path: str) -> list[Tensor]:
    """Non-initializer graph inputs in ONNX order; INT64 and FLOAT16 ones converted inside."""
    initializers = {t.name for t in graph.initializer}
    inputs = []
    for info in graph.input:
        if info.name in initializers:
            continue
        elem = info.type.tensor_type.elem_type
        dtype = _boundary(lo, elem, f"graph input '{info.name}'")
        tensor = Tensor(lo.unique(info.name), dtype, lo.shape(info.name) or ())
        inputs.append(tensor)
        inside = INSIDE[elem]
        if inside != dtype:
            cast = lo.emit(
                "CAST", [tensor], name=lo.unique(f"{info.name}_{inside.lower()}"), dtype=inside
            )
            lo.hold(info.name, cast)
        else:
            lo.hold(info.name, tensor)
    return inputs


def _graph_outputs(
    lo: Lowering, graph: onnx.GraphProto, path: str, inputs: list[Tensor]
) -> list[Tensor]:
    """Graph outputs in ONNX order with ONNX names; an output that is an input, a constant or
    another output gets a same-shape RESHAPE, INT64/FLOAT16 ones a boundary CAST."""
    outputs: list[Tensor] = []
    for info in graph.output:
        elem = info.type.tensor_type.elem_type
        dtype = _boundary(lo, elem, f"graph output '{info.name}'")
        tensor = lo.value(info.name)
        if tensor.dtype != dtype:
            tensor = lo.emit("CAST", [tensor], name=lo.unique(f"{info.name}_out"), dtype=dtype)
        elif tensor.is_constant or tensor in inputs or tensor in outputs:
            shape = lo.shape(info.name)
            if shape is None or None in shape:
                shape_of = lo.emit("SHAPE", [tensor], new_shape_options(), dtype="INT32")
                tensor = lo.emit("RESHAPE", [tensor, shape_of], dtype=tensor.dtype)
            else:
                target = lo.constant([int(d) for d in shape], f"{info.name}/shape", "INT32")
                tensor = lo.emit("RESHAPE", [tensor, target], dtype=tensor.dtype)
        tensor.name = info.name
        outputs.append(tensor)
    return outputs


def new_shape_options():
    from ...ir.schema import new_options

    return new_options("ShapeOptions", outType=2)  # INT32


def _listing(note, nodes, lo, model, report, reasons: bool) -> None:
    """The ``-V`` lines: each node and the operators it became, then the transpose counts
    and (``reasons``: the layout pass ran) why each TRANSPOSE inside is kept."""
    by_origin: dict[int, list[str]] = {}
    for op in model.main.operators:
        for k in op.origin:
            by_origin.setdefault(k, []).append(op.opcode)
    for node in nodes:
        made = by_origin.get(node.index)
        target = ", ".join(made) if made else "(folded)"
        note(f"{node.source_name} ({node.op_type}) -> {target}")
    note(report)
    if not reasons:
        return
    from .layout import kept_transposes

    for line in kept_transposes(model.main, {node.index: node.op_type for node in nodes}):
        note(line)
