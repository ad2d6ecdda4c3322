"""Resize (10, 11, 18, 19) and Upsample (9) (onnx-import.md §6.2): nearest index maps chosen by
comparing ONNX's (exact rationals) with TFLite's float32 ``GetNearestNeighbor``; linear via
RESIZE_BILINEAR; unknown H/W with integer factors. Judged by onnxruntime vs LiteRT, or by
``onnx.reference`` where onnxruntime's float32 index arithmetic deviates (ties, non-dyadic
scales, §10)."""

from fractions import Fraction

import numpy as np
import onnx
import pytest
from onnx.reference import ReferenceEvaluator

import one_cmds
from one_cmds.frontends.onnx import import_onnx
from one_cmds.frontends.onnx.ops.resize import (
    CANDIDATES,
    MAX_SIZE,
    SIZE_FREE,
    onnx_nearest,
    tflite_nearest,
)
from support.litert import run_tflite
from support.onnx_check import check, check_lowered, onnx_inputs
from support.onnx_graphs import FLOAT, INT64, node_model, opcodes
from support.onnx_text import import_error

F32, I64 = np.float32, np.int64


def resize_model(x_shape, scales=None, sizes=None, opset=19, op_type="Resize", **attrs):
    """A Resize (roi omitted) or Upsample/Resize-10 (scales second) node over ``x``."""
    consts, operands = {}, ["x"]
    if op_type == "Upsample" or opset < 11:
        operands.append("scales")
        consts["scales"] = np.array(scales, F32)
    else:
        operands += ["roi" if opset == 11 else "", "scales" if opset == 11 or scales else ""]
        consts["roi"] = np.zeros(0, F32)
        consts["scales"] = np.array(scales or [], F32)
        if sizes is not None:
            operands.append("sizes")
            consts["sizes"] = np.array(sizes, I64)
    return node_model(op_type, operands, {"x": (FLOAT, x_shape)}, consts, opset=opset, **attrs)


def resize_op(model):
    return next(op for op in model.main.operators if op.opcode.startswith("RESIZE"))


def flags(model):
    options = resize_op(model).options
    return bool(options.alignCorners), bool(options.halfPixelCenters)


NEAREST = {
    # name: (x shape, scales, sizes, opset, attributes, TFLite flags)
    "asymmetric_floor": (["N", 3, 4, 5], [1, 1, 2, 3], None, 19,
                         dict(coordinate_transformation_mode="asymmetric", nearest_mode="floor"), (0, 0)),
    "half_pixel_upscale": ([1, 2, 4, 4], [1, 1, 2, 2], None, 19, {}, (0, 0)),
    "half_pixel_downscale_floor": ([1, 2, 8, 8], [1, 1, 0.5, 0.5], None, 19, {}, (0, 0)),
    "half_pixel_downscale_ceil": ([1, 2, 8, 8], [1, 1, 0.5, 0.5], None, 19,
                                  dict(nearest_mode="round_prefer_ceil"), (0, 1)),
    "pytorch_half_pixel": ([1, 2, 3, 5], None, [1, 2, 12, 10], 13,
                           dict(coordinate_transformation_mode="pytorch_half_pixel"), (0, 0)),
    "align_corners": ([1, 2, 5, 3], None, [1, 2, 9, 5], 11,
                      dict(coordinate_transformation_mode="align_corners", nearest_mode="round_prefer_ceil"), (1, 0)),
    "tf_half_pixel_for_nn": ([1, 2, 4, 4], [1, 1, 2, 4], None, 11,
                             dict(coordinate_transformation_mode="tf_half_pixel_for_nn",
                                  nearest_mode="floor"), (0, 0)),
    "half_pixel_symmetric": ([1, 2, 4, 4], [1, 1, 2, 0.5], None, 19,
                             dict(coordinate_transformation_mode="half_pixel_symmetric",
                                  nearest_mode="round_prefer_ceil"), (0, 1)),
    "axes": ([1, 2, 4, 4], [4, 2], None, 18, dict(axes=[2, 3]), (0, 0)),
    "keep_aspect_ratio": ([1, 2, 4, 8], None, [8, 32], 18,
                          dict(axes=[2, 3], keep_aspect_ratio_policy="not_larger",
                               coordinate_transformation_mode="asymmetric", nearest_mode="floor"), (0, 0)),
    "rank3": (["N", 3, 5], [1, 1, 2], None, 19,
              dict(coordinate_transformation_mode="asymmetric", nearest_mode="floor"), (0, 0)),
    "resize10_upscale": ([1, 2, 3, 4], [1, 1, 2, 2], None, 10, {}, (0, 0)),
    "resize10_downscale": ([1, 2, 8, 8], [1, 1, 0.5, 0.25], None, 10, {}, (0, 0)),
}  # fmt: skip


@pytest.mark.parametrize("case", list(NEAREST))
def test_nearest_matches_onnxruntime(case, tmp_path):
    x_shape, scales, sizes, opset, attrs, expected = NEAREST[case]
    model = resize_model(x_shape, scales, sizes, opset, **attrs)
    imported = check_lowered(model, tmp_path)
    assert resize_op(imported).opcode == "RESIZE_NEAREST_NEIGHBOR"
    assert flags(imported) == tuple(map(bool, expected))


def test_upsample9_nearest(tmp_path):
    model = resize_model(["N", 2, 3, 4], [1, 1, 2, 3], op_type="Upsample", opset=9)
    assert flags(check_lowered(model, tmp_path)) == (False, False)


def test_nearest_with_unknown_spatial_dims_computes_the_size(tmp_path):
    """Integer factors: SHAPE(x)[1:3]·factor in the graph."""
    model = resize_model(["N", 3, "H", "W"], [1, 1, 3, 2], nearest_mode="round_prefer_ceil")
    imported = check_lowered(model, tmp_path, inputs=onnx_inputs(model, [(2, 3, 5, 7)]))
    assert flags(imported) == (False, False)
    assert opcodes(imported)[:4] == ["TRANSPOSE", "SHAPE", "STRIDED_SLICE", "MUL"]


def test_rank3_nearest_with_unknown_width(tmp_path):
    model = resize_model(
        ["N", 2, "W"], [1, 1, 4], coordinate_transformation_mode="asymmetric", nearest_mode="floor"
    )
    check(model, tmp_path, inputs=onnx_inputs(model, [(2, 2, 6)]))


def reference_check(model, tmp_path, x):
    """LiteRT on the import against ``onnx.reference`` (exact copies: equal arrays)."""
    path = str(tmp_path / "model.onnx")
    onnx.save(model, path)
    tflite = str(tmp_path / "model.tflite")
    one_cmds.save(import_onnx(path), tflite)
    expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_array_equal(run_tflite(tflite, [x])[0], expected)


@pytest.mark.parametrize(
    "in_hw, out_hw, attrs",
    [
        ((20, 26), (6, 64), dict(nearest_mode="round_prefer_ceil")),
        ((26, 7), (64, 20), dict(coordinate_transformation_mode="pytorch_half_pixel",
                                 nearest_mode="round_prefer_ceil")),
        ((2, 2), (82, 82), dict(coordinate_transformation_mode="asymmetric", nearest_mode="floor")),
    ],
)  # fmt: skip
def test_nearest_with_ties_or_non_dyadic_scales_matches_onnx_reference(
    in_hw, out_hw, attrs, tmp_path
):
    """onnxruntime's float32 arithmetic deviates here (§10): onnx.reference is the judge."""
    model = resize_model([1, 2, *in_hw], sizes=[1, 2, *out_hw], **attrs)
    x = np.arange(2 * in_hw[0] * in_hw[1], dtype=F32).reshape(1, 2, *in_hw)
    reference_check(model, tmp_path, x)


LINEAR = {
    # name: (x shape, scales, sizes, opset, attributes, TFLite flags)
    "half_pixel": (["N", 3, 4, 5], [1, 1, 2, 3], None, 19, {}, (0, 1)),
    "half_pixel_downscale": ([1, 2, 8, 6], [1, 1, 0.5, 0.5], None, 19, {}, (0, 1)),
    "pytorch_half_pixel": ([1, 2, 3, 5], None, [1, 2, 7, 4], 13,
                           dict(coordinate_transformation_mode="pytorch_half_pixel"), (0, 1)),
    "align_corners": ([1, 2, 5, 3], None, [1, 2, 9, 7], 11,
                      dict(coordinate_transformation_mode="align_corners"), (1, 0)),
    "asymmetric": ([1, 2, 4, 4], [1, 1, 2, 1.5], None, 13,
                   dict(coordinate_transformation_mode="asymmetric"), (0, 0)),
    "half_pixel_symmetric": ([1, 2, 4, 6], [1, 1, 2, 0.5], None, 19,
                             dict(coordinate_transformation_mode="half_pixel_symmetric"), (0, 1)),
    "antialias_upscale": ([1, 2, 4, 4], [1, 1, 2, 2], None, 18, dict(antialias=1), (0, 1)),
    "rank3": ([2, 3, 5], None, [2, 3, 11], 19, {}, (0, 1)),
    "resize10": ([1, 2, 3, 4], [1, 1, 2, 2], None, 10, {}, (0, 0)),
}  # fmt: skip


@pytest.mark.parametrize("case", list(LINEAR))
def test_linear_matches_onnxruntime(case, tmp_path):
    x_shape, scales, sizes, opset, attrs, expected = LINEAR[case]
    model = resize_model(x_shape, scales, sizes, opset, mode="linear", **attrs)
    imported = check_lowered(model, tmp_path)
    assert resize_op(imported).opcode == "RESIZE_BILINEAR"
    assert flags(imported) == tuple(map(bool, expected))


def test_upsample9_linear(tmp_path):
    model = resize_model([1, 2, 3, 4], [1, 1, 2, 2], op_type="Upsample", opset=9, mode="linear")
    assert flags(check_lowered(model, tmp_path)) == (False, False)


@pytest.mark.parametrize("scales, sizes", [([1, 1, 2, 4], None), (None, [2, 3, 8, 8])])
def test_linear_with_unknown_spatial_dims(scales, sizes, tmp_path):
    model = resize_model([2, 3, "H", "W"], scales, sizes, mode="linear")
    check(model, tmp_path, inputs=onnx_inputs(model, [(2, 3, 5, 3)]))


def sizes_from_shape(mode, spatial_factor=None):
    """``sizes = Concat(Shape(x)[:2], hw)`` over ``x [N, 3, H, W]`` (a typical export):
    ``hw`` constant [8, 6], or ``Shape(x)[2:]·factor``."""
    helper = onnx.helper
    nodes = [
        helper.make_node("Shape", ["x"], ["batch_channels"], start=0, end=2),
        helper.make_node("Concat", ["batch_channels", "hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize", mode=mode),
    ]
    consts = {"hw": np.array([8, 6], I64)}
    if spatial_factor is not None:
        nodes[:0] = [
            helper.make_node("Shape", ["x"], ["spatial"], start=2),
            helper.make_node("Mul", ["spatial", "factor"], ["hw"]),
        ]
        consts = {"factor": np.array([spatial_factor], I64)}
    x_shape = ["N", 3, 4, 4] if spatial_factor is None else ["N", 3, "H", "W"]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", FLOAT, None)],
        [onnx.numpy_helper.from_array(v, n) for n, v in consts.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_sizes_from_the_input_shape_keep_the_batch(tmp_path):
    check(sizes_from_shape("linear"), tmp_path)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_sizes_as_a_multiple_of_unknown_dims(mode, tmp_path):
    model = sizes_from_shape(mode, spatial_factor=2)
    check(model, tmp_path, inputs=onnx_inputs(model, [(2, 3, 5, 3)]))


@pytest.mark.parametrize(
    "x_shape, scales, sizes, attrs, expected",
    [
        ([1, 2, 4, 4], [1, 1, 2, 2], None, dict(mode="cubic"), "mode 'cubic' is not supported"),
        ([1, 2, 4, 4], None, [1, 2, 3, 3], dict(coordinate_transformation_mode="tf_crop_and_resize"),
         "coordinate_transformation_mode 'tf_crop_and_resize' is not supported"),
        ([1, 2, 4, 4], [1, 2, 2, 2], None, {}, "scaling of axis 1 is not supported"),
        (["N", 2, 4, 4], None, [2, 2, 8, 8], {}, "dimension 0 of 'x' must be known"),
        ([1, 2, 20, 4], None, [1, 2, 6, 8], {},
         "nearest index map 'half_pixel'/'round_prefer_floor' 20->6 has no TFLite equivalent"),
        ([1, 2, 4, 5], [1, 1, 1, 1.5], None, dict(mode="linear"), "scales do not match output size"),
        ([1, 2, 4, 4], [1, 1, 2, 0.5], None, dict(mode="linear", antialias=1),
         "antialias 1 is not supported"),
        ([1, 2, 4, 4], [1, 1, 2, 2], None, dict(mode="linear", coordinate_transformation_mode="tf_half_pixel_for_nn"),
         "coordinate_transformation_mode 'tf_half_pixel_for_nn' is not supported"),
        ([1, 2, 4, 1], None, [1, 2, 8, 1], dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"),
         None),
        ([1, 2, 4, 4], None, [1, 2, 8, 1], dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"),
         "coordinate_transformation_mode 'pytorch_half_pixel' is not supported"),
        ([1, 2, 2, 2, 2], [1, 1, 2, 2, 2], None, {}, "rank 5 is not supported"),
        ([1, 2, "H", 4], [1, 1, 1.5, 2], None, {}, "dimension 2 of 'x' must be known"),
        ([1, 2, 4, "W"], [1, 1, 2, 9], None, {}, "dimension 3 of 'x' must be known"),
        ([1, 2, 4, "W"], None, [1, 2, 8, 8], {}, "dimension 3 of 'x' must be known"),
        ([1, 2, "H", 4], [1, 1, 2, 2], None, dict(coordinate_transformation_mode="align_corners"),
         "dimension 2 of 'x' must be known"),
        ([1, 2, "H", 4], [1, 1, 3, 2], None, dict(coordinate_transformation_mode="asymmetric"),
         "nearest index map 'asymmetric'/'round_prefer_floor' ?->3*? has no TFLite equivalent"),
    ],
)  # fmt: skip
def test_resize_unsupported(x_shape, scales, sizes, attrs, expected, tmp_path):
    model = resize_model(x_shape, scales, sizes, **attrs)
    if expected is None:  # the control case: an output size of 1 in the unscaled axis
        check(model, tmp_path)
    else:
        assert import_error(model, tmp_path).endswith("): " + expected)


def test_upsample10_is_deprecated(tmp_path):
    model = resize_model([1, 2, 4, 4], [1, 1, 2, 2], op_type="Upsample", opset=10)
    assert import_error(model, tmp_path).endswith("): since_version 10 is not supported")


def test_sizes_must_be_constant(tmp_path):
    model = node_model(
        "Resize", ["x", "", "", "s"], {"x": (FLOAT, [1, 2, 4, 4]), "s": (INT64, [4])}
    )
    assert import_error(model, tmp_path).endswith("): input 's' must be constant")


# -- the index maps ------------------------------------------------------------------------------
MODES = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]


@pytest.mark.parametrize("ctm", sorted(SIZE_FREE))
def test_unknown_size_maps_hold_for_every_smaller_size(ctm):
    """The candidate the importer picks from the map at MAX_SIZE − 1 (integer factors ≤ 8)
    gives ONNX's map at other sizes too (TFLite's float32 scale fl(in/(in·f)) = fl(1/f))."""
    sizes = [*range(1, 25), 257, 1000]
    for mode in MODES:
        for factor in range(1, 9):
            size = MAX_SIZE - 1
            long = onnx_nearest(ctm, mode, size, size * factor, Fraction(factor))
            chosen = [
                c for c in CANDIDATES[:2]
                if np.array_equal(long, tflite_nearest(*c, size, size * factor))
            ][:1]  # fmt: skip
            for n in sizes if chosen else ():
                exact = onnx_nearest(ctm, mode, n, n * factor, Fraction(factor))
                assert np.array_equal(exact, tflite_nearest(*chosen[0], n, n * factor)), (
                    ctm, mode, factor, n,
                )  # fmt: skip


def test_exact_maps_agree_with_onnx_reference_where_it_is_exact():
    """Dyadic scales: the rational map equals onnx.reference's float64 one."""
    for ctm in ("half_pixel", "asymmetric", "pytorch_half_pixel", "half_pixel_symmetric"):
        for mode in MODES:
            for size, scale in ((4, 2.0), (8, 0.5), (6, 1.5), (8, 0.25), (3, 4.0)):
                out = int(size * scale)
                model = resize_model([1, 1, 1, size], [1, 1, 1, scale],
                                     coordinate_transformation_mode=ctm, nearest_mode=mode)  # fmt: skip
                x = np.arange(size, dtype=F32).reshape(1, 1, 1, size)
                expected = ReferenceEvaluator(model).run(None, {"x": x})[0].reshape(-1)
                ours = onnx_nearest(ctm, mode, size, out, Fraction(scale))
                assert expected.astype(int).tolist() == ours.tolist(), (ctm, mode, size, scale)
