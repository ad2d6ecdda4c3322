"""Kernels of the TensorFlow custom operators (AddV2, BatchMatMulV2, MatMul,
MaxPoolWithArgmax, SplitV, BroadcastTo) against numpy formulas of TensorFlow's semantics."""

import numpy as np
import pytest
from flatbuffers import flexbuffers

from one_cmds.interp import InterpreterError
from one_cmds.interp.kernels.custom import custom_attributes
from one_cmds.ir import Operator
from support.single_op import const, randoms, run_ours

rand = randoms(31)


def custom(code, operands, attributes=None, outputs=("FLOAT32",)):
    options = None if attributes is None else bytes(flexbuffers.Dumps(attributes))
    return run_ours(
        "CUSTOM", operands, custom_code=code, custom_options=options, outputs=list(outputs)
    )


@pytest.mark.parametrize(
    ("x_shape", "y_shape"), [((2, 3), (2, 3)), ((2, 1, 3), (4, 3)), ((), (3,))]
)
def test_add_v2_broadcasts(x_shape, y_shape):
    x, y = rand(*x_shape), rand(*y_shape)
    (got,) = custom("AddV2", [x, y], {"T": 1})
    np.testing.assert_array_equal(got, x + y)


def test_add_v2_int64_wraps_around():
    x = np.array([2**62, -5], np.int64)
    (got,) = custom("AddV2", [x, x], outputs=["INT64"])
    np.testing.assert_array_equal(got, np.array([-(2**63), -10], np.int64))


@pytest.mark.parametrize("adj_x", [False, True])
@pytest.mark.parametrize("adj_y", [False, True])
def test_batch_matmul_v2_adjoints_and_broadcast_batches(adj_x, adj_y):
    x = rand(2, 1, 3, 4)
    y = rand(5, 4, 2)
    xs = np.swapaxes(x, -1, -2) if adj_x else x
    ys = np.swapaxes(y, -1, -2) if adj_y else y
    (got,) = custom("BatchMatMulV2", [xs, ys], {"T": 1, "adj_x": adj_x, "adj_y": adj_y})
    np.testing.assert_allclose(got, np.einsum("abij,cjk->acik", x, y), rtol=1e-5, atol=1e-6)


def test_batch_matmul_v2_without_options_multiplies_plainly():
    x, y = rand(3, 4), rand(4, 2)
    (got,) = custom("BatchMatMulV2", [x, y])
    np.testing.assert_allclose(got, x @ y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_transposes(ta, tb):
    a, b = rand(3, 5), rand(5, 2)
    operands = [a.T.copy() if ta else a, b.T.copy() if tb else b]
    (got,) = custom("MatMul", operands, {"transpose_a": ta, "transpose_b": tb, "T": 1})
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-6)


def test_matmul_needs_matrices():
    with pytest.raises(InterpreterError, match="matrices"):
        custom("MatMul", [rand(2, 3, 4), rand(4, 2)], {})


def argmax_pool_formula(x, kh, kw, sh, sw, padding, with_batch):
    """TensorFlow's MaxPoolWithArgmax, one window at a time: the first valid maximum in
    row-major window order, its flat index ``((b·H + y)·W + x)·C + c`` without ``b`` unless
    ``with_batch``."""
    n, h, w, c = x.shape
    if padding == "SAME":
        oh, ow = -(-h // sh), -(-w // sw)
        top = max((oh - 1) * sh + kh - h, 0) // 2
        left = max((ow - 1) * sw + kw - w, 0) // 2
    else:
        oh, ow, top, left = (h - kh) // sh + 1, (w - kw) // sw + 1, 0, 0
    values = np.zeros((n, oh, ow, c), x.dtype)
    indices = np.zeros((n, oh, ow, c), np.int64)
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                for ch in range(c):
                    best = None
                    for fy in range(kh):
                        for fx in range(kw):
                            iy, ix = oy * sh - top + fy, ox * sw - left + fx
                            if not (0 <= iy < h and 0 <= ix < w):
                                continue
                            v = x[b, iy, ix, ch]
                            if best is None or v > best:
                                best = v
                                flat = ((b * h + iy) * w + ix) * c + ch
                                indices[b, oy, ox, ch] = (
                                    flat if with_batch else flat - b * h * w * c
                                )
                    values[b, oy, ox, ch] = best
    return values, indices


def pool_attributes(kh, kw, sh, sw, padding, with_batch=None):
    attributes = {
        "ksize": [1, kh, kw, 1],
        "strides": [1, sh, sw, 1],
        "padding": padding,
        "T": 1,
        "Targmax": 4,
    }
    if with_batch is not None:
        attributes["include_batch_in_index"] = with_batch
    return attributes


@pytest.mark.parametrize(
    ("shape", "kh", "kw", "sh", "sw", "padding"),
    [
        ((1, 6, 6, 3), 2, 2, 2, 2, "VALID"),
        ((1, 7, 5, 2), 3, 3, 2, 2, "SAME"),
        ((1, 5, 6, 2), 3, 1, 1, 2, "SAME"),
        ((2, 4, 4, 3), 2, 3, 1, 1, "VALID"),
        ((1, 3, 3, 1), 1, 1, 1, 1, "SAME"),
    ],
)
@pytest.mark.parametrize("with_batch", [None, False, True])
def test_max_pool_with_argmax(shape, kh, kw, sh, sw, padding, with_batch):
    x = -np.abs(rand(*shape))  # negative values: SAME padding must never win
    attributes = pool_attributes(kh, kw, sh, sw, padding, with_batch)
    values, indices = custom("MaxPoolWithArgmax", [x], attributes, ["FLOAT32", "INT64"])
    want_values, want_indices = argmax_pool_formula(x, kh, kw, sh, sw, padding, bool(with_batch))
    np.testing.assert_array_equal(values, want_values)
    np.testing.assert_array_equal(indices, want_indices)
    assert indices.dtype == np.int64


def test_max_pool_with_argmax_ties_pick_the_first_in_the_window():
    x = np.zeros((1, 4, 4, 2), np.float32)
    x[0, 1, 1, 1] = x[0, 1, 0, 1] = 1.0
    attributes = pool_attributes(2, 2, 2, 2, "SAME")
    values, indices = custom("MaxPoolWithArgmax", [x], attributes, ["FLOAT32", "INT32"])
    assert indices.dtype == np.int32
    np.testing.assert_array_equal(indices[0, :, :, 0], [[0, 4], [16, 20]])
    assert indices[0, 0, 0, 1] == (1 * 4 + 0) * 2 + 1
    np.testing.assert_array_equal(values[..., 0], 0)


@pytest.mark.parametrize(
    "attributes",
    [
        {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "EXPLICIT"},
        {"ksize": [2, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID"},
        {"ksize": [1, 2, 2], "strides": [1, 1, 1, 1], "padding": "VALID"},
    ],
)
def test_max_pool_with_argmax_refuses_unsupported_windows(attributes):
    with pytest.raises(InterpreterError, match="ksize"):
        custom("MaxPoolWithArgmax", [rand(1, 4, 4, 1)], attributes, ["FLOAT32", "INT64"])


@pytest.mark.parametrize(
    ("sizes", "axis"), [([1, 2, 3], 1), ([2, -1], -1), (np.array([4, 2], np.int64), 1)]
)
def test_split_v(sizes, axis):
    x = rand(2, 6, 6)
    sizes = np.asarray(sizes)
    operands = [x, const(sizes, sizes.dtype), const(axis, np.int32)]
    got = custom("SplitV", operands, {"num_split": len(sizes)}, ["FLOAT32"] * len(sizes))
    cut = sizes.copy()
    cut[cut < 0] = x.shape[axis] - cut[cut >= 0].sum()
    for part, want in zip(got, np.split(x, np.cumsum(cut)[:-1], axis=axis), strict=True):
        np.testing.assert_array_equal(part, want)


def test_broadcast_to():
    x = rand(3, 1)
    (got,) = custom("BroadcastTo", [x, const([2, 3, 4], np.int32)])
    np.testing.assert_array_equal(got, np.broadcast_to(x, (2, 3, 4)))


def test_unreadable_options_are_an_error():
    with pytest.raises(InterpreterError, match="flexbuffer map"):
        run_ours(
            "CUSTOM",
            [rand(2, 2), rand(2, 2)],
            custom_code="BatchMatMulV2",
            custom_options=b"\x01\x02\x03\x04",
        )


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (None, {}),
        (bytes(flexbuffers.Dumps({"adj_x": True})), {"adj_x": True}),
        (bytes(flexbuffers.Dumps([1, 2])), None),
        (b"\x05\x06\x07", None),
    ],
)
def test_custom_attributes(options, expected):
    op = Operator("CUSTOM", [], [], custom_code="X", custom_options=options)
    assert custom_attributes(op) == expected
