"""resolve_customop_add, _batchmatmul, _matmul, _max_pool_with_argmax, _splitv
(optimization.md §5.23). LiteRT cannot run the custom operators: each original model runs in
the interpreter (its custom kernels follow TensorFlow), the resolved one in LiteRT."""

import numpy as np
import pytest
from flatbuffers import flexbuffers

from one_cmds.interp import Interpreter
from support.litert import BUILTIN, random_inputs, run_model
from support.passes import Net, kinds, op_named, optimized, origin_names


def flex(attributes):
    return bytes(flexbuffers.Dumps(attributes))


def custom(net, code, inputs, shapes, attributes=None, dtypes=None, name="custom"):
    """A custom operator whose results have the declared ``shapes`` (and ``dtypes``)."""
    dtypes = dtypes or ["FLOAT32"] * len(shapes)
    options = None if attributes is None else flex(attributes)
    out = net.op(
        "CUSTOM", inputs, outputs=dtypes, custom_code=code, custom_options=options, name=name
    )
    outs = out if isinstance(out, list) else [out]
    for t, shape in zip(outs, shapes, strict=True):
        t.shape = tuple(shape)
    return out


def assert_resolved_runs_as_custom(before, after, inputs=None):
    """The resolved model in LiteRT gives what the custom operators give in the interpreter."""
    inputs = random_inputs(before, seed=11) if inputs is None else inputs
    want = Interpreter(before).run(inputs)
    got = run_model(after, inputs, BUILTIN)
    for w, g in zip(want, got, strict=True):
        assert (g.shape, g.dtype) == (w.shape, w.dtype)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, w)


def all_origins(after):
    return {frozenset(origin_names(after, op)) for op in after.main.operators}


# -- resolve_customop_add ----------------------------------------------------------------------

ADD = "resolve_customop_add"


@pytest.mark.parametrize("dtype", ["FLOAT32", "INT32"])
def test_add_v2_becomes_add(dtype):
    net = Net()
    x, y = net.input("x", (2, 3), dtype), net.input("y", (3,), dtype)
    net.outputs(custom(net, "AddV2", [x, y], [(2, 3)], {"T": 1}, [dtype], name="addv2"))
    model = net.model()
    after = optimized(model, ADD)
    assert kinds(after) == ["ADD"]
    add = op_named(after, "ADD")
    assert add.options.fusedActivationFunction == 0
    assert origin_names(after, add) == {"addv2"}
    assert after.main.outputs[0].name == "addv2"
    assert_resolved_runs_as_custom(model, after)


def broadcast_add_net(x_shape, *, custom_broadcast=False):
    net = Net()
    x = net.input("x", x_shape)
    c, shape = net.random("c", [3]), net.const("shape", [2, 3], np.int32)
    if custom_broadcast:
        bc = custom(net, "BroadcastTo", [c, shape], [(2, 3)], {"T": 1}, name="bc")
    else:
        bc = net.op("BROADCAST_TO", [c, shape], name="bc", version=2)  # LiteRT has no v1
    net.outputs(custom(net, "AddV2", [x, bc], [(2, 3)], {"T": 1}, name="addv2"))
    return net.model()


@pytest.mark.parametrize("custom_broadcast", [False, True])
def test_add_v2_absorbs_a_broadcast_to(custom_broadcast):
    model = broadcast_add_net((2, 3), custom_broadcast=custom_broadcast)
    after = optimized(model, ADD)
    assert kinds(after) == ["ADD"]
    add = op_named(after, "ADD")
    assert add.inputs[1].name == "c"
    assert origin_names(after, add) == {"addv2", "bc"}
    assert_resolved_runs_as_custom(model, after)


def test_a_broadcast_to_that_sets_the_result_shape_stays():
    """ADD(x[1, 3], c[3]) would be [1, 3], not [2, 3]: the reference drops the broadcast."""
    model = broadcast_add_net((1, 3))
    after = optimized(model, ADD)
    assert kinds(after) == ["BROADCAST_TO", "ADD"]
    assert origin_names(after, op_named(after, "ADD")) == {"addv2"}
    assert_resolved_runs_as_custom(model, after)


def test_add_v2_of_int64_stays():
    net = Net()
    x = net.input("x", (3,), "INT64")
    net.outputs(custom(net, "AddV2", [x, x], [(3,)], {"T": 4}, ["INT64"]))
    assert kinds(optimized(net.model(), ADD)) == ["CUSTOM(AddV2)"]


# -- resolve_customop_batchmatmul --------------------------------------------------------------

BMM = "resolve_customop_batchmatmul"


@pytest.mark.parametrize("adj_x", [False, True, None])
@pytest.mark.parametrize("adj_y", [False, True])
def test_batch_matmul_v2_becomes_batch_matmul(adj_x, adj_y):
    net = Net()
    x = net.input("x", (2, 4, 3) if adj_x else (2, 3, 4))
    y = net.random("y", (5, 4) if adj_y else (4, 5))
    attributes = {"T": 1, "adj_y": adj_y}
    if adj_x is not None:
        attributes["adj_x"] = adj_x
    net.outputs(custom(net, "BatchMatMulV2", [x, y], [(2, 3, 5)], attributes, name="bmm"))
    model = net.model()
    after = optimized(model, BMM)
    assert kinds(after) == ["BATCH_MATMUL"]
    bmm = op_named(after, "BATCH_MATMUL")
    assert (bmm.options.adjointLhs, bmm.options.adjointRhs) == (bool(adj_x), adj_y)
    assert origin_names(after, bmm) == {"bmm"}
    assert_resolved_runs_as_custom(model, after)


@pytest.mark.parametrize(("code", "options"), [("BatchMatMulV2", b"\x07\x01"), ("Foo", None)])
def test_other_custom_operators_stay(code, options):
    """Unreadable options; another custom code (the reference reports a change for it)."""
    net = Net()
    x = net.input("x", (2, 2))
    out = net.op("CUSTOM", [x, x], custom_code=code, custom_options=options)
    out.shape = (2, 2)
    net.outputs(out)
    model = net.model()
    assert kinds(optimized(model, BMM)) == [f"CUSTOM({code})"]


# -- resolve_customop_matmul -------------------------------------------------------------------

MATMUL = "resolve_customop_matmul"


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_becomes_fully_connected(ta, tb):
    net = Net()
    a = net.input("a", (4, 3) if ta else (3, 4))
    b = net.random("b", (5, 4) if tb else (4, 5))
    attributes = {"transpose_a": ta, "transpose_b": tb, "T": 1}
    net.outputs(custom(net, "MatMul", [a, b], [(3, 5)], attributes, name="matmul"))
    model = net.model()
    after = optimized(model, MATMUL)
    assert kinds(after).count("TRANSPOSE") == int(ta) + int(not tb)
    assert kinds(after)[-1] == "FULLY_CONNECTED"
    fc = op_named(after, "FULLY_CONNECTED")
    assert fc.inputs[2] is None and fc.options.keepNumDims is False
    assert all_origins(after) == {frozenset({"matmul"})}
    assert_resolved_runs_as_custom(model, after)


@pytest.mark.parametrize(
    ("a_dtype", "b_shape"),
    [("INT32", (4, 5)), ("FLOAT32", (4, None)), ("FLOAT32", (1, 4, 5))],
)
def test_matmul_near_misses_stay(a_dtype, b_shape):
    net = Net()
    a, b = net.input("a", (3, 4), a_dtype), net.input("b", b_shape, a_dtype)
    net.outputs(custom(net, "MatMul", [a, b], [(3, 5)], {"transpose_a": False}, [a_dtype]))
    assert kinds(optimized(net.model(), MATMUL)) == ["CUSTOM(MatMul)"]


# -- resolve_customop_max_pool_with_argmax -----------------------------------------------------

ARGMAX = "resolve_customop_max_pool_with_argmax"
LOWEST = np.finfo(np.float32).min


def argmax_net(shape, kh, kw, sh, sw, padding, *, with_batch=None, index_type="INT64"):
    n, h, w, c = shape
    if padding == "SAME":
        oh, ow = -(-h // sh), -(-w // sw)
    else:
        oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    attributes = {"ksize": [1, kh, kw, 1], "strides": [1, sh, sw, 1], "padding": padding}
    attributes |= {"T": 1, "Targmax": 4}
    if with_batch is not None:
        attributes["include_batch_in_index"] = with_batch
    net = Net()
    x = net.input("x", shape)
    outs = [(n, oh, ow, c)] * 2
    values, indices = custom(
        net, "MaxPoolWithArgmax", [x], outs, attributes, ["FLOAT32", index_type], name="mp"
    )
    net.outputs(values, indices)
    return net.model()


@pytest.mark.parametrize(
    ("shape", "kh", "kw", "sh", "sw", "padding"),
    [
        ((1, 6, 6, 3), 2, 2, 2, 2, "VALID"),
        ((1, 7, 5, 2), 3, 3, 2, 2, "SAME"),
        ((1, 6, 5, 2), 3, 1, 1, 1, "SAME"),  # one column wide: the reference's row is off
        ((1, 5, 6, 1), 1, 2, 1, 2, "SAME"),
        ((1, 4, 4, 2), 2, 2, 2, 2, "SAME"),  # SAME without padding: no PadV2
    ],
)
def test_max_pool_with_argmax_becomes_builtin_operators(shape, kh, kw, sh, sw, padding):
    model = argmax_net(shape, kh, kw, sh, sw, padding)
    after = optimized(model, ARGMAX)
    found = kinds(after)
    assert not any(k.startswith("CUSTOM") for k in found)
    assert found.count("MAX_POOL_2D") == 1 and found.count("ARG_MAX") == 1
    assert all_origins(after) == {frozenset({"mp:0"})}  # named after its first result
    assert [t.name for t in after.main.outputs] == ["mp:0", "mp:1"]
    pads = [op for op in after.main.operators if op.opcode == "PADV2"]
    padded = padding == "SAME" and (shape[1] % sh or kh > sh or shape[2] % sw or kw > sw)
    assert len(pads) == int(bool(padded))
    for pad in pads:
        assert pad.inputs[2].data == LOWEST
    x = -np.abs(random_inputs(model, seed=2)[0])  # all negative: padding must never win
    assert_resolved_runs_as_custom(model, after, [x])


@pytest.mark.parametrize("with_batch", [None, False, True])
@pytest.mark.parametrize("index_type", ["INT64", "INT32"])
def test_max_pool_with_argmax_batches_and_index_types(with_batch, index_type):
    model = argmax_net(
        (2, 5, 4, 3), 2, 2, 2, 1, "SAME", with_batch=with_batch, index_type=index_type
    )
    after = optimized(model, ARGMAX)
    assert ("CAST" in kinds(after)) == (index_type == "INT64")
    assert_resolved_runs_as_custom(model, after)


def test_max_pool_with_argmax_ties_pick_the_first_maximum():
    model = argmax_net((1, 6, 6, 2), 3, 3, 2, 2, "SAME")
    x = np.random.default_rng(4).integers(0, 2, (1, 6, 6, 2)).astype(np.float32)
    assert_resolved_runs_as_custom(model, optimized(model, ARGMAX), [x])


def test_max_pool_with_argmax_indices_stay_exact_on_large_planes():
    """C = 64 and about 9000 positions: the reference's float adjustments round up here."""
    model = argmax_net((1, 96, 96, 64), 2, 2, 2, 2, "VALID")
    assert_resolved_runs_as_custom(model, optimized(model, ARGMAX))


@pytest.mark.parametrize(
    "variant",
    [
        {"shape": (1, None, 4, 2)},
        {"ksize": [2, 2, 2, 1]},
        {"padding": "EXPLICIT"},
        {"index_type": "FLOAT32"},
    ],
)
def test_max_pool_with_argmax_near_misses_stay(variant):
    net = Net()
    x = net.input("x", variant.get("shape", (1, 4, 4, 2)))
    attributes = {
        "ksize": variant.get("ksize", [1, 2, 2, 1]),
        "strides": [1, 2, 2, 1],
        "padding": variant.get("padding", "VALID"),
    }
    dtypes = ["FLOAT32", variant.get("index_type", "INT64")]
    outs = custom(net, "MaxPoolWithArgmax", [x], [(1, 2, 2, 2)] * 2, attributes, dtypes)
    net.outputs(*outs)
    assert kinds(optimized(net.model(), ARGMAX)) == ["CUSTOM(MaxPoolWithArgmax)"]


# -- resolve_customop_splitv -------------------------------------------------------------------

SPLITV = "resolve_customop_splitv"


def splitv_net(sizes, axis, *, const_sizes=True):
    net = Net()
    x = net.input("x", (2, 6, 4))
    sizes = np.asarray(sizes)
    splits = net.const("sizes", sizes) if const_sizes else net.input("sizes", sizes.shape, "INT32")
    resolved = np.where(sizes < 0, 6 - sizes[sizes >= 0].sum(), sizes)
    shapes = [(2, int(s), 4) if 0 <= s <= 6 else (2, None, 4) for s in resolved]
    outs = custom(
        net, "SplitV", [x, splits, net.const("axis", axis)], shapes, {"num_split": 3}, name="sv"
    )
    net.outputs(*outs)
    return net.model()


@pytest.mark.parametrize(
    ("sizes", "axis"),
    [
        (np.array([1, 2, 3], np.int32), np.int32(1)),
        (np.array([3, -1, 1], np.int64), np.int64(1)),
        (np.array([2, 2, 2], np.int32), np.array([-2], np.int32)),
    ],
)
def test_splitv_becomes_split_v(sizes, axis):
    model = splitv_net(sizes, axis)
    after = optimized(model, SPLITV)
    assert kinds(after) == ["SPLIT_V"]
    split = op_named(after, "SPLIT_V")
    assert split.options.numSplits == 3
    assert [t.dtype for t in split.inputs[1:]] == ["INT32", "INT32"]
    assert [t.name for t in after.main.outputs] == ["sv:0", "sv:1", "sv:2"]
    assert split.outputs == after.main.outputs
    assert origin_names(after, split) == {"sv:0"}
    assert_resolved_runs_as_custom(model, after)


@pytest.mark.parametrize(
    ("sizes", "axis", "const_sizes"),
    [
        (np.array([1, 2, 3], np.int32), np.int32(1), False),
        (np.array([2**33, 2, -(2**33)], np.int64), np.int64(1), True),  # does not fit int32
        (np.array([1, 2, 3], np.int32), np.float32(1), True),
    ],
)
def test_splitv_near_misses_stay(sizes, axis, const_sizes):
    model = splitv_net(sizes, axis, const_sizes=const_sizes)
    assert kinds(optimized(model, SPLITV)) == ["CUSTOM(SplitV)"]
