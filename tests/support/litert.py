"""Running models in LiteRT, the reference runtime of the tests."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

import one_cmds

# LiteRT's op resolvers: the default (XNNPACK delegate), its builtin kernels without the
# delegate (XNNPACK reads a strided-slice end of 0 as "to the end", cannot run DENSIFY, sums in
# another order), and the reference kernels (round-half-away QUANTIZE, plain fixed point).
DEFAULT = OpResolverType.AUTO
BUILTIN = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
REFERENCE = OpResolverType.BUILTIN_REF


def run_tflite(
    path: str, inputs: Sequence[np.ndarray], resolver: OpResolverType = DEFAULT
) -> list[np.ndarray]:
    """Run a ``.tflite`` file in LiteRT (one thread) and return its outputs in order."""
    interpreter = Interpreter(
        model_path=path, num_threads=1, experimental_op_resolver_type=resolver
    )
    details = interpreter.get_input_details()
    for d, value in zip(details, inputs, strict=True):
        if tuple(d["shape"]) != value.shape:
            interpreter.resize_tensor_input(d["index"], value.shape, strict=False)
    interpreter.allocate_tensors()
    for d, value in zip(details, inputs, strict=True):
        interpreter.set_tensor(d["index"], value.astype(d["dtype"], copy=False))
    interpreter.invoke()
    return [interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()]


def run_model(
    model: one_cmds.Model, inputs: Sequence[np.ndarray], resolver: OpResolverType = DEFAULT
) -> list[np.ndarray]:
    """Run an in-memory model in LiteRT by writing it as ``.tflite`` (TFL3) to a temp file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.tflite")
        one_cmds.save(model, path)
        return run_tflite(path, inputs, resolver)


def random_inputs(model: one_cmds.Model, seed: int = 0) -> list[np.ndarray]:
    """Deterministic inputs for every graph input (dynamic dims taken as 1)."""
    rng = np.random.default_rng(seed)
    out = []
    for t in model.main.inputs:
        shape = tuple(1 if d is None else d for d in t.shape)
        if t.dtype.startswith("FLOAT"):
            out.append(rng.standard_normal(shape).astype(np.float32))
        elif t.dtype == "INT8":
            out.append(rng.integers(-128, 128, shape).astype(np.int8))
        elif t.dtype == "UINT8":
            out.append(rng.integers(0, 256, shape).astype(np.uint8))
        else:
            out.append(rng.integers(0, 10, shape).astype(one_cmds.ir.numpy_dtype(t.dtype)))
    return out
