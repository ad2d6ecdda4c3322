"""RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR against LiteRT."""

import numpy as np
import pytest

from one_cmds.interp import Interpreter, InterpreterError
from support.litert import run_model
from support.single_op import check_against_litert, const, new_options, op_model

RNG = np.random.default_rng(0)

OPTIONS = {
    "RESIZE_BILINEAR": "ResizeBilinearOptions",
    "RESIZE_NEAREST_NEIGHBOR": "ResizeNearestNeighborOptions",
}
FLAGS = [(False, False), (True, False), (False, True), (True, True)]
SIZES = [
    (4, 5, 8, 10),  # 2x up
    (4, 5, 7, 13),  # uneven up
    (9, 12, 4, 5),  # down
    (6, 6, 3, 9),  # down rows, up columns
    (4, 6, 3, 5),  # align_corners source positions at exact halves (1.5, 2.5)
    (5, 4, 1, 1),  # one output pixel
    (1, 1, 3, 2),  # one input pixel
]


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# LiteRT refuses bilinear with both flags: see test_resize_bilinear_refuses_both_flags.
@pytest.mark.parametrize(
    ("opcode", "align", "half"),
    [(op, *f) for op in OPTIONS for f in FLAGS if op != "RESIZE_BILINEAR" or not all(f)],
)
@pytest.mark.parametrize(("h", "w", "out_h", "out_w"), SIZES)
def test_resize(opcode, align, half, h, w, out_h, out_w):
    check_against_litert(
        opcode,
        [rand(2, h, w, 3), const([out_h, out_w], np.int32)],
        new_options(OPTIONS[opcode], alignCorners=align, halfPixelCenters=half),
    )


def test_resize_bilinear_refuses_both_flags():
    x = rand(1, 2, 2, 1)
    options = new_options("ResizeBilinearOptions", alignCorners=True, halfPixelCenters=True)
    model = op_model("RESIZE_BILINEAR", [x, const([4, 4], np.int32)], options)
    with pytest.raises(RuntimeError, match="half_pixel_centers"):
        run_model(model, [x])
    with pytest.raises(InterpreterError, match="cannot both be set"):
        Interpreter(model).run([x])


@pytest.mark.parametrize("opcode", list(OPTIONS))
def test_resize_size_as_input(opcode):
    check_against_litert(
        opcode,
        [rand(1, 3, 4, 2), np.array([7, 5], np.int32)],
        new_options(OPTIONS[opcode], halfPixelCenters=True),
    )


@pytest.mark.parametrize(("align", "half"), FLAGS)
def test_resize_nearest_int8(align, half):
    x = RNG.integers(-128, 128, (1, 5, 7, 2)).astype(np.int8)
    check_against_litert(
        "RESIZE_NEAREST_NEIGHBOR",
        [x, const([9, 4], np.int32)],
        new_options("ResizeNearestNeighborOptions", alignCorners=align, halfPixelCenters=half),
        outputs=["INT8"],
    )
