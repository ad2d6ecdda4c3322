"""Issue 22: the ONNX layout rule (onnx-import.md §5.5) on the corpus's ONNX models, shared by
``test_onnx_layout.py`` and ``benchmarks/onnx_layout.py``.

Each model is imported twice: ``onnx`` (I/O keep the ONNX shapes) and ``nhwc`` (both
``nchw_to_nhwc`` options). Per import: the TRANSPOSEs left (those at the graph's inputs and
outputs apart), and the worst difference of LiteRT running the written ``.tflite`` from
onnxruntime running the ONNX file on the corpus's seeded test records, relative to the
output's largest magnitude (at least 1).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import one_cmds
from one_cmds.config.shapes import parse_named_shapes
from one_cmds.frontends.onnx import OnnxOptions, import_onnx
from one_cmds.frontends.onnx.ops.common import CHANNELS_FIRST, CHANNELS_LAST
from one_cmds.ir.shape_list import NamedShapeList

from .download import Entry, model_path, select
from .records import make_records
from .run import litert_run

LAYOUTS = {
    "onnx": {},
    "nhwc": {"nchw_to_nhwc_input_shape": True, "nchw_to_nhwc_output_shape": True},
}
RECORDS = 2


def onnx_entries() -> list[Entry]:
    """Every ONNX model of the manifest (large ones too: an import is cheap), or those of
    ``ONE_CMDS_CORPUS_MODELS``."""
    wanted = os.environ.get("ONE_CMDS_CORPUS_MODELS")
    return [e for e in select(wanted or None, include_large=True) if e.format == "onnx"]


@dataclass
class LayoutResult:
    transposes: int
    boundary: int
    worst: float  # max |LiteRT - onnxruntime| / max(1, max |onnxruntime|) over outputs
    output_shapes: list[tuple]


def shapes_text(entry: Entry) -> str:
    return ",".join("[" + ",".join(map(str, s["shape"])) + "]" for s in entry.inputs)


def import_entry(entry: Entry, layout: str) -> one_cmds.Model:
    text = shapes_text(entry)
    shapes = NamedShapeList(parse_named_shapes(text), text)
    return import_onnx(str(model_path(entry)), OnnxOptions(input_shapes=shapes, **LAYOUTS[layout]))


def count(model: one_cmds.Model) -> tuple[int, int]:
    """(TRANSPOSEs, those reading a graph input or writing a graph output)."""
    graph = model.main
    ends = {id(t) for t in (*graph.inputs, *graph.outputs)}
    left = [op for op in graph.operators if op.opcode == "TRANSPOSE"]
    return len(left), sum(id(op.inputs[0]) in ends or id(op.outputs[0]) in ends for op in left)


def records(entry: Entry) -> list[list[np.ndarray]]:
    dtypes = [np.dtype(np.int64 if s["dist"] == "tokens" else np.float32) for s in entry.inputs]
    return make_records(entry.id, entry.inputs, dtypes, "test", RECORDS)


def onnxruntime_outputs(entry: Entry, feeds: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(model_path(entry)), providers=["CPUExecutionProvider"])
    inputs = session.get_inputs()
    cast = [
        np.int64 if "int64" in i.type else np.int32 if "int32" in i.type else np.float32
        for i in inputs
    ]
    return [
        session.run(None, {i.name: v.astype(c) for i, v, c in zip(inputs, r, cast, strict=True)})
        for r in feeds
    ]


def to_onnx_layout(value: np.ndarray, channels_last: bool) -> np.ndarray:
    """An output of the ``nhwc`` import back in the ONNX model's layout."""
    return value.transpose(CHANNELS_FIRST[value.ndim]) if channels_last else value


def worst_difference(expected: list[list[np.ndarray]], got: list[list[np.ndarray]]) -> float:
    worst = 0.0
    for e_record, g_record in zip(expected, got, strict=True):
        for e, g in zip(e_record, g_record, strict=True):
            e64, g64 = np.asarray(e, np.float64), np.asarray(g, np.float64)
            if e64.shape != g64.shape:
                return float("inf")
            scale = max(1.0, float(np.max(np.abs(e64)))) if e64.size else 1.0
            worst = max(worst, float(np.max(np.abs(e64 - g64), initial=0.0)) / scale)
    return worst


def litert_inputs(model: one_cmds.Model, record: list[np.ndarray], layout: str) -> list[np.ndarray]:
    """``record`` (ONNX layout) as the import's inputs take it."""
    out = []
    for t, v in zip(model.main.inputs, record, strict=True):
        moved = layout == "nhwc" and v.ndim in CHANNELS_LAST and tuple(t.shape) != v.shape
        out.append(v.transpose(CHANNELS_LAST[v.ndim]) if moved else v)
    return out


def measure(
    entry: Entry,
    layout: str,
    workdir: Path,
    expected: list[list[np.ndarray]],
    optimize: str | None = None,
) -> LayoutResult:
    """Import ``entry`` in ``layout`` (then ``optimize`` it at that level, if given), count
    its TRANSPOSEs and judge it against ``expected`` (onnxruntime's outputs on
    :func:`records`)."""
    model = import_entry(entry, layout)
    if optimize is not None:
        model = one_cmds.optimize(model, optimize)
    total, boundary = count(model)
    path = workdir / f"{entry.id}.{layout}.tflite"
    one_cmds.save(model, str(path))
    feeds = [litert_inputs(model, r, layout) for r in records(entry)]
    got = litert_run(path, "default", feeds)
    onnx_shapes = [e.shape for e in expected[0]]
    back = [
        [
            to_onnx_layout(g, layout == "nhwc" and g.shape != s and g.ndim in CHANNELS_FIRST)
            for g, s in zip(r, onnx_shapes, strict=True)
        ]
        for r in got
    ]
    shapes = [tuple(t.shape) for t in model.main.outputs]
    return LayoutResult(total, boundary, worst_difference(expected, back), shapes)
