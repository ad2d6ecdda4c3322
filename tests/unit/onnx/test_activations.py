"""Activation converters (onnx-import.md §6.1): rectifiers, Clip, sigmoids, GELU and Erf,
Softmax/LogSoftmax, and the GELU / HardSwish chains fused into one operator; onnxruntime vs
LiteRT on each graph."""

import math

import numpy as np
import onnx
import pytest
from onnx import helper

from one_cmds.frontends.onnx import import_onnx
from one_cmds.frontends.onnx.errors import OnnxImportError
from support.onnx_check import check
from support.onnx_graphs import FLOAT, INT32, INT64, graph_model, node_model, opcodes

RNG = np.random.default_rng(0)
RANKS = [["N", 4, 5], ["N", 3, 4, 5], ["N", 2, 3, 4, 5]]
RANK_IDS = ["rank3", "rank4", "rank5"]


def floats(*shape, scale=1.0):
    return (RNG.uniform(-1, 1, shape) * scale).astype(np.float32)


def one_node(op_type, shape=("N", 3, 4, 5), opset=17, consts=None, operands=("x",), **attrs):
    return node_model(op_type, list(operands), {"x": (FLOAT, list(shape))}, consts,
                      opset=opset, **attrs)  # fmt: skip


def wide(shape, scale=4.0):
    """Inputs past [-1, 1) so that saturating and tail regions are reached."""
    return [floats(2, *shape[1:], scale=scale)]


@pytest.mark.parametrize("shape", RANKS, ids=RANK_IDS)
@pytest.mark.parametrize(
    ("op_type", "attrs", "expected"),
    [
        ("Relu", {}, ["RELU"]),
        ("LeakyRelu", {"alpha": 0.1}, ["LEAKY_RELU"]),
        ("LeakyRelu", {}, ["LEAKY_RELU"]),
        ("Elu", {}, ["ELU"]),
        ("Sigmoid", {}, ["LOGISTIC"]),
        ("Tanh", {}, ["TANH"]),
    ],
)
def test_direct_activations(op_type, attrs, expected, shape, tmp_path):
    imported = check(one_node(op_type, shape, **attrs), tmp_path, inputs=wide(shape))
    assert opcodes(imported) == expected


def test_hard_swish_14(tmp_path):
    imported = check(one_node("HardSwish", opset=14), tmp_path, inputs=wide(RANKS[1]))
    assert opcodes(imported) == ["HARD_SWISH"]


@pytest.mark.parametrize("opset", [9, 17])
def test_hard_sigmoid(opset, tmp_path):
    imported = check(one_node("HardSigmoid", opset=opset), tmp_path, inputs=wide(RANKS[1]))
    assert opcodes(imported) == ["MUL", "ADD", "MAXIMUM", "MINIMUM"]


def test_hard_sigmoid_attributes(tmp_path):
    model = one_node("HardSigmoid", RANKS[2], alpha=0.3, beta=0.4)
    check(model, tmp_path, inputs=wide(RANKS[2]))


def test_integer_relu(tmp_path):
    model = node_model("Relu", ["x"], {"x": (INT32, ["N", 3, 4])}, out=INT32, opset=14)
    feed = RNG.integers(-9, 9, (2, 3, 4)).astype(np.int32)
    assert opcodes(check(model, tmp_path, inputs=[feed])) == ["MAXIMUM"]


@pytest.mark.parametrize("slope_shape", [(3, 1, 1), (1,), (5,)])
@pytest.mark.parametrize("opset", [9, 16])
def test_prelu_constant_slope(slope_shape, opset, tmp_path):
    slope = RNG.uniform(0, 0.5, slope_shape).astype(np.float32)
    model = one_node("PRelu", opset=opset, consts={"s": slope}, operands=("x", "s"))
    assert opcodes(check(model, tmp_path)) == ["PRELU"]


def test_prelu_rank5_and_slope_input(tmp_path):
    inputs = {"x": (FLOAT, ["N", 2, 3, 4, 5]), "s": (FLOAT, [3, 1, 1])}
    model = node_model("PRelu", ["x", "s"], inputs, opset=16)
    check(model, tmp_path)


def test_integer_prelu(tmp_path):
    slope = np.array([[1], [2], [3]], np.int64)
    model = node_model("PRelu", ["x", "s"], {"x": (INT64, ["N", 3, 4])}, {"s": slope},
                       out=INT64, opset=16)  # fmt: skip
    feed = RNG.integers(-9, 9, (2, 3, 4)).astype(np.int64)
    assert "PRELU" not in opcodes(check(model, tmp_path, inputs=[feed]))


@pytest.mark.parametrize("shape", RANKS, ids=RANK_IDS)
@pytest.mark.parametrize(
    ("op_type", "attrs"),
    [
        ("Elu", {"alpha": 0.5}),
        ("Selu", {}),
        ("Selu", {"alpha": 2.0, "gamma": 0.5}),
        ("Softplus", {}),
        ("Mish", {}),
    ],
)
def test_decomposed_activations(op_type, attrs, shape, tmp_path):
    model = one_node(op_type, shape, opset=18, **attrs)
    imported = check(model, tmp_path, inputs=wide(shape, scale=30))
    assert "CUSTOM" not in opcodes(imported)


CLIP_FAST = [((0.0, None), "RELU"), ((0.0, 6.0), "RELU6"), ((-1.0, 1.0), "RELU_N1_TO_1")]


@pytest.mark.parametrize(("bounds", "opcode"), CLIP_FAST, ids=["relu", "relu6", "relu_n1_to_1"])
@pytest.mark.parametrize("opset", [9, 11, 13])
def test_clip_fast_paths(bounds, opcode, opset, tmp_path):
    low, high = bounds
    if opset < 11:
        attrs = {"min": low} | ({"max": high} if high is not None else {})
        model = one_node("Clip", opset=opset, **attrs)
    else:
        consts = {"lo": np.float32(low)} | ({"hi": np.float32(high)} if high is not None else {})
        operands = ("x", "lo", "hi") if high is not None else ("x", "lo")
        model = one_node("Clip", opset=opset, consts=consts, operands=operands)
    assert opcodes(check(model, tmp_path, inputs=wide(RANKS[1], 8))) == [opcode]


@pytest.mark.parametrize(
    ("operands", "expected"),
    [
        (("x", "lo", "hi"), ["MAXIMUM", "MINIMUM"]),
        (("x", "", "hi"), ["MINIMUM"]),
        (("x", "lo"), ["MAXIMUM"]),
        (("x",), []),
    ],
)
def test_clip_other_constant_bounds(operands, expected, tmp_path):
    consts = {"lo": np.float32(-0.3), "hi": np.float32(0.6)}
    used = {k: v for k, v in consts.items() if k in operands}
    model = one_node("Clip", RANKS[2], opset=13, consts=used, operands=operands)
    assert [c for c in opcodes(check(model, tmp_path)) if "SHAPE" not in c] == expected


def test_clip_attributes_before_opset_11(tmp_path):
    model = one_node("Clip", RANKS[0], opset=10, min=-0.5, max=0.25)
    assert opcodes(check(model, tmp_path)) == ["MAXIMUM", "MINIMUM"]


def test_clip_tensor_bounds(tmp_path):
    inputs = {"x": (FLOAT, ["N", 3, 4]), "lo": (FLOAT, []), "hi": (FLOAT, [])}
    model = node_model("Clip", ["x", "lo", "hi"], inputs, opset=13)
    feeds = [floats(2, 3, 4), np.array(-0.2, np.float32), np.array(0.5, np.float32)]
    assert opcodes(check(model, tmp_path, inputs=feeds)) == ["MAXIMUM", "MINIMUM"]


def test_integer_clip(tmp_path):
    consts = {"lo": np.int64(0), "hi": np.int64(6)}
    model = node_model("Clip", ["x", "lo", "hi"], {"x": (INT64, ["N", 5])}, consts,
                       out=INT64, opset=13)  # fmt: skip
    feed = RNG.integers(-9, 9, (2, 5)).astype(np.int64)
    assert "RELU6" not in opcodes(check(model, tmp_path, inputs=[feed]))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("shape", RANKS, ids=RANK_IDS)
def test_gelu_20(approximate, shape, tmp_path):
    model = one_node("Gelu", shape, opset=20, approximate=approximate)
    imported = check(model, tmp_path, inputs=wide(shape))
    assert opcodes(imported) == ["GELU"]
    assert imported.main.operators[0].options.approximate == (approximate == "tanh")


@pytest.mark.parametrize("opset", [9, 13])
def test_erf_decomposition(opset, tmp_path):
    shape = ["N", 4, 64]
    feed = np.linspace(-5, 5, 2 * 4 * 64, dtype=np.float32).reshape(2, 4, 64)
    # A&S 7.1.26 is within 1.5e-7 of erf; float32 arithmetic adds a few ulps.
    imported = check(one_node("Erf", shape, opset=opset), tmp_path, inputs=[feed], atol=1e-6)
    assert "CUSTOM" not in opcodes(imported)


# -- fused chains ---------------------------------------------------------------------------

SQRT2 = math.sqrt(2)


def mul(a, b, out):
    return helper.make_node("Mul", [a, b], [out])


def erf_chain(order, scale_by_div=True):
    """½·x·(1+erf(x/√2)) with the product taken in ``order``."""
    nodes = [
        helper.make_node("Div", ["x", "sqrt2"], ["s"])
        if scale_by_div
        else mul("inv_sqrt2", "x", "s"),
        helper.make_node("Erf", ["s"], ["e"]),
        helper.make_node("Add", ["one", "e"], ["a"]),
    ]
    products = {
        "x_a_then_half": [mul("x", "a", "p"), mul("p", "half", "y")],
        "half_a_then_x": [mul("half", "a", "p"), mul("x", "p", "y")],
        "half_x_then_a": [mul("x", "half", "p"), mul("a", "p", "y")],
        "x_a_div_two": [mul("a", "x", "p"), helper.make_node("Div", ["p", "two"], ["y"])],
    }
    return nodes + products[order]


GELU_CONSTS = {
    "sqrt2": np.float32(SQRT2),
    "inv_sqrt2": np.float32(1 / SQRT2),
    "one": np.float32(1.0),
    "half": np.float32(0.5),
    "two": np.float32(2.0),
    "beta": np.float32(math.sqrt(2 / math.pi)),
    "kappa": np.float32(0.044715),
    "three": np.float32(3.0),
}


def chain_model(nodes, shape=("N", 3, 4, 5), outputs=("y",), consts=None, opset=17):
    used = {name for n in nodes for name in n.input}
    table = {k: v for k, v in (consts or GELU_CONSTS).items() if k in used}
    return graph_model(nodes, {"x": (FLOAT, list(shape))}, dict.fromkeys(outputs, FLOAT),
                       table, opset)  # fmt: skip


@pytest.mark.parametrize(
    "order", ["x_a_then_half", "half_a_then_x", "half_x_then_a", "x_a_div_two"]
)
@pytest.mark.parametrize("scale_by_div", [True, False])
def test_erf_gelu_chain_is_one_gelu(order, scale_by_div, tmp_path):
    model = chain_model(erf_chain(order, scale_by_div))
    imported = check(model, tmp_path, inputs=wide(RANKS[1]))
    assert opcodes(imported) == ["GELU"]
    gelu = imported.main.operators[0]
    assert gelu.options.approximate is False
    assert gelu.origin == frozenset(range(len(model.graph.node)))


def tanh_chain(cube):
    """½·x·(1+tanh(√(2/π)·(x+0.044715·x³))) as torch exports it (or with Pow for x³)."""
    powers = {
        "mul": [mul("x", "x", "sq"), mul("x", "sq", "cube")],
        "mul_swapped": [mul("x", "x", "sq"), mul("sq", "x", "cube")],
        "pow": [helper.make_node("Pow", ["x", "three"], ["cube"])],
    }[cube]
    return [
        *powers,
        mul("kappa", "cube", "k"),
        helper.make_node("Add", ["x", "k"] if cube != "pow" else ["k", "x"], ["u"]),
        mul("beta", "u", "t"),
        helper.make_node("Tanh", ["t"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["a"]),
        mul("x", "a", "p"),
        mul("half", "p", "y"),
    ]


@pytest.mark.parametrize("cube", ["mul", "mul_swapped", "pow"])
@pytest.mark.parametrize("shape", RANKS, ids=RANK_IDS)
def test_tanh_gelu_chain_is_one_approximate_gelu(cube, shape, tmp_path):
    model = chain_model(tanh_chain(cube), shape)
    imported = check(model, tmp_path, inputs=wide(shape))
    assert opcodes(imported) == ["GELU"]
    assert imported.main.operators[0].options.approximate is True


def test_gelu_chain_constants_within_tolerance(tmp_path):
    """Constants rounded as exporters write them (float32 of √2) still match; ½ as 0.51 not."""
    consts = GELU_CONSTS | {"sqrt2": np.float32(1.4142135)}
    assert opcodes(check(chain_model(erf_chain("x_a_then_half"), consts=consts), tmp_path)) == [
        "GELU"
    ]
    consts = GELU_CONSTS | {"half": np.float32(0.51)}
    imported = check(chain_model(erf_chain("x_a_then_half"), consts=consts), tmp_path)
    assert "GELU" not in opcodes(imported)


def test_gelu_chain_with_an_intermediate_output_is_not_fused(tmp_path):
    imported = check(chain_model(erf_chain("x_a_then_half"), outputs=("y", "e")), tmp_path)
    assert "GELU" not in opcodes(imported)


def test_gelu_chain_with_an_intermediate_read_elsewhere_is_not_fused(tmp_path):
    nodes = [*erf_chain("x_a_then_half"), helper.make_node("Add", ["y", "a"], ["z"])]
    imported = check(chain_model(nodes, outputs=("z",)), tmp_path)
    assert "GELU" not in opcodes(imported)


def test_gelu_chain_rank_raising_constant_is_not_fused(tmp_path):
    """A ½ of shape [1, 1, 1, 1] makes the result rank 4 from rank 3: not GELU(x)."""
    consts = GELU_CONSTS | {"half": np.full((1, 1, 1, 1), 0.5, np.float32)}
    imported = check(chain_model(erf_chain("x_a_then_half"), ("N", 4, 5), consts=consts), tmp_path)
    assert "GELU" not in opcodes(imported)


def test_two_gelu_chains_in_one_graph(tmp_path):
    """An erf chain feeding a tanh chain: the first one's output is read by the second."""
    renamed = {"x": "y", "k": "k2", "u": "u2", "t": "t2", "cube": "cube2", "e": "e2", "a": "a2",
               "p": "p2", "y": "y2"}  # fmt: skip
    second = [
        helper.make_node(n.op_type, [renamed.get(v, v) for v in n.input], [renamed[n.output[0]]])
        for n in tanh_chain("pow")
    ]
    imported = check(chain_model(erf_chain("x_a_then_half") + second, outputs=("y2",)), tmp_path)
    assert opcodes(imported) == ["GELU", "GELU"]


@pytest.mark.parametrize("swapped", [False, True])
def test_x_times_hard_sigmoid_is_one_hard_swish(swapped, tmp_path):
    nodes = [
        helper.make_node("HardSigmoid", ["x"], ["h"], alpha=1 / 6, beta=0.5),
        mul("h", "x", "y") if swapped else mul("x", "h", "y"),
    ]
    imported = check(chain_model(nodes, RANKS[2], opset=13), tmp_path, inputs=wide(RANKS[2]))
    assert opcodes(imported) == ["HARD_SWISH"]
    assert imported.main.operators[0].origin == frozenset({0, 1})


def test_x_times_other_hard_sigmoid_is_not_hard_swish(tmp_path):
    nodes = [helper.make_node("HardSigmoid", ["x"], ["h"]), mul("x", "h", "y")]
    imported = check(chain_model(nodes, opset=13), tmp_path, inputs=wide(RANKS[1]))
    assert "HARD_SWISH" not in opcodes(imported)


# -- Softmax --------------------------------------------------------------------------------


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize(
    ("shape", "axis", "transposes"),
    [(RANKS[0], -1, 0), (RANKS[1], 1, 2), (RANKS[2], 2, 2), (RANKS[2], -1, 0), (RANKS[0], 0, 2)],
)
def test_softmax_13(op_type, shape, axis, transposes, tmp_path):
    model = one_node(op_type, shape, opset=13, axis=axis)
    imported = check(model, tmp_path, inputs=wide(shape))
    assert opcodes(imported).count("TRANSPOSE") == transposes
    core = [op for op in imported.main.operators if op.opcode in ("SOFTMAX", "LOG_SOFTMAX")]
    assert len(core) == 1
    if op_type == "Softmax":
        assert core[0].options.beta == 1.0


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize(
    ("shape", "axis"),
    [
        (RANKS[1], None),  # the default axis 1: flattened to [N, 60]
        (RANKS[2], 2),
        (RANKS[1], 3),  # the last axis: no reshape
        (RANKS[0], 0),  # everything in one row
        ([2, 3, "W"], 1),  # an unknown inner dim: [2, -1]
        ([2, 3, 4, 5], 2),
    ],
)
@pytest.mark.parametrize("opset", [9, 11])
def test_softmax_before_13_flattens_at_axis(op_type, shape, axis, opset, tmp_path):
    attrs = {} if axis is None else {"axis": axis}
    model = one_node(op_type, shape, opset=opset, **attrs)
    feed = floats(*[2 if isinstance(d, str) else d for d in shape], scale=3)
    imported = check(model, tmp_path, inputs=[feed])
    assert "TRANSPOSE" not in opcodes(imported)
    assert ("RESHAPE" in opcodes(imported)) == (axis != len(shape) - 1)


def test_softmax_before_13_with_unknown_dims_on_both_sides(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(one_node("Softmax", ["N", 3, "W"], opset=11, axis=1), str(path))
    with pytest.raises(OnnxImportError, match=r"Softmax 'softmax' \(opset 11\): dimension 2 of "
                       r"'x' must be known$"):  # fmt: skip
        import_onnx(str(path))
