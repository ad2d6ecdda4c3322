"""The judge of the TensorFlow import (tf-and-pytorch-import.md §6.3), written with TensorFlow
alone: its own conversion of a fixture with the reference tool's API and settings
(``tf2tfliteV2.py``: ``from_frozen_graph`` for 1.x, ``wrap_frozen_graph`` and
``from_concrete_functions`` for 2.x, ``from_saved_model``, ``from_keras_model``), its own
execution of the source model, and what to compare in two TFLite files."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
tf = pytest.importorskip(
    "tensorflow", reason="TensorFlow is not installed: pip install 'one-cmds[tf]'"
)

from circle_schema.v0_10.circle.Model import ModelT  # noqa: E402

from one_cmds.ir.schema import OPCODE_NAME  # noqa: E402


@dataclass(frozen=True)
class Case:
    """A fixture and the ``[one-import-tf]`` options it is imported with."""

    file: str
    inputs: Sequence[str] = ()
    outputs: Sequence[str] = ()
    version: str = "v1"
    model_format: str = "graph_def"
    shapes: Sequence[Sequence[int]] = ()
    batch: int = 1  # the batch the judge runs a dynamic model with

    @property
    def args(self) -> list[str]:
        """The options on a ``one-import-tf`` command line."""
        given = [f"--{self.version}", f"--{self.model_format}"]
        if self.inputs:
            given += ["-I", ",".join(self.inputs), "-O", ",".join(self.outputs)]
        if self.shapes:
            given += ["-s", ":".join(",".join(map(str, s)) for s in self.shapes)]
        return given


def _settings(converter, version: str) -> bytes:
    converter.allow_custom_ops = True
    if version == "v2":
        converter.experimental_new_converter = True
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    return converter.convert()


def _read_graph_def(path: Path):
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(path.read_bytes())
    return graph_def


def _wrap_frozen_graph(graph_def, inputs, outputs):
    def _imports_graph_def():
        tf.compat.v1.import_graph_def(graph_def, name="")

    wrapped = tf.compat.v1.wrap_function(_imports_graph_def, [])
    graph = wrapped.graph
    return wrapped.prune(
        tf.nest.map_structure(graph.as_graph_element, inputs),
        tf.nest.map_structure(graph.as_graph_element, outputs),
    )


def tensorflow_conversion(folder: Path, case: Case) -> bytes:
    """TensorFlow's own conversion of ``case`` with the reference tool's calls."""
    path = folder / case.file
    if case.model_format == "saved_model":
        module = tf.lite if case.version == "v2" else tf.compat.v1.lite
        return _settings(module.TFLiteConverter.from_saved_model(str(path)), case.version)
    if case.model_format == "keras_model":
        model = tf.keras.models.load_model(path, compile=False)
        return _settings(tf.lite.TFLiteConverter.from_keras_model(model), "v2")
    if case.version == "v1":
        shapes = (
            dict(zip(case.inputs, map(list, case.shapes), strict=True)) if case.shapes else None
        )
        converter = tf.compat.v1.lite.TFLiteConverter.from_frozen_graph(
            str(path), list(case.inputs), list(case.outputs), shapes
        )
        return _settings(converter, "v1")
    function = _wrap_frozen_graph(
        _read_graph_def(path), [f"{n}:0" for n in case.inputs], [f"{n}:0" for n in case.outputs]
    )
    for tensor, shape in zip(function.inputs, case.shapes, strict=False):
        tensor.set_shape(shape)
    return _settings(tf.lite.TFLiteConverter.from_concrete_functions([function]), "v2")


def tensorflow_run(folder: Path, case: Case, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """TensorFlow's execution of the source model (outputs in the case's order)."""
    path = folder / case.file
    if case.model_format == "saved_model":
        serve = tf.saved_model.load(str(path)).signatures["serving_default"]
        names = [t.name.split(":")[0] for t in serve.inputs if t.dtype != tf.resource]
        results = serve(**{n: tf.constant(x) for n, x in zip(names, inputs, strict=True)})
        return [results[key].numpy() for key in sorted(results)]
    if case.model_format == "keras_model":
        return [tf.keras.models.load_model(path, compile=False)(*inputs).numpy()]
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(_read_graph_def(path), name="")
    with tf.compat.v1.Session(graph=graph) as session:
        feeds = {f"{n}:0": x for n, x in zip(case.inputs, inputs, strict=True)}
        return session.run([f"{n}:0" for n in case.outputs], feeds)


def structure(data: bytes) -> list[object]:
    """What the judge compares of a TFLite file: per subgraph its inputs and outputs, and per
    operator its code and the names, shapes and shape signatures of its tensors."""
    model = ModelT.InitFromPackedBuf(data, 0)
    codes = [OPCODE_NAME[max(c.builtinCode, c.deprecatedBuiltinCode)] for c in model.operatorCodes]

    def described(graph, indices) -> list[tuple]:
        tensors = [graph.tensors[i] for i in indices if i >= 0]
        return [(t.name, _dims(t.shape), _dims(t.shapeSignature)) for t in tensors]

    def operators(graph) -> list[tuple]:
        return [
            (codes[op.opcodeIndex], described(graph, op.inputs), described(graph, op.outputs))
            for op in graph.operators
        ]

    return [
        (described(g, g.inputs), described(g, g.outputs), operators(g)) for g in model.subgraphs
    ]


def _dims(values) -> list[int] | None:
    return None if values is None else [int(v) for v in values]


def judge_inputs(data: bytes, batch: int) -> list[np.ndarray]:
    """``default_rng(0)`` normal float32 inputs of the model's input shapes (an unknown
    dimension taken as ``batch``)."""
    model = ModelT.InitFromPackedBuf(data, 0)
    graph = model.subgraphs[0]
    rng = np.random.default_rng(0)
    inputs = []
    for i in graph.inputs:
        t = graph.tensors[i]
        signature = t.shapeSignature if t.shapeSignature is not None else t.shape
        shape = [batch if d == -1 else int(d) for d in signature]
        inputs.append(rng.standard_normal(shape).astype(np.float32))
    return inputs
