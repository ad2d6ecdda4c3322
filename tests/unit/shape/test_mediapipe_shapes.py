"""Shape rules of MediaPipe's custom operators: the sizes of their ``Prepare`` functions
(mediapipe/util/tflite/operations), unknown dimensions kept unknown, and agreement with the
interpreter's results."""

import struct

import numpy as np
import pytest
from flatbuffers import flexbuffers

from one_cmds.interp import Interpreter
from one_cmds.shape import infer_shapes
from one_cmds.shape.infer import ShapeInferenceError
from support.shape_helpers import infer_op, rand
from support.single_op import const, feeds, op_model

SAME, VALID = 1, 2


def pool(padding, fh, fw, sh, sw):
    """TfLitePoolParams: padding, stride_w, stride_h, filter_w, filter_h, activation."""
    return struct.pack("<6i", padding, sw, sh, fw, fh, 0)


def flex(attributes):
    return bytes(flexbuffers.Dumps(attributes))


CASES = [
    # (custom code, operands, options, version, expected output shapes)
    ("Convolution2DTransposeBias", [rand(1, 128, 128, 16), const(rand(1, 2, 2, 16)),
     const(rand(1))], struct.pack("<3i", SAME, 2, 2), 1, [(1, 256, 256, 1)]),
    ("Convolution2DTransposeBias", [rand(2, 5, 4, 3), const(rand(4, 3, 3, 3)), const(rand(4))],
     struct.pack("<3i", SAME, 2, 1), 1, [(2, 5, 8, 4)]),
    ("Convolution2DTransposeBias", [rand(1, 5, 4, 3), const(rand(4, 3, 2, 3)), const(rand(4))],
     struct.pack("<3i", VALID, 2, 3), 1, [(1, 15, 8, 4)]),
    ("MaxPoolingWithArgmax2D", [rand(1, 7, 9, 3)], pool(SAME, 2, 2, 2, 2), 1,
     [(1, 4, 5, 3)] * 2),
    ("MaxPoolingWithArgmax2D", [rand(1, 7, 9, 3)], pool(VALID, 3, 2, 2, 2), 1,
     [(1, 3, 4, 3)] * 2),
    ("MaxUnpooling2D", [rand(1, 3, 4, 2), rand(1, 3, 4, 2)], pool(SAME, 2, 3, 2, 2), 1,
     [(1, 6, 12, 2)]),
    ("Landmarks2TransformMatrix", [rand(1, 468, 3)], None, 2, [(1, 4, 4)]),
    ("Landmarks2TransformMatrix", [rand(3, 1, 1, 6)], None, 1, [(3, 4, 4)]),
    ("TransformLandmarks", [rand(1, 80, 2), rand(1, 4, 4)], None, 2, [(1, 80, 2)]),
    ("TransformLandmarks", [rand(1, 1, 1, 6), rand(1, 4, 4)], None, 1, [(1, 1, 1, 6)]),
    ("TransformTensorBilinear", [rand(1, 48, 48, 32), rand(1, 4, 4)],
     flex({"output_height": 16, "output_width": 12}), 2, [(1, 16, 12, 32)]),
    ("TransformTensor", [rand(2, 8, 8, 3), rand(2, 4, 4)],
     flex({"mode": "bilinear", "output_size": [5, 6]}), 1, [(2, 5, 6, 3)]),
]  # fmt: skip


@pytest.mark.parametrize(("code", "operands", "options", "version", "expected"), CASES)
def test_rule_gives_the_prepare_shape_and_the_kernel_agrees(
    code, operands, options, version, expected
):
    n = len(expected)
    model = op_model("CUSTOM", operands, custom_code=code, custom_options=options,
                     version=version, outputs=n)  # fmt: skip
    infer_shapes(model)
    assert [t.shape for t in model.main.outputs] == expected
    assert [t.dtype for t in model.main.outputs] == ["FLOAT32"] * n
    if code == "Landmarks2TransformMatrix":
        return  # its options name landmarks and a crop; the kernel tests check its shape
    got = Interpreter(model).run(feeds(operands))
    assert [g.shape for g in got] == expected


def test_unknown_dimensions_stay_unknown():
    conv = infer_op(
        "CUSTOM", [rand(1, 4, 4, 2), const(rand(3, 2, 2, 2)), const(rand(3))],
        custom_code="Convolution2DTransposeBias", custom_options=struct.pack("<3i", SAME, 2, 2),
        shapes=[(None, None, 4, 2)],
    )  # fmt: skip
    assert conv == [((None, None, 8, 3), "FLOAT32")]
    pooled = infer_op(
        "CUSTOM", [rand(1, 4, 4, 2)], custom_code="MaxPoolingWithArgmax2D",
        custom_options=pool(SAME, 2, 2, 2, 2), outputs=2, shapes=[(None, 4, None, 2)],
    )  # fmt: skip
    assert [s for s, _ in pooled] == [(None, 2, None, 2)] * 2


def test_bad_options_name_the_operator():
    with pytest.raises(ShapeInferenceError, match=r"CUSTOM\(MaxUnpooling2D\).*int32 fields"):
        infer_op("CUSTOM", [rand(1, 2, 2, 1), rand(1, 2, 2, 1)], custom_code="MaxUnpooling2D",
                 custom_options=b"\x01")  # fmt: skip
    with pytest.raises(ShapeInferenceError, match="neither SAME"):
        infer_op("CUSTOM", [rand(1, 2, 2, 1)], custom_code="MaxPoolingWithArgmax2D",
                 custom_options=pool(0, 2, 2, 2, 2), outputs=2)  # fmt: skip


def test_batch_follows_the_input_for_stacked_records():
    matrix = np.eye(4, dtype=np.float32)[None]
    options = flex({"output_height": 4, "output_width": 4})
    [(shape, _)] = infer_op("CUSTOM", [rand(1, 8, 8, 2), matrix], custom_code="TransformTensorBilinear",
                            custom_options=options, version=2, shapes=[(16, 8, 8, 2)])  # fmt: skip
    assert shape == (16, 4, 4, 2)
