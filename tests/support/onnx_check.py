"""Judging ONNX imports (onnx-import.md §10): onnxruntime on the ONNX model against LiteRT on
the import written as ``.tflite``, same inputs.

``check(model_proto, tmp_path)`` saves the model, imports it (optionally resizing dynamic
inputs), writes the ``.tflite``, runs both and compares with ``|a-b| <= atol*max(1, max|b|) +
rtol*|b|`` (rtol = atol = 1e-4 unless given), exact for integers and booleans. On a mismatch
it re-runs LiteRT with its reference kernels and says which one failed. The project's
interpreter runs the written file too and must agree with onnxruntime the same way (issue 17:
everything the front end writes runs in the interpreter). Returns the imported model for
structural checks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import onnx
import onnxruntime as ort

import one_cmds
from one_cmds.frontends.onnx import OnnxOptions, import_onnx
from support.litert import DEFAULT, REFERENCE, run_tflite


def onnx_inputs(model: onnx.ModelProto, shapes: Sequence[Sequence[int]] | None = None):
    """Inputs from ``default_rng(0)``: floats in [-1, 1), ints in [0, 8), bools true; unknown
    dims are 2 unless ``shapes`` gives them."""
    rng = np.random.default_rng(0)
    initializers = {t.name for t in model.graph.initializer}
    infos = [i for i in model.graph.input if i.name not in initializers]
    out = []
    for k, info in enumerate(infos):
        tt = info.type.tensor_type
        if shapes is not None:
            shape = tuple(shapes[k])
        else:
            shape = tuple(d.dim_value if d.dim_value > 0 else 2 for d in tt.shape.dim)
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if dtype.kind == "f":
            out.append(rng.uniform(-1, 1, shape).astype(dtype))
        elif dtype == np.bool_:
            out.append(np.ones(shape, np.bool_))
        else:
            out.append(rng.integers(0, 8, shape).astype(dtype))
    return out


def run_onnxruntime(path: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs, strict=True)))


def close(expected: np.ndarray, got: np.ndarray, rtol: float, atol: float) -> bool:
    if expected.shape != got.shape:
        return False
    if expected.dtype.kind in "biu" or got.dtype.kind in "biu":
        return bool(np.array_equal(expected, got))
    b = expected.astype(np.float64)
    a = got.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    scale = max(1.0, float(np.nanmax(np.abs(b))) if b.size else 1.0)
    ok = np.abs(a - b) <= atol * scale + rtol * np.abs(b)
    return bool(np.all(ok | both_nan))


def check(
    model: onnx.ModelProto,
    tmp_path,
    *,
    inputs: Sequence[np.ndarray] | None = None,
    resize: str | None = None,
    options: OnnxOptions | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-4,
) -> one_cmds.Model:
    """Import ``model`` and compare LiteRT with onnxruntime (see the module docstring)."""
    onnx_path = os.path.join(str(tmp_path), "model.onnx")
    onnx.save(model, onnx_path)
    feeds = list(inputs) if inputs is not None else onnx_inputs(model)
    expected = run_onnxruntime(onnx_path, feeds)
    imported = import_onnx(onnx_path, options)
    runnable = imported
    if resize is None and any(None in t.shape for t in imported.main.inputs):
        resize = ",".join(f"[{','.join(str(d) for d in x.shape)}]" for x in feeds)
    if resize is not None:
        runnable = one_cmds.resize(imported, resize)
    tflite_path = os.path.join(str(tmp_path), "model.tflite")
    one_cmds.save(runnable, tflite_path)
    got = run_tflite(tflite_path, feeds, DEFAULT)
    assert len(got) == len(expected), f"{len(got)} outputs, onnxruntime gives {len(expected)}"
    for k, (e, g) in enumerate(zip(expected, got, strict=True)):
        if close(e, g, rtol, atol):
            continue
        reference = run_tflite(tflite_path, feeds, REFERENCE)[k]
        kernels = "also with" if not close(e, reference, rtol, atol) else "not with"
        worst = float(np.max(np.abs(e.astype(np.float64) - g))) if e.shape == g.shape else None
        raise AssertionError(
            f"output {k}: LiteRT {g.shape} differs from onnxruntime {e.shape} (max abs diff "
            f"{worst}); {kernels} LiteRT's reference kernels"
        )
    ours = one_cmds.Interpreter(one_cmds.load(tflite_path)).run(feeds)
    for k, (e, g) in enumerate(zip(expected, ours, strict=True)):
        assert close(e, g, rtol, atol), f"output {k}: the interpreter differs from onnxruntime"
    return imported


def check_lowered(model: onnx.ModelProto, tmp_path, **kwargs) -> one_cmds.Model:
    """:func:`check` with the layout pass, then without it; returns the import as the
    converters lowered it (operators as emitted, for structural assertions)."""
    check(model, tmp_path, **kwargs)
    lowered = OnnxOptions(disable_transpose_propagation=True)
    return check(model, tmp_path, options=lowered, **kwargs)
