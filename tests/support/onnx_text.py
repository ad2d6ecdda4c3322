"""ONNX unit graphs written in ONNX's text syntax (``onnx.parser``), for converter tests.

In that syntax ``float[N,3] x`` has the symbolic dim ``N``, ``float x`` is a scalar and
``float[] y`` has an unknown shape (the form for outputs left to inference)::

    text_model("g (float[N,3] x) => (float[] y) { y = Reshape(x, t) }", 13, t=np.array([-1]))
"""

from __future__ import annotations

import numpy as np
import onnx
import onnx.parser
import pytest
from onnx import numpy_helper

from one_cmds.frontends.onnx import import_onnx
from one_cmds.frontends.onnx.errors import OnnxImportError


def text_model(graph: str, opset: int = 17, **initializers: np.ndarray) -> onnx.ModelProto:
    """A model of the default domain at ``opset`` with numpy initializers by name."""
    model = onnx.parser.parse_model(f'<ir_version: 10, opset_import: ["" : {opset}]>\n{graph}')
    model.graph.initializer.extend(
        numpy_helper.from_array(np.asarray(v), k) for k, v in initializers.items()
    )
    return model


def import_error(model: onnx.ModelProto, tmp_path) -> str:
    """The message of the OnnxImportError that importing ``model`` raises."""
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    with pytest.raises(OnnxImportError) as e:
        import_onnx(str(path))
    return str(e.value)


def opcodes(imported) -> list[str]:
    """The opcodes of an imported model's main graph, in order."""
    return [op.opcode for op in imported.main.operators]
