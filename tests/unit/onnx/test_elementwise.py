"""Element-wise converters (onnx-import.md §6.1): arithmetic, Pow, Max/Min/Sum/Mean, Mod,
unary math, logic, comparisons, Where, Cast/CastLike; onnxruntime vs LiteRT on each graph."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from one_cmds.frontends.onnx import import_onnx
from one_cmds.frontends.onnx.errors import OnnxImportError
from support.onnx_check import check
from support.onnx_graphs import BOOL, FLOAT, INT32, INT64, graph_model, node_model, opcodes

RNG = np.random.default_rng(0)
# (x shape, y shape): ranks 3 to 5 with a dynamic batch, broadcasting both ways.
SHAPES = [(["N", 4, 5], [5]), (["N", 3, 4, 5], [3, 1, 5]), (["N", 2, 3, 4, 5], [1, 3, 4, 1])]


def ints(shape, low=-20, high=20, dtype=np.int64, nonzero=False):
    """Random integers, optionally with no zero (divisors)."""
    values = RNG.integers(low, high, shape)
    if nonzero:
        values[values == 0] = 3
    return values.astype(dtype)


def bools(*shape):
    return RNG.random(shape) > 0.5


def floats(*shape, scale=1.0):
    return (RNG.uniform(-1, 1, shape) * scale).astype(np.float32)


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("shapes", SHAPES, ids=["rank3", "rank4", "rank5"])
def test_arithmetic_broadcasts(op_type, shapes, tmp_path):
    x_shape, y_shape = shapes
    model = node_model(op_type, ["x", "y"], {"x": (FLOAT, x_shape), "y": (FLOAT, y_shape)})
    assert opcodes(check(model, tmp_path)) == [op_type.upper()]


def test_arithmetic_with_a_constant_first_operand(tmp_path):
    c = floats(4, 1)
    model = node_model("Sub", ["c", "x"], {"x": (FLOAT, ["N", 4, 5])}, {"c": c}, opset=13)
    check(model, tmp_path)


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("dtype", [INT64, INT32])
def test_integer_arithmetic_truncates_like_onnx(op_type, dtype, tmp_path):
    np_type = helper.tensor_dtype_to_np_dtype(dtype)
    model = node_model(
        op_type, ["x", "y"], {"x": (dtype, [2, 3, 4]), "y": (dtype, [4])}, out=dtype, opset=14
    )
    feeds = [ints((2, 3, 4), dtype=np_type), ints(4, -7, 7, np_type, nonzero=True)]
    check(model, tmp_path, inputs=feeds)


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul", "Div", "Less", "Mod"])
@pytest.mark.parametrize("dtype", [TensorProto.INT8, TensorProto.UINT8, TensorProto.INT16])
def test_narrow_integers_compute_in_int32(op_type, dtype, tmp_path):
    """TFLite reads INT8/UINT8/INT16 arithmetic as quantized (ADD of INT8 crashes): INT32
    inside, cast back, wrapping around as onnxruntime does."""
    np_type = helper.tensor_dtype_to_np_dtype(dtype)
    out = BOOL if op_type == "Less" else dtype
    inputs = {"x": (dtype, ["N", 3, 4]), "y": (dtype, [4])}
    model = node_model(op_type, ["x", "y"], inputs, out=out, opset=14)
    info = np.iinfo(np_type)
    x = RNG.integers(info.min, info.max, (2, 3, 4), endpoint=True).astype(np_type)
    y = np.array([1, 3, 7, 100], np_type)
    check(model, tmp_path, inputs=[x, y])


@pytest.mark.parametrize(
    ("exponent", "expected"),
    [(2.0, ["MUL"]), (0.5, ["SQRT"]), (3.0, ["POW"]), (-1.5, ["POW"])],
)
def test_pow_by_a_constant(exponent, expected, tmp_path):
    model = node_model(
        "Pow", ["x", "e"], {"x": (FLOAT, ["N", 3, 4, 5])}, {"e": np.float32(exponent)}
    )
    feeds = [np.abs(floats(2, 3, 4, 5)) + 0.1]
    assert opcodes(check(model, tmp_path, inputs=feeds)) == expected


def test_pow_by_a_broadcasting_constant_keeps_pow(tmp_path):
    """An exponent of 2 that raises the rank is not MUL(x, x)."""
    e = np.full((1, 1, 1, 1), 2.0, np.float32)
    model = node_model("Pow", ["x", "e"], {"x": (FLOAT, ["N", 4, 5])}, {"e": e})
    assert opcodes(check(model, tmp_path)) == ["POW"]


def test_pow_exponent_of_another_type(tmp_path):
    """Pow-12: an INT64 exponent of a float base is cast to the base's type."""
    model = node_model("Pow", ["x", "e"], {"x": (FLOAT, ["N", 4, 5]), "e": (INT64, [5])}, opset=12)
    check(model, tmp_path, inputs=[floats(2, 4, 5), ints(5, 0, 4)])


@pytest.mark.parametrize("exponent", [np.int64(3), np.float32(1.5)])
def test_integer_pow(exponent, tmp_path):
    model = node_model(
        "Pow", ["x", "e"], {"x": (INT64, [2, 3, 4])}, {"e": exponent}, out=INT64, opset=15
    )
    check(model, tmp_path, inputs=[ints((2, 3, 4), 0, 9)])


@pytest.mark.parametrize(
    ("op_type", "opcode"), [("Max", "MAXIMUM"), ("Min", "MINIMUM"), ("Sum", "ADD"), ("Mean", "ADD")]
)
@pytest.mark.parametrize("opset", [9, 13])
def test_variadic_chains(op_type, opcode, opset, tmp_path):
    inputs = {"a": (FLOAT, ["N", 3, 4, 5]), "b": (FLOAT, [3, 1, 5]), "c": (FLOAT, [5])}
    imported = check(node_model(op_type, ["a", "b", "c"], inputs, opset=opset), tmp_path)
    expected = [opcode, opcode] + (["MUL"] if op_type == "Mean" else [])
    assert opcodes(imported) == expected


@pytest.mark.parametrize("op_type", ["Max", "Min", "Sum", "Mean"])
def test_variadic_of_one_input_is_the_input(op_type, tmp_path):
    model = node_model(op_type, ["a"], {"a": (FLOAT, ["N", 4, 5])}, opset=13)
    imported = check(model, tmp_path)
    assert opcodes(imported) == ["SHAPE", "RESHAPE"]  # an output that is an input (§9)
    assert [t.name for t in imported.main.inputs] == ["a"]


def test_integer_max_min(tmp_path):
    nodes = [
        helper.make_node("Max", ["a", "b"], ["m"]),
        helper.make_node("Min", ["m", "c"], ["y"]),
    ]
    model = graph_model(
        nodes,
        {"a": (INT64, [2, 3]), "b": (INT64, [3]), "c": (INT64, [2, 1])},
        {"y": INT64},
        opset=13,
    )
    check(model, tmp_path, inputs=[ints((2, 3)), ints(3), ints((2, 1))])


@pytest.mark.parametrize("dtype", [INT64, INT32])
@pytest.mark.parametrize("fmod", [0, 1])
def test_integer_mod(dtype, fmod, tmp_path):
    np_type = helper.tensor_dtype_to_np_dtype(dtype)
    model = node_model(
        "Mod",
        ["x", "y"],
        {"x": (dtype, ["N", 3, 4]), "y": (dtype, [4])},
        out=dtype,
        opset=13,
        fmod=fmod,
    )
    feeds = [ints((2, 3, 4), dtype=np_type), ints(4, -7, 7, np_type, nonzero=True)]
    imported = check(model, tmp_path, inputs=feeds)
    assert ("FLOOR_MOD" in opcodes(imported)) == (fmod == 0)


@pytest.mark.parametrize("opset", [10, 13])
def test_float_fmod(opset, tmp_path):
    model = node_model(
        "Mod", ["x", "y"], {"x": (FLOAT, ["N", 3, 4, 5]), "y": (FLOAT, [5])}, opset=opset, fmod=1
    )
    divisors = np.array([0.3, -0.7, 1.1, -2.0, 0.45], np.float32)
    check(model, tmp_path, inputs=[floats(2, 3, 4, 5, scale=5), divisors])


@pytest.mark.parametrize(
    "op_type", ["Sqrt", "Exp", "Log", "Neg", "Abs", "Floor", "Ceil", "Sin", "Cos", "Reciprocal"]
)
@pytest.mark.parametrize("shape", [["N", 4, 5], ["N", 3, 4, 5], ["N", 2, 3, 4, 5]])
def test_unary_math(op_type, shape, tmp_path):
    feeds = [floats(2, *shape[1:], scale=3)]
    if op_type in ("Sqrt", "Log", "Reciprocal"):
        feeds = [np.abs(feeds[0]) + 0.05]
    imported = check(node_model(op_type, ["x"], {"x": (FLOAT, shape)}), tmp_path, inputs=feeds)
    assert opcodes(imported) == [op_type.upper() if op_type != "Reciprocal" else "DIV"]


def test_round_half_to_even(tmp_path):
    x = np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51]], np.float32)
    model = node_model("Round", ["x"], {"x": (FLOAT, ["N", 8])})
    check(model, tmp_path, inputs=[x])


@pytest.mark.parametrize("op_type", ["Neg", "Abs"])
def test_integer_unary(op_type, tmp_path):
    model = node_model(op_type, ["x"], {"x": (INT64, ["N", 3, 4])}, out=INT64, opset=13)
    check(model, tmp_path, inputs=[ints((2, 3, 4))])


@pytest.mark.parametrize(
    ("op_type", "opcode"),
    [("And", "LOGICAL_AND"), ("Or", "LOGICAL_OR"), ("Xor", "NOT_EQUAL")],
)
def test_logical_binaries(op_type, opcode, tmp_path):
    model = node_model(
        op_type, ["a", "b"], {"a": (BOOL, ["N", 3, 4, 5]), "b": (BOOL, [3, 1, 5])}, out=BOOL
    )
    imported = check(model, tmp_path, inputs=[bools(2, 3, 4, 5), bools(3, 1, 5)])
    assert opcodes(imported) == [opcode]


def test_not(tmp_path):
    model = node_model("Not", ["a"], {"a": (BOOL, ["N", 4, 5])}, out=BOOL)
    assert opcodes(check(model, tmp_path, inputs=[bools(2, 4, 5)])) == ["LOGICAL_NOT"]


COMPARISONS = ["Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"]


@pytest.mark.parametrize("op_type", COMPARISONS)
@pytest.mark.parametrize("shapes", SHAPES, ids=["rank3", "rank4", "rank5"])
def test_integer_comparisons(op_type, shapes, tmp_path):
    x_shape, y_shape = shapes
    inputs = {"x": (INT64, x_shape), "y": (INT64, y_shape)}
    feeds = [ints((2, *x_shape[1:]), -3, 3), ints(y_shape, -3, 3)]
    imported = check(node_model(op_type, ["x", "y"], inputs, out=BOOL), tmp_path, inputs=feeds)
    assert imported.main.operators[-1].outputs[0].dtype == "BOOL"


# The first opset with float operands, then the versions that change the op.
FLOAT_COMPARISONS = [("Equal", 11), ("Equal", 19), ("Greater", 9), ("Greater", 13),
                     ("GreaterOrEqual", 12), ("GreaterOrEqual", 16), ("Less", 9),
                     ("Less", 13), ("LessOrEqual", 12), ("LessOrEqual", 16)]  # fmt: skip


@pytest.mark.parametrize(("op_type", "opset"), FLOAT_COMPARISONS)
def test_float_comparisons(op_type, opset, tmp_path):
    y = np.array([0.5, -0.25, 0.0, 0.75, -1.0], np.float32)
    model = node_model(op_type, ["x", "y"], {"x": (FLOAT, ["N", 4, 5])}, {"y": y}, out=BOOL,
                       opset=opset)  # fmt: skip
    x = np.tile(y, (2, 4, 1))
    x[:, 1:] = floats(2, 3, 5)  # ties in row 0
    check(model, tmp_path, inputs=[x])


def test_bool_equal(tmp_path):
    model = node_model(
        "Equal", ["a", "b"], {"a": (BOOL, ["N", 5]), "b": (BOOL, [5])}, out=BOOL, opset=11
    )
    check(model, tmp_path, inputs=[bools(3, 5), bools(5)])


@pytest.mark.parametrize("opset", [9, 16])
def test_where_broadcasts(opset, tmp_path):
    inputs = {"c": (BOOL, [3, 1, 5]), "x": (FLOAT, ["N", 2, 3, 4, 5]), "y": (FLOAT, [4, 1])}
    model = node_model("Where", ["c", "x", "y"], inputs, opset=opset)
    feeds = [bools(3, 1, 5), floats(2, 2, 3, 4, 5), floats(4, 1)]
    assert opcodes(check(model, tmp_path, inputs=feeds)) == ["SELECT_V2"]


def test_where_of_integers_with_a_constant_branch(tmp_path):
    inputs = {"c": (BOOL, ["N", 4]), "x": (INT64, ["N", 4])}
    model = node_model("Where", ["c", "x", "z"], inputs, {"z": np.int64(-1)}, out=INT64)
    check(model, tmp_path, inputs=[bools(2, 4), ints((2, 4))])


@pytest.mark.parametrize(
    ("source", "target", "feed"),
    [
        (FLOAT, INT64, floats(2, 3, 4, scale=20)),
        (FLOAT, INT32, floats(2, 3, 4, scale=20)),
        (INT64, FLOAT, ints((2, 3, 4))),
        (FLOAT, BOOL, np.round(floats(2, 3, 4))),
        (BOOL, FLOAT, bools(2, 3, 4)),
        (INT32, INT64, ints((2, 3, 4), dtype=np.int32)),
        (FLOAT, TensorProto.UINT8, np.abs(floats(2, 3, 4, scale=100))),
    ],
)
@pytest.mark.parametrize("opset", [9, 13, 21])
def test_cast(source, target, feed, opset, tmp_path):
    model = node_model("Cast", ["x"], {"x": (source, ["N", 3, 4])}, out=target, to=target,
                       opset=opset)  # fmt: skip
    check(model, tmp_path, inputs=[feed])


def test_cast_between_types_equal_inside_is_nothing(tmp_path):
    model = node_model("Cast", ["x"], {"x": (INT32, ["N", 3])}, out=INT64, to=INT64)
    imported = check(model, tmp_path, inputs=[ints((2, 3), dtype=np.int32)])
    assert opcodes(imported) == ["CAST"]  # the INT64 output's boundary CAST only
    assert [t.name for t in imported.main.inputs] == ["x"]


def test_cast_like(tmp_path):
    inputs = {"x": (FLOAT, ["N", 3, 4]), "like": (INT64, [1])}
    model = node_model("CastLike", ["x", "like"], inputs, out=INT64, opset=15)
    check(model, tmp_path, inputs=[floats(2, 3, 4, scale=9), ints(1)])


def test_cast_to_float16_inside_is_an_identity_with_one_warning(tmp_path):
    f16 = TensorProto.FLOAT16
    nodes = [
        helper.make_node("Cast", ["x"], ["h"], to=f16, name="to_half"),
        helper.make_node("Cast", ["h"], ["g"], to=TensorProto.BFLOAT16, name="to_bf16"),
        helper.make_node("Cast", ["g"], ["y"], to=FLOAT, name="back"),
    ]
    model = graph_model(nodes, {"x": (FLOAT, ["N", 3, 4])}, {"y": FLOAT})
    # ORT rounds to float16 and bfloat16 (8 significant bits): FLOAT16 tolerance of §10 is not
    # enough for bfloat16, whose relative step is 2^-8.
    imported = check(model, tmp_path, rtol=1e-2, atol=1e-2)
    assert "CAST" not in opcodes(imported)  # the output is the input (reshaped, §9)
    warnings: list[str] = []
    path = tmp_path / "model.onnx"
    import_onnx(str(path), warn=warnings.append)
    assert warnings == ["Cast 'to_half' to FLOAT16 is computed in FLOAT32"]


def test_cast_to_an_unsupported_type(tmp_path):
    model = node_model("Cast", ["x"], {"x": (FLOAT, [3])}, out=TensorProto.STRING,
                       to=TensorProto.STRING)  # fmt: skip
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    with pytest.raises(OnnxImportError) as e:
        import_onnx(str(path))
    assert str(e.value) == (
        "Unsupported ONNX operators (1): Cast 'cast' (opset 17): to 'STRING' is not supported"
    )


def _specials(*shape):
    """Floats with NaN, +inf and -inf among them."""
    x = floats(*shape, scale=3.0)
    x.reshape(-1)[::5] = np.nan
    x.reshape(-1)[1::7] = np.inf
    x.reshape(-1)[2::7] = -np.inf
    return x


@pytest.mark.parametrize("opset", [13, 20])
def test_is_nan(opset, tmp_path):
    """What the dynamo exporter writes for Hugging Face decoders' masks (issue 17)."""
    model = node_model("IsNaN", ["x"], {"x": (FLOAT, ["N", 4, 6])}, opset=opset, out=BOOL)
    assert opcodes(check(model, tmp_path, inputs=[_specials(2, 4, 6)])) == ["NOT_EQUAL"]


@pytest.mark.parametrize(("positive", "negative"), [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_is_inf(positive, negative, tmp_path):
    model = node_model(
        "IsInf", ["x"], {"x": (FLOAT, [3, 10])}, opset=20, out=BOOL,
        detect_positive=positive, detect_negative=negative,
    )  # fmt: skip
    check(model, tmp_path, inputs=[_specials(3, 10)])
