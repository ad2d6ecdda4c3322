"""Space/depth/batch rearrangements against LiteRT."""

import numpy as np
import pytest

from one_cmds.ir import QuantParam
from support.single_op import check_against_litert, const, new_options, op_model, run_both

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize(
    ("block", "shape"), [(1, (1, 2, 3, 4)), (2, (2, 3, 4, 8)), (3, (1, 2, 2, 18))]
)
def test_depth_to_space(block, shape):
    check_against_litert(
        "DEPTH_TO_SPACE", [rand(*shape)], new_options("DepthToSpaceOptions", blockSize=block)
    )


@pytest.mark.parametrize(
    ("block", "shape"), [(1, (1, 2, 3, 4)), (2, (2, 4, 6, 3)), (3, (1, 6, 3, 2))]
)
def test_space_to_depth(block, shape):
    check_against_litert(
        "SPACE_TO_DEPTH", [rand(*shape)], new_options("SpaceToDepthOptions", blockSize=block)
    )


def test_depth_to_space_int8():
    x = RNG.integers(-128, 128, (1, 2, 3, 8)).astype(np.int8)
    check_against_litert(
        "DEPTH_TO_SPACE", [x], new_options("DepthToSpaceOptions", blockSize=2), outputs=["INT8"]
    )


@pytest.mark.parametrize(
    ("opcode", "shape", "block", "amounts"),
    [
        ("BATCH_TO_SPACE_ND", (4, 2, 3, 2), [2, 2], [[0, 0], [0, 0]]),
        ("BATCH_TO_SPACE_ND", (8, 2, 3, 1), [2, 2], [[1, 0], [0, 2]]),  # batch 2 after the move
        ("BATCH_TO_SPACE_ND", (6, 3, 2, 2), [3, 2], [[2, 1], [1, 1]]),
        ("BATCH_TO_SPACE_ND", (6, 3, 2, 2), [1, 3], [[0, 0], [0, 1]]),
        ("BATCH_TO_SPACE_ND", (4, 5, 3), [2], [[1, 2]]),  # 3-D input
        ("SPACE_TO_BATCH_ND", (1, 4, 6, 2), [2, 2], [[0, 0], [0, 0]]),
        ("SPACE_TO_BATCH_ND", (2, 3, 5, 1), [2, 3], [[1, 0], [0, 1]]),
        ("SPACE_TO_BATCH_ND", (2, 4, 4, 3), [3, 2], [[1, 1], [2, 0]]),
        ("SPACE_TO_BATCH_ND", (3, 5, 2), [3], [[0, 1]]),  # 3-D input
    ],
)
def test_space_batch_nd(opcode, shape, block, amounts):
    """Crops (BATCH_TO_SPACE_ND) or paddings (SPACE_TO_BATCH_ND) as the third operand."""
    options = "BatchToSpaceNDOptions" if opcode == "BATCH_TO_SPACE_ND" else "SpaceToBatchNDOptions"
    check_against_litert(
        opcode,
        [rand(*shape), const(block, np.int32), const(amounts, np.int32)],
        new_options(options),
    )


def test_space_to_batch_nd_operands_as_inputs():
    # block shape and paddings fed as graph inputs instead of constants
    check_against_litert(
        "SPACE_TO_BATCH_ND",
        [rand(1, 5, 4, 2), np.array([2, 2], np.int32), np.array([[1, 0], [0, 0]], np.int32)],
        new_options("SpaceToBatchNDOptions"),
    )


def test_space_to_batch_nd_pads_quantized_with_zero_point():
    x = RNG.integers(-128, 128, (1, 3, 3, 2)).astype(np.int8)
    model = op_model(
        "SPACE_TO_BATCH_ND",
        [x, const([2, 2], np.int32), const([[1, 0], [0, 1]], np.int32)],
        new_options("SpaceToBatchNDOptions"),
        outputs=["INT8"],
    )
    quant = QuantParam(scale=np.array([0.5], np.float32), zero_point=np.array([7], np.int64))
    model.main.inputs[0].quant = model.main.outputs[0].quant = quant
    expected, got = run_both(model, [x])
    np.testing.assert_array_equal(got[0], expected[0])
    assert (got[0] == 7).any()
