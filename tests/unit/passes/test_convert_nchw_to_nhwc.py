"""convert_nchw_to_nhwc with nchw_to_nhwc_input_shape / _output_shape (optimization.md §5.25)."""

import numpy as np
import pytest

from support.litert import random_inputs
from support.passes import (
    Net,
    assert_optimized,
    assert_same_outputs,
    conv2d_options,
    kinds,
    new_options,
    op_named,
    optimized,
    origin_names,
    run_reference,
)

PASS = "convert_nchw_to_nhwc"
IO = {"nchw_to_nhwc_input_shape": True, "nchw_to_nhwc_output_shape": True}
PRE, POST = [0, 2, 3, 1], [0, 3, 1, 2]


def perm_of(op):
    return op.inputs[1].data.tolist()


def transposes(model):
    return [op for op in model.main.operators if op.opcode == "TRANSPOSE"]


def single(opcode, inputs_of, options=None, shape=(1, 4, 5, 6), **extra):
    """x [N,C,H,W] -> opcode(*inputs_of(net, x)) -> output."""
    net = Net()
    x = net.input("x", shape)
    net.outputs(net.op(opcode, inputs_of(net, x), options, name="op", **extra))
    return net.model()


def assert_wrapped(model, opcode, *, pres=1, posts=1, source="op"):
    """After the pass alone: opcode computes in NHWC between Transposes made from it (every
    new operator copies the origin of the converted one, named ``source``)."""
    after = optimized(model, PASS)
    new = op_named(after, opcode)
    for t in transposes(after):
        assert origin_names(after, t) == {source}
    assert origin_names(after, new) == {source}
    made = [perm_of(t) for t in transposes(after)]
    assert sorted(made) == sorted([PRE] * pres + [POST] * posts)
    assert_same_outputs(model, after)
    return after, new


UNARY = [
    ("RELU", None),
    ("RELU6", None),
    ("ELU", None),
    ("NEG", None),
    ("LOGISTIC", None),
    ("RSQRT", None),
    ("LEAKY_RELU", new_options("LeakyReluOptions", alpha=0.2)),
    ("GELU", new_options("GeluOptions", approximate=False)),
]


@pytest.mark.parametrize("opcode, options", UNARY)
def test_unary_operators_are_wrapped(opcode, options):
    def inputs(net, x):  # RSQRT reads |x| so that every result is a number
        return [net.op("ABS", [x], name="abs")] if opcode == "RSQRT" else [x]

    model = single(opcode, inputs, options)
    after, new = assert_wrapped(model, opcode)
    assert new.inputs[0].shape == (1, 5, 6, 4)
    assert after.main.outputs[0].name == "op"


@pytest.mark.parametrize("opcode", ["ADD", "SUB", "MUL", "DIV"])
@pytest.mark.parametrize(
    "const_shape", [(1, 4, 1, 1), (1, 4, 5, 6), (4, 1, 1), (6,), (), (1,), (1, 1, 5, 1)]
)
@pytest.mark.parametrize("const_first", [False, True])
def test_binary_with_a_broadcastable_constant(opcode, const_shape, const_first):
    def inputs(net, x):
        c = net.random("c", const_shape, 0.5, 2.0)
        return [c, x] if const_first else [x, c]

    options = new_options(f"{opcode.title()}Options", fusedActivationFunction=0)
    model = single(opcode, inputs, options)
    _, new = assert_wrapped(model, opcode)
    const = new.inputs[0 if const_first else 1]
    full = (1,) * (4 - len(const_shape)) + const_shape
    assert const.shape == (full[0], full[2], full[3], full[1])


def test_binary_constant_broadcasting_the_other_operand():
    net = Net()
    x = net.input("x", [1, 1, 5, 6])
    net.outputs(net.op("MUL", [x, net.random("c", [1, 4, 1, 1])], name="op"))
    model = net.model()
    _, new = assert_wrapped(model, "MUL")
    assert new.outputs[0].shape == (1, 5, 6, 4)


@pytest.mark.parametrize("opcode", ["ADD", "MUL", "SUB", "MAXIMUM", "SQUARED_DIFFERENCE"])
def test_binary_of_two_rank4_tensors(opcode):
    net = Net()
    x = net.input("x", [1, 4, 5, 6])
    y = net.input("y", [1, 4, 1, 1])
    net.outputs(net.op(opcode, [x, y], name="op"))
    model = net.model()
    assert_wrapped(model, opcode, pres=2)


@pytest.mark.parametrize("opcode", ["MAXIMUM", "MINIMUM"])
@pytest.mark.parametrize("const_shape", [(), (1,)])
@pytest.mark.parametrize("const_first", [False, True])
def test_min_max_with_a_scalar_constant(opcode, const_shape, const_first):
    def inputs(net, x):
        c = net.const("c", np.full(const_shape, 0.25, np.float32))
        return [c, x] if const_first else [x, c]

    model = single(opcode, inputs)
    _, new = assert_wrapped(model, opcode)
    assert new.inputs[0 if const_first else 1].name == "c", "the scalar is kept"


@pytest.mark.parametrize("axis, nhwc_axis", [(1, 3), (-3, 3), (2, 1), (3, 2), (0, 0)])
def test_concatenation_axis_is_mapped(axis, nhwc_axis):
    net = Net()
    x = net.input("x", [1, 4, 5, 6])
    y = net.input("y", [1, 4, 5, 6])
    c = net.random("c", [1, 4, 5, 6])
    options = new_options("ConcatenationOptions", axis=axis, fusedActivationFunction=0)
    net.outputs(net.op("CONCATENATION", [x, c, y], options, name="op"))
    model = net.model()
    _, new = assert_wrapped(model, "CONCATENATION", pres=2)
    assert new.options.axis == nhwc_axis
    assert new.inputs[1].shape == (1, 5, 6, 4), "the constant is permuted, not transposed"


REDUCTIONS = [
    # axes, keep_dims, permutation of the result (None: no Transpose after)
    ([2, 3], True, POST),
    ([2, 3], False, None),
    ([1], False, None),
    ([-1, -2], False, None),
    ([0], False, [2, 0, 1]),
    ([2], False, [0, 2, 1]),
    ([3], False, [0, 2, 1]),
    ([0, 3], False, [1, 0]),
    ([0, 1, 2, 3], False, None),
    ([1], True, POST),
]


@pytest.mark.parametrize("opcode", ["MEAN", "REDUCE_MAX", "REDUCE_MIN"])
@pytest.mark.parametrize("axes, keep_dims, back", REDUCTIONS)
def test_reductions(opcode, axes, keep_dims, back):
    def inputs(net, x):
        return [x, net.const("axes", axes, np.int32)]

    model = single(opcode, inputs, new_options("ReducerOptions", keepDims=keep_dims))
    after = optimized(model, PASS)
    new = op_named(after, opcode)
    assert sorted(new.inputs[1].data.tolist()) == sorted(PRE.index(a % 4) for a in axes)
    made = [perm_of(t) for t in transposes(after)]
    assert made == [PRE] + ([back] if back else [])
    assert all(origin_names(after, op) == {"op"} for op in after.main.operators)
    assert_same_outputs(model, after)


@pytest.mark.parametrize("opcode", ["PAD", "PADV2", "MIRROR_PAD"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_pads(opcode, dtype):
    paddings = [[0, 0], [0, 0], [1, 2], [2, 1]]

    def inputs(net, x):
        extra = [net.const("v", np.float32(-3.5))] if opcode == "PADV2" else []
        return [x, net.const("paddings", paddings, dtype), *extra]

    options = new_options("MirrorPadOptions", mode=1) if opcode == "MIRROR_PAD" else None
    model = single(opcode, inputs, options)
    _, new = assert_wrapped(model, opcode)
    assert new.inputs[1].data.tolist() == [[0, 0], [1, 2], [2, 1], [0, 0]]
    assert new.inputs[1].dtype == ("INT32" if dtype == np.int32 else "INT64")


def test_split_v_permutes_every_output_back():
    net = Net()
    x = net.input("x", [1, 6, 5, 4])
    sizes = net.const("sizes", [1, 2, 3], np.int32)
    dim = net.const("dim", np.int32(1))
    options = new_options("SplitVOptions", numSplits=3)
    outs = net.op("SPLIT_V", [x, sizes, dim], options, outputs=3, name="op")
    net.outputs(*outs)
    model = net.model()
    after, new = assert_wrapped(model, "SPLIT_V", posts=3, source="op:0")
    assert new.inputs[2].data.tolist() == 3
    assert [t.name for t in after.main.outputs] == ["op:0", "op:1", "op:2"]


def two_inputs(opcode, dtype="FLOAT32"):
    net = Net()
    x, y = net.input("x", [1, 4, 5, 6], dtype), net.input("y", [1, 4, 5, 6], dtype)
    net.outputs(net.op(opcode, [x, y], name="op"))
    return net.model()


def int32_add():
    net = Net()
    x = net.input("x", [1, 4, 5, 6], "INT32")
    net.outputs(net.op("ADD", [x, net.const("c", np.ones((1, 4, 1, 1), np.int32))], name="op"))
    return net.model()


def mean_of_input_axes():
    net = Net()
    x, axes = net.input("x", [1, 4, 5, 6]), net.input("axes", [2], "INT32")
    options = new_options("ReducerOptions", keepDims=True)
    net.outputs(net.op("MEAN", [x, axes], options, name="op"))
    return net.model()


def with_const(opcode, shape, dtype=np.float32, options=None):
    return single(opcode, lambda n, x: [x, n.const("c", np.ones(shape, dtype))], options)


NEAR_MISSES = {
    "softmax is never converted": lambda: single(
        "SOFTMAX", lambda n, x: [x], new_options("SoftmaxOptions", beta=1.0)
    ),
    "int32 constant operand": int32_add,
    "constant of rank 5": lambda: with_const("ADD", [1, 1, 4, 1, 1]),
    "two constants": lambda: single(
        "ADD", lambda n, x: [n.random("a", [1, 4, 5, 6]), n.random("b", [1, 4, 5, 6])]
    ),
    "minimum of two tensors": lambda: two_inputs("MINIMUM"),
    "maximum with a vector": lambda: with_const("MAXIMUM", [1, 4, 1, 1]),
    "squared difference with a constant": lambda: with_const("SQUARED_DIFFERENCE", [6]),
    "pad on channels": lambda: with_const("PAD", [4, 2], np.int32),
    "axes not constant": mean_of_input_axes,
    "int64 axes": lambda: with_const("MEAN", [1], np.int64, new_options("ReducerOptions")),
}


@pytest.mark.parametrize("case", NEAR_MISSES)
def test_near_misses_stay(case):
    model = NEAR_MISSES[case]()
    assert kinds(optimized(model, PASS)) == kinds(model)


def test_rank_3_and_dynamic_tensors_stay():
    assert kinds(optimized(single("RELU", lambda n, x: [x], shape=(4, 5, 6)), PASS)) == ["RELU"]
    model = single("RELU", lambda n, x: [x], shape=(None, 4, 5, 6))
    assert kinds(optimized(model, PASS)) == ["RELU"]


def test_operators_already_between_pre_and_post_transposes_stay():
    net = Net()
    x = net.input("x", [1, 4, 5, 6])
    pre = net.op("TRANSPOSE", [x, net.const("p", PRE, np.int32)], name="pre")
    relu = net.op("RELU", [pre], name="relu")
    post = net.op("TRANSPOSE", [relu, net.const("q", POST, np.int32)], name="post")
    net.outputs(net.op("NEG", [post], name="neg"))
    model = net.model()
    assert_optimized(
        model, PASS, expect=["TRANSPOSE", "RELU", "TRANSPOSE", "TRANSPOSE", "NEG", "TRANSPOSE"]
    )


def test_a_pre_reshape_also_opens_a_region():
    net = Net()
    x = net.input("x", [1, 4, 1, 1])
    pre = net.op("RESHAPE", [x, net.const("s", [1, 1, 1, 4], np.int32)], name="pre")
    relu = net.op("RELU", [pre], name="relu")
    net.outputs(net.op("RESHAPE", [relu, net.const("t", [1, 4, 1, 1], np.int32)], name="post"))
    model = net.model()
    assert kinds(optimized(model, PASS)) == ["RESHAPE", "RELU", "RESHAPE"]


@pytest.mark.parametrize(
    "tail", ["output", "second pre"], ids=["reaches an output", "meets another pre"]
)
def test_an_open_region_marks_nothing(tail):
    net = Net()
    x = net.input("x", [1, 4, 5, 6])
    pre = net.op("TRANSPOSE", [x, net.const("p", PRE, np.int32)], name="pre")
    relu = net.op("RELU", [pre], name="relu")
    if tail == "output":
        net.outputs(relu)
    else:
        net.outputs(net.op("TRANSPOSE", [relu, net.const("p2", PRE, np.int32)], name="pre2"))
    model = net.model()
    after = optimized(model, PASS)
    assert kinds(after).count("TRANSPOSE") == kinds(model).count("TRANSPOSE") + 2
    assert_same_outputs(model, after)


def test_interface_options_permute_rank4_inputs_and_outputs_only():
    net = Net()
    x = net.input("x", [1, 4, 5, 6])
    v = net.input("v", [4, 5])
    y = net.op("RELU", [x], name="relu")
    net.outputs(y, net.op("NEG", [v], name="neg"))
    model = net.model()
    after = optimized(model, PASS, **IO)
    assert [t.shape for t in after.main.inputs] == [(1, 5, 6, 4), (4, 5)]
    assert [t.shape for t in after.main.outputs] == [(1, 5, 6, 4), (4, 5)]
    assert [t.name for t in after.main.outputs] == ["relu", "neg"]
    first, pre, relu_post, out = (op for op in after.main.operators if op.opcode == "TRANSPOSE")
    assert first.origin == frozenset() and perm_of(first) == POST
    assert [perm_of(pre), perm_of(relu_post), perm_of(out)] == [PRE, POST, PRE]
    for op in (pre, op_named(after, "RELU"), relu_post, out):
        assert origin_names(after, op) == {"relu"}
    xv, vv = random_inputs(model, seed=3)
    want = run_reference(model, [xv, vv])
    got = run_reference(after, [xv.transpose(PRE), vv])
    np.testing.assert_allclose(got[0], want[0].transpose(PRE), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-5)


def test_interface_options_permute_dynamic_inputs_and_outputs_too():
    model = single("RELU", lambda n, x: [x], shape=(None, 4, 5, 6))
    after = optimized(model, PASS, **IO)
    assert kinds(after) == ["TRANSPOSE", "RELU", "TRANSPOSE"]
    assert after.main.inputs[0].shape == (None, 5, 6, 4)
    assert after.main.outputs[0].shape == (None, 5, 6, 4)
    first, last = transposes(after)
    assert first.origin == frozenset() and origin_names(after, last) == {"op"}


def test_without_interface_options_the_shapes_stay():
    model = single("RELU", lambda n, x: [x])
    after = optimized(model, PASS, nchw_to_nhwc_output_shape=False)
    assert after.main.inputs[0].shape == (1, 4, 5, 6)
    assert after.main.outputs[0].shape == (1, 4, 5, 6)


# -- acceptance: an ONNX-style NCHW model ---------------------------------------------------


def conv(net, x, cin, cout, k, name, padding=0):
    options = conv2d_options(padding=padding)
    to_nhwc = net.op("TRANSPOSE", [x, net.const(f"{name}_pre", PRE, np.int32)], name=f"{name}_in")
    w, b = net.random(f"{name}_w", [cout, k, k, cin]), net.random(f"{name}_b", [cout])
    y = net.op("CONV_2D", [to_nhwc, w, b], options, name=name)
    return net.op("TRANSPOSE", [y, net.const(f"{name}_post", POST, np.int32)], name=f"{name}_out")


def onnx_style():
    """x [1,3,16,16] -> conv -> add/mul [1,C,1,1] -> relu -> pad -> conv -> relu -> concat(1)
    -> mean[2,3] (output 1) and conv -> relu (output 2, NCHW)."""
    net = Net(seed=1)
    x = net.input("x", [1, 3, 16, 16])
    c1 = conv(net, x, 3, 8, 3, "conv1", padding=0)
    add = net.op("ADD", [c1, net.random("beta", [1, 8, 1, 1])], name="add")
    mul = net.op("MUL", [net.random("gamma", [1, 8, 1, 1]), add], name="mul")
    r1 = net.op("RELU", [mul], name="relu1")
    pad = net.op(
        "PAD", [r1, net.const("pads", [[0, 0], [0, 0], [1, 1], [1, 1]], np.int32)], name="pad"
    )
    c2 = conv(net, pad, 8, 8, 3, "conv2", padding=1)
    r2 = net.op("RELU", [c2], name="relu2")
    cat = net.op(
        "CONCATENATION",
        [r1, r2],
        new_options("ConcatenationOptions", axis=1, fusedActivationFunction=0),
        name="concat",
    )
    mean = net.op(
        "MEAN",
        [cat, net.const("axes", [2, 3], np.int32)],
        new_options("ReducerOptions", keepDims=False),
        name="mean",
    )
    c3 = conv(net, cat, 16, 4, 1, "conv3")
    net.outputs(mean, net.op("RELU", [c3], name="relu3"))
    return net.model()


CONVERTED = {"ADD": "add", "MUL": "mul", "PAD": "pad", "CONCATENATION": "concat", "MEAN": "mean"}


def check_interior(before, after):
    for op in after.main.operators:
        if op.opcode == "CONV_2D":
            assert op.inputs[0].shape[-1] == op.inputs[1].shape[-1]
        elif op.opcode in CONVERTED:
            assert origin_names(after, op) == {CONVERTED[op.opcode]}
    relus = [origin_names(after, op) for op in after.main.operators if op.opcode == "RELU"]
    assert relus == [{"relu1"}, {"relu2"}, {"relu3"}]
    assert op_named(after, "CONCATENATION").options.axis == 3
    assert op_named(after, "MEAN").inputs[1].data.tolist() == [1, 2]
    assert sorted(k for k in kinds(after) if k != "TRANSPOSE") == sorted(
        k for k in kinds(before) if k != "TRANSPOSE"
    )


def test_onnx_style_model_keeps_only_boundary_transposes():
    model = onnx_style()
    after = optimized(model, PASS, "remove_redundant_transpose")
    check_interior(model, after)
    first, last = transposes(after)
    assert after.main.operators[0] is first and first.inputs[0] is after.main.inputs[0]
    assert origin_names(after, first) == {"conv1_in"}, "the imported Transpose stays"
    assert after.main.outputs[1] is last.outputs[0] and perm_of(last) == POST
    assert origin_names(after, last) == {"relu3"}
    assert [t.shape for t in after.main.outputs] == [(1, 16), (1, 4, 16, 16)]
    assert_same_outputs(model, after)


def test_onnx_style_model_with_interface_options_has_no_transpose():
    model = onnx_style()
    after = optimized(model, PASS, "remove_redundant_transpose", **IO)
    check_interior(model, after)
    assert "TRANSPOSE" not in kinds(after)
    assert after.main.inputs[0].shape == (1, 16, 16, 3)
    assert [t.shape for t in after.main.outputs] == [(1, 16), (1, 16, 16, 4)]
    assert [t.name for t in after.main.outputs] == ["mean", "relu3"]
    (x,) = random_inputs(model, seed=5)
    want = run_reference(model, [x])
    got = run_reference(after, [x.transpose(PRE)])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], want[1].transpose(PRE), rtol=1e-5, atol=1e-5)


def test_onnx_style_model_with_o1_is_transpose_free_inside():
    """convert_nchw_to_nhwc + O1: only the two boundary Transposes remain, and the RELUs after
    the second and third convolution are fused into them."""
    model = onnx_style()
    after = optimized(model, "O1", PASS)
    first, last = transposes(after)
    assert after.main.operators[0] is first and first.inputs[0] is after.main.inputs[0]
    assert after.main.outputs[1] is last.outputs[0]
    assert after.operator_count() < model.operator_count()
    assert kinds(after).count("RELU") == 1
    assert_same_outputs(model, after)
