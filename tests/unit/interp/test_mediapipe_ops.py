"""MediaPipe's custom operators (mediapipe/util/tflite/operations) against hand-checked cases
of their C++ definitions and, for the segmentation operators, against LiteRT's XNNPACK
delegate, which runs Convolution2DTransposeBias, MaxPoolingWithArgmax2D and MaxUnpooling2D
(non-overlapping windows; it writes the window index as uint32 bits, column-major).

Whole models of the corpus (mediapipe 0.10.14): selfie_segmentation ends in
Convolution2DTransposeBias, which XNNPACK runs; face_landmark_with_attention crops with
Landmarks2TransformMatrix + TransformTensorBilinear and maps back with TransformLandmarks,
which no runtime here runs: its builtin part is compared with LiteRT and its refined
landmarks must land on the face mesh's. No MediaPipe wheel model uses MaxPoolingWithArgmax2D
or MaxUnpooling2D.
"""

import struct

import numpy as np
import pytest
from flatbuffers import flexbuffers

import one_cmds
from one_cmds.interp import Interpreter, InterpreterError
from one_cmds.interp.kernels.mediapipe_segmentation import convolution_2d_transpose_bias
from one_cmds.quant.calibration import record_minmax
from one_cmds.shape import infer_shapes
from support.litert import run_model
from support.single_op import const, op_model, randoms, run_ours

rand = randoms(16)
SAME, VALID = 1, 2


def conv_options(padding, stride_h, stride_w, extra=()):
    return struct.pack(f"<{3 + len(extra)}i", padding, stride_w, stride_h, *extra)


def pool_options(padding, fh, fw, sh=None, sw=None, activation=0):
    """TfLitePoolParams with its trailing computed padding (40 bytes)."""
    return struct.pack("<10i", padding, sw or fw, sh or fh, fw, fh, activation, 0, 0, 0, 0)


def custom(code, operands, options=b"", outputs=1, version=1):
    return run_ours(
        "CUSTOM", operands, custom_code=code, custom_options=options, outputs=outputs,
        version=version,
    )  # fmt: skip


def flex(attributes):
    return bytes(flexbuffers.Dumps(attributes))


# Convolution2DTransposeBias (transpose_conv_bias.cc)


def transpose_conv_formula(x, w, b, sh, sw, padding):
    """The definition, one input pixel at a time: out[y * s - pad // 2 + fy, ...] += x * w."""
    n, h, wd, _ = x.shape
    out_c, kh, kw, _ = w.shape
    pad_h = max(0, kh - (h - 1) % sh - 1) if padding == SAME else 0
    pad_w = max(0, kw - (wd - 1) % sw - 1) if padding == SAME else 0
    out = np.zeros((n, sh * (h - 1) + kh - pad_h, sw * (wd - 1) + kw - pad_w, out_c))
    out += b
    for y in range(h):
        for xx in range(wd):
            for fy in range(kh):
                for fx in range(kw):
                    oy, ox = y * sh - pad_h // 2 + fy, xx * sw - pad_w // 2 + fx
                    if 0 <= oy < out.shape[1] and 0 <= ox < out.shape[2]:
                        out[:, oy, ox] += x[:, y, xx] @ w[:, fy, fx].T
    return out


def test_transpose_conv_bias_of_a_centered_impulse_is_the_filter_plus_bias():
    x = np.zeros((1, 3, 3, 1), np.float32)
    x[0, 1, 1, 0] = 1
    w = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    (got,) = custom(
        "Convolution2DTransposeBias", [x, const(w), const([0.5])], conv_options(SAME, 1, 1)
    )
    np.testing.assert_array_equal(got[0, :, :, 0], w[0, :, :, 0] + 0.5)


def test_transpose_conv_bias_stride_two_replicates_each_pixel():
    x = np.array([[1, 2], [3, 4]], np.float32).reshape(1, 2, 2, 1)
    w = np.ones((1, 2, 2, 1), np.float32)
    (got,) = custom(
        "Convolution2DTransposeBias", [x, const(w), const([1.0])], conv_options(SAME, 2, 2)
    )
    expected = np.kron(x[0, :, :, 0], np.ones((2, 2))) + 1
    np.testing.assert_array_equal(got[0, :, :, 0], expected)


@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "padding"),
    [((2, 4, 5, 3), (3, 3), (2, 2), SAME), ((1, 5, 4, 2), (3, 2), (2, 3), SAME),
     ((1, 3, 4, 2), (2, 3), (1, 2), VALID), ((1, 3, 3, 2), (2, 2), (2, 2), 0)],
)  # fmt: skip
def test_transpose_conv_bias_matches_its_definition(shape, kernel, strides, padding):
    x, w, b = rand(*shape), rand(4, *kernel, shape[3]), rand(4)
    options = conv_options(padding, *strides, extra=(0,))  # a trailing activation field
    (got,) = custom("Convolution2DTransposeBias", [x, const(w), const(b)], options)
    expected = transpose_conv_formula(x, w, b, *strides, padding)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_transpose_conv_bias_matches_xnnpack():
    x, w, b = rand(1, 5, 6, 4), rand(3, 2, 2, 4), rand(3)
    model = op_model(
        "CUSTOM", [x, const(w), const(b)], custom_code="Convolution2DTransposeBias",
        custom_options=conv_options(SAME, 2, 2),
    )  # fmt: skip
    infer_shapes(model)
    (expected,) = run_model(model, [x])
    (got,) = Interpreter(model).run([x])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_transpose_conv_bias_needs_its_option_struct():
    x, w = rand(1, 2, 2, 1), rand(1, 2, 2, 1)
    with pytest.raises(InterpreterError, match="int32 fields"):
        custom("Convolution2DTransposeBias", [x, const(w), const([0.0])], b"\x01\x00")


# MaxPoolingWithArgmax2D (max_pool_argmax.cc) and MaxUnpooling2D (max_unpooling.cc)


def test_argmax_pool_same_padding_by_hand():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    values, index = custom("MaxPoolingWithArgmax2D", [x], pool_options(SAME, 2, 2), 2)
    np.testing.assert_array_equal(values[0, :, :, 0], [[5, 6], [8, 9]])
    # Positions in the window (y * 2 + x) plus 0.1: bottom-right, bottom-left, top-right, top-left.
    np.testing.assert_array_equal(index[0, :, :, 0], np.float32([[3, 2], [1, 0]]) + np.float32(0.1))


def test_argmax_pool_valid_overlapping_windows_and_first_maximum_wins():
    x = np.array([[1, 7, 7], [7, 0, 2], [3, 7, 9]], np.float32).reshape(1, 3, 3, 1)
    values, index = custom("MaxPoolingWithArgmax2D", [x], pool_options(VALID, 2, 2, 1, 1), 2)
    np.testing.assert_array_equal(values[0, :, :, 0], [[7, 7], [7, 9]])
    np.testing.assert_array_equal(index[0, :, :, 0], np.float32([[1, 0], [0, 3]]) + np.float32(0.1))


def test_argmax_pool_activation_clamps_values_not_indices():
    x = np.array([[-3, -2], [-1, -4]], np.float32).reshape(1, 2, 2, 1)
    for activation, value in [(1, 0.0), (3, 0.0), (2, -1.0), (0, -1.0)]:
        v, i = custom(
            "MaxPoolingWithArgmax2D", [x], pool_options(VALID, 2, 2, activation=activation), 2
        )
        assert v.ravel().tolist() == [value] and i.ravel().tolist() == [np.float32(2.1)]


def test_argmax_pool_window_without_a_larger_value_gives_lowest_and_position_zero():
    x = np.full((1, 2, 2, 1), -np.inf, np.float32)
    x[0, 1, 1, 0] = 5
    v, i = custom("MaxPoolingWithArgmax2D", [x], pool_options(VALID, 1, 1), 2)
    assert v.ravel().tolist()[:3] == [np.finfo(np.float32).min] * 3 and v.ravel()[3] == 5
    assert i.ravel().tolist() == [np.float32(0.1)] * 4


@pytest.mark.parametrize(
    ("shape", "window", "padding"),
    [((2, 7, 9, 3), (2, 3), SAME), ((1, 9, 10, 2), (3, 2), VALID)],
)
def test_argmax_pool_and_unpool_match_xnnpack(shape, window, padding):
    fh, fw = window
    x = rand(*shape)
    model = op_model(
        "CUSTOM", [x], custom_code="MaxPoolingWithArgmax2D",
        custom_options=pool_options(padding, fh, fw), outputs=2,
    )  # fmt: skip
    infer_shapes(model)
    expected = run_model(model, [x])
    values, index = Interpreter(model).run([x])
    np.testing.assert_array_equal(values, expected[0])
    k = expected[1].view(np.uint32).astype(np.int64)  # XNNPACK: x * fh + y
    np.testing.assert_array_equal(
        index, ((k % fh) * fw + k // fh).astype(np.float32) + np.float32(0.1)
    )
    if padding != VALID:  # XNNPACK unpools VALID windows only
        return
    v = rand(*values.shape)
    unpool = op_model(
        "CUSTOM", [v, index], custom_code="MaxUnpooling2D",
        custom_options=pool_options(padding, fh, fw),
    )  # fmt: skip
    infer_shapes(unpool)
    kk = np.trunc(index).astype(np.int64)
    bits = ((kk % fw) * fh + kk // fw).astype(np.uint32).view(np.float32)
    (expected_unpooled,) = run_model(unpool, [v, bits])
    np.testing.assert_array_equal(Interpreter(unpool).run([v, index])[0], expected_unpooled)


def test_unpool_by_hand():
    v = np.array([[1, 2], [3, 4]], np.float32).reshape(1, 2, 2, 1)
    idx = np.array([[0.1, 1.1], [2.1, 3.1]], np.float32).reshape(1, 2, 2, 1)
    (got,) = custom("MaxUnpooling2D", [v, idx], pool_options(SAME, 2, 2))
    expected = np.zeros((4, 4), np.float32)
    expected[0, 0], expected[0, 3], expected[3, 0], expected[3, 3] = 1, 2, 3, 4
    np.testing.assert_array_equal(got[0, :, :, 0], expected)


def test_unpool_inverts_argmax_pool_and_drops_out_of_range_positions():
    x = rand(1, 6, 6, 2)
    values, index = custom("MaxPoolingWithArgmax2D", [x], pool_options(SAME, 2, 2), 2)
    (got,) = custom("MaxUnpooling2D", [values, index], pool_options(SAME, 2, 2))
    blocks = x.reshape(1, 3, 2, 3, 2, 2)
    is_max = blocks == blocks.max(axis=(2, 4), keepdims=True)
    np.testing.assert_array_equal(got, np.where(is_max, blocks, 0).reshape(x.shape))
    index[0, 0, 0, 0] = -1.0  # truncates to -1: x -1, y 0 -> column -1, dropped
    (dropped,) = custom("MaxUnpooling2D", [values, index], pool_options(SAME, 2, 2))
    assert not dropped[0, :2, :2, 0].any()


# Landmarks2TransformMatrix (landmarks_to_transform_matrix.cc)


def l2tm_v2(points, **extra):
    landmarks = np.zeros((1, 6, 3), np.float32)
    landmarks[0, : len(points), :2] = points
    attributes = {
        "left_rotation_idx": 0, "right_rotation_idx": 1, "subset_idxs": [0, 1, 2, 3],
        "output_height": 16, "output_width": 16, "scale_x": 1.5, "scale_y": 1.5,
        "target_rotation_radians": 0.0, **extra,
    }  # fmt: skip
    (got,) = custom("Landmarks2TransformMatrix", [landmarks], flex(attributes), version=2)
    assert got.shape == (1, 4, 4)
    return got[0]


def test_landmarks_to_matrix_v2_upright_box():
    got = l2tm_v2([(0, 0), (4, 0), (0, 2), (4, 2)])
    # shift(center 2, 1) . scale(1.5 * box / 16) . shift(-8, -8)
    expected = [[0.375, 0, 0, -1], [0, 0.1875, 0, -0.5], [0, 0, 1, 0], [0, 0, 0, 1]]
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_landmarks_to_matrix_v2_rotated_box():
    # Rotation landmarks one above the other: r = -pi/2; in the rotated frame the box is
    # x 0..4, y -1..0, center (2, -0.5), back in the image (0.5, 2).
    got = l2tm_v2([(0, 0), (0, 4), (1, 0), (1, 4)])
    expected = [[0, -0.09375, 0, 1.25], [0.375, 0, 0, -1], [0, 0, 1, 0], [0, 0, 0, 1]]
    np.testing.assert_allclose(got, expected, atol=1e-6)
    center = got @ [8, 8, 0, 1]
    np.testing.assert_allclose(center[:2], [0.5, 2], atol=1e-6)


def test_landmarks_to_matrix_v2_target_rotation_turns_the_crop():
    # r = pi/2: the rotated box is 2 wide and 4 high, turned back by -pi/2.
    got = l2tm_v2([(0, 0), (4, 0), (0, 2), (4, 2)], target_rotation_radians=float(np.pi / 2))
    np.testing.assert_allclose(got[:2, :2], [[0, 0.375], [-0.1875, 0]], atol=1e-6)


def test_landmarks_to_matrix_v1_by_hand():
    landmarks = np.zeros((1, 1, 1, 12), np.float32)
    landmarks.reshape(4, 3)[:, :2] = [(2, 4), (6, 4), (2, 6), (6, 6)]
    attributes = {
        "input_hw": [11, 11], "output_hw": [11, 11], "dimensions": 3, "landmarks_range": 10,
        "bbox_size_multiplier": 1.0, "left_rotation_idx": 0, "right_rotation_idx": 1,
        "subset": [0, 1, 2, 3],
    }  # fmt: skip
    (got,) = custom("Landmarks2TransformMatrix", [landmarks], flex(attributes), version=1)
    expected = [[0.4, 0, 0, 2], [0, 0.2, 0, 4], [0, 0, 1, 0], [0, 0, 0, 1]]
    np.testing.assert_allclose(got[0], expected, atol=1e-6)


def test_landmarks_to_matrix_rejects_a_landmark_out_of_range():
    attributes = {
        "left_rotation_idx": 0,
        "right_rotation_idx": 9,
        "subset_idxs": [0, 1],
        "output_height": 4,
        "output_width": 4,
        "scale_x": 1.0,
        "scale_y": 1.0,
    }
    with pytest.raises(InterpreterError, match="out of range"):
        custom("Landmarks2TransformMatrix", [rand(1, 3, 3)], flex(attributes), version=2)


# TransformLandmarks (transform_landmarks.cc)

MATRIX = np.array([[2, 0, 9, 1], [0, 3, 9, 2], [0, 0, 1, 0], [0, 0, 0, 1]], np.float32)


@pytest.mark.parametrize("dims", [2, 3])
def test_transform_landmarks_v2_maps_xy_keeps_z(dims):
    points = rand(1, 5, dims)
    (got,) = custom("TransformLandmarks", [points, MATRIX[None]], version=2)
    np.testing.assert_allclose(got[..., 0], 2 * points[..., 0] + 1, rtol=1e-6)
    np.testing.assert_allclose(got[..., 1], 3 * points[..., 1] + 2, rtol=1e-6)
    np.testing.assert_array_equal(got[..., 2:], points[..., 2:])


def test_transform_landmarks_v1_scales_the_translation():
    points = rand(1, 1, 2, 6)
    options = flex({"dimensions": 3, "scale": 2.0})
    (got,) = custom("TransformLandmarks", [points, MATRIX[None]], options, version=1)
    p = points.reshape(-1, 3)
    np.testing.assert_allclose(got.reshape(-1, 3)[:, 0], 2 * p[:, 0] + 2, rtol=1e-6)
    np.testing.assert_allclose(got.reshape(-1, 3)[:, 1], 3 * p[:, 1] + 4, rtol=1e-6)
    np.testing.assert_array_equal(got.reshape(-1, 3)[:, 2], p[:, 2])


def test_transform_landmarks_batches_use_their_own_matrix():
    points = rand(2, 4, 3)
    mats = np.stack([MATRIX, np.eye(4, dtype=np.float32)])
    (got,) = custom("TransformLandmarks", [points, mats], version=2)
    (first,) = custom("TransformLandmarks", [points[:1], MATRIX[None]], version=2)
    np.testing.assert_array_equal(got[:1], first)
    np.testing.assert_array_equal(got[1], points[1])


# TransformTensorBilinear (transform_tensor_bilinear.cc)


def bilinear(image, matrix, size, version=2):
    options = flex({"output_height": size[0], "output_width": size[1]})
    (got,) = custom("TransformTensorBilinear", [image, matrix], options, version=version)
    return got


def test_bilinear_identity_copies_the_image():
    image = rand(1, 5, 6, 3)
    np.testing.assert_array_equal(bilinear(image, np.eye(4, dtype=np.float32)[None], (5, 6)), image)


def test_bilinear_half_pixel_shift_averages_neighbours_and_zeroes_outside():
    image = rand(1, 4, 4, 2)
    m = np.eye(4, dtype=np.float32)
    m[0, 3] = 0.5
    got = bilinear(image, m[None], (4, 4))
    np.testing.assert_allclose(got[:, :, :3], (image[:, :, :3] + image[:, :, 1:]) / 2, atol=1e-6)
    assert not got[:, :, 3].any()  # x = 3.5 is past the last column


def test_bilinear_v2_samples_pixel_centers_v1_pixel_corners():
    image = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    m = np.diag(np.float32([2, 2, 1, 1]))[None]
    v2 = bilinear(image, m, (2, 2))[0, :, :, 0]
    np.testing.assert_allclose(v2, image[0, :, :, 0].reshape(2, 2, 2, 2).mean(axis=(1, 3)))
    v1 = bilinear(image, m, (2, 2), version=1)[0, :, :, 0]
    np.testing.assert_array_equal(v1, image[0, ::2, ::2, 0])


def test_bilinear_batches_and_v1_options_name():
    image = rand(2, 3, 3, 2)
    mats = np.stack([np.eye(4, dtype=np.float32)] * 2)
    mats[1, 0, 3] = 1.0
    options = flex({"mode": "bilinear", "output_size": [3, 3]})
    (got,) = custom("TransformTensor", [image, mats], options)
    np.testing.assert_array_equal(got[0], image[0])
    np.testing.assert_array_equal(got[1, :, :2], image[1, :, 1:])
    assert not got[1, :, 2].any()


# Whole models


@pytest.fixture(scope="module")
def corpus_model():
    """``load(id)``: a corpus model, loaded; skipped when the registry is unreachable."""
    from corpus.download import CorpusUnavailable, model_path, select

    def load(model_id):
        try:
            return one_cmds.load(str(model_path(select(model_id)[0])))
        except CorpusUnavailable as e:
            pytest.skip(f"corpus model {model_id} unavailable: {e}")

    return load


def image(shape, seed):
    """A smooth random RGB image in [0, 1] (16x16 blocks)."""
    n, h, w, c = shape
    small = np.random.default_rng(seed).random((n, h // 16, w // 16, c), dtype=np.float32)
    return np.repeat(np.repeat(small, 16, axis=1), 16, axis=2)


def with_outputs(model, names):
    """``model`` (a copy) answering the tensors ``names``, operators past them removed."""
    copy = model.copy()
    graph = copy.main
    by_name = {t.name: t for t in graph.referenced_tensors()}
    graph.outputs = [by_name[n] for n in names]
    graph.remove_dead_operators()
    return copy


def close(got, expected, rtol=1e-5):
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale)


def test_selfie_segmentation_matches_litert(corpus_model):
    model = corpus_model("mp_selfie_segmentation")
    x = image((1, 256, 256, 3), 0)
    names = ["add_13__xeno_compat__1", "segment", model.main.outputs[0].name]
    expected = run_model(with_outputs(model, names), [x])
    optimized = one_cmds.optimize(model, "O1")
    (op,) = [op for op in optimized.main.operators if op.kind.endswith("TransposeBias)")]
    weights = [t.data for t in op.inputs[1:]]
    # The custom operator alone, on LiteRT's own operand.
    alone = convolution_2d_transpose_bias(op, [expected[0], *weights], None)
    close(alone, expected[1])
    # The whole optimized model (float32 weights) on the interpreter: logits of a few
    # hundred carry the summation-order error of 150 operators into the probabilities.
    got = Interpreter(with_outputs(optimized, names)).run([x])
    assert [g.shape for g in got] == [e.shape for e in expected]
    close(got[0], expected[0], rtol=1e-4)
    close(got[1], expected[1], rtol=1e-4)
    np.testing.assert_allclose(got[2], expected[2], atol=2e-3)


def test_selfie_segmentation_calibrates_batched(corpus_model):
    optimized = one_cmds.optimize(corpus_model("mp_selfie_segmentation"), "O1")
    records = [[image((1, 256, 256, 3), seed)] for seed in (1, 2)]
    notes = []
    batched = record_minmax(optimized, records, batch=2, note=notes.append, engine="reference")
    single = record_minmax(optimized, records, batch=1, engine="reference")
    assert notes == ["engine: reference", "calibration: 2 records per run"]
    (segment,) = [k for k, t in single.tensors.items() if t.name == "segment"]
    np.testing.assert_allclose(batched.mins[segment], single.mins[segment], rtol=1e-4)
    np.testing.assert_allclose(batched.maxs[segment], single.maxs[segment], rtol=1e-4)


def test_face_landmark_with_attention(corpus_model):
    model = corpus_model("mp_face_landmark_with_attention")
    x = image((1, 192, 192, 3), 3)
    # The builtin part feeding the custom operators, against LiteRT.
    crops = ("Landmarks2TransformMatrix", "TransformTensorBilinear")
    first = [op for op in model.main.operators if op.custom_code in crops]
    made = {id(t) for op in first for t in op.outputs}
    cut = with_outputs(
        model, sorted({t.name for op in first for t in op.inputs if id(t) not in made})
    )
    assert len(cut.main.outputs) == 4 and "CUSTOM" not in {op.opcode for op in cut.main.operators}
    for g, e in zip(Interpreter(cut).run([x]), run_model(cut, [x]), strict=True):
        close(g, e, rtol=1e-4)
    # The whole model, optimized: the refined regions land on the mesh's landmarks.
    optimized = one_cmds.optimize(model, "O1")
    outputs = dict(
        zip([t.name for t in optimized.main.outputs], Interpreter(optimized).run([x]), strict=True)
    )
    assert all(np.isfinite(v).all() for v in outputs.values())
    mesh = outputs["output_mesh_identity"].reshape(468, 3)[:, :2]
    crops = [
        op for op in optimized.main.operators if op.kind.endswith("Landmarks2TransformMatrix)")
    ]
    for name, crop in zip(
        ["output_lips", "output_left_eye", "output_right_eye"], crops, strict=True
    ):
        subset = flexbuffers.Loads(bytes(crop.custom_options))["subset_idxs"]
        refined = outputs[name].reshape(-1, 2)
        distance = np.linalg.norm(refined - mesh[subset], axis=1)
        assert np.median(distance) < 5 and distance.max() < 10, name  # regions are ~50 px
    for side in ("left", "right"):
        eye = outputs[f"output_{side}_eye"].reshape(-1, 2)
        iris = outputs[f"output_{side}_iris"].reshape(-1, 2)
        assert (eye.min(axis=0) < iris[0]).all() and (iris[0] < eye.max(axis=0)).all()
        radius = np.linalg.norm(iris[1:] - iris[0], axis=1)  # 4 points around the center
        assert radius.min() > 1 and radius.max() < 15
