"""The layout pass (onnx-import.md §5.3–§5.5): ONNX graphs judged by onnxruntime vs LiteRT
with the §5.5 TRANSPOSE counts, and the rules on hand-built IR graphs judged by LiteRT
before and after the pass."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import helper

from one_cmds import resize, save
from one_cmds.frontends.onnx import OnnxOptions, import_onnx
from one_cmds.frontends.onnx.layout import arrange_layout, kept_transposes
from one_cmds.frontends.onnx.ops.common import CHANNELS_FIRST, CHANNELS_LAST
from one_cmds.shape import infer_shapes
from support.litert import run_tflite
from support.onnx_check import check, close, onnx_inputs, run_onnxruntime
from support.onnx_graphs import FLOAT, graph_model
from support.passes import Net, assert_same_outputs, fc_options, kinds, new_options

# -- ONNX graphs ------------------------------------------------------------------------------


class Builder:
    """An ONNX graph under construction: nodes named ``<op><k>``, random constants."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.nodes: list[onnx.NodeProto] = []
        self.consts: dict[str, np.ndarray] = {}

    def node(self, op_type: str, inputs: list[str], outputs: int = 1, **attrs) -> str | list[str]:
        name = f"{op_type.lower()}{len(self.nodes)}"
        outs = [name] if outputs == 1 else [f"{name}_{k}" for k in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, value, dtype=np.float32) -> str:
        name = f"c{len(self.consts)}"
        self.consts[name] = np.asarray(value, dtype)
        return name

    def random(self, *shape: int) -> str:
        return self.const(self.rng.uniform(-1, 1, shape))

    def conv(self, x: str, cin: int, cout: int, k: int = 3, group: int = 1, **attrs) -> str:
        attrs.setdefault("pads", [k // 2] * 4)
        w, b = self.random(cout, cin // group, k, k), self.random(cout)
        return self.node("Conv", [x, w, b], group=group, **attrs)

    def batchnorm(self, x: str, c: int) -> str:
        scale, bias, mean = self.random(c), self.random(c), self.random(c)
        var = self.const(self.rng.uniform(0.5, 1.5, c))
        return self.node("BatchNormalization", [x, scale, bias, mean, var])

    def head(self, x: str, c: int, classes: int = 5) -> str:
        """GlobalAveragePool → Flatten → Gemm."""
        pooled = self.node("Flatten", [self.node("GlobalAveragePool", [x])])
        return self.node("Gemm", [pooled, self.random(classes, c), self.random(classes)], transB=1)

    def model(self, inputs: dict, outputs: list[str]) -> onnx.ModelProto:
        return graph_model(self.nodes, inputs, dict.fromkeys(outputs, FLOAT), self.consts)


IMAGE = {"x": (FLOAT, ["N", 3, 12, 12])}


def transposes(model) -> list:
    return [op for op in model.main.operators if op.opcode == "TRANSPOSE"]


def reads_input(model, op) -> bool:
    return any(op.inputs[0] is t for t in model.main.inputs)


def assert_one_transpose_at_the_input(model) -> None:
    left = transposes(model)
    assert len(left) == 1 and reads_input(model, left[0]), kinds(model)


def check_channels_last(model, tmp_path, options: OnnxOptions):
    """Import with channels-last I/O options; LiteRT fed the NHWC inputs (rank-4 outputs read
    back as NCHW when the output option is on) must match onnxruntime fed NCHW."""
    path = os.path.join(str(tmp_path), "model.onnx")
    onnx.save(model, path)
    feeds = onnx_inputs(model)
    expected = run_onnxruntime(path, feeds)
    imported = import_onnx(path, options)
    if options.nchw_to_nhwc_input_shape:
        feeds = [f.transpose(CHANNELS_LAST[f.ndim]) for f in feeds]
    tflite = os.path.join(str(tmp_path), "model.tflite")
    save(resize(imported, ",".join(f"[{','.join(map(str, f.shape))}]" for f in feeds)), tflite)
    for e, g in zip(expected, run_tflite(tflite, feeds), strict=True):
        if options.nchw_to_nhwc_output_shape and g.ndim in CHANNELS_FIRST:
            g = g.transpose(CHANNELS_FIRST[g.ndim])
        assert close(e, g, 1e-4, 1e-4)
    return imported


def plain_cnn() -> onnx.ModelProto:
    """Conv (7x7 stride 2 pads 3: a PAD first) → BN → Relu → MaxPool → Conv → Relu →
    depthwise Conv → GAP → Flatten → Gemm."""
    b = Builder()
    y = b.node("Relu", [b.batchnorm(b.conv("x", 3, 8, k=7, strides=[2, 2]), 8)])
    y = b.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])
    y = b.node("Relu", [b.conv(y, 8, 8)])
    y = b.conv(y, 8, 8, group=8, strides=[2, 2])
    return b.model(IMAGE, [b.head(y, 8)])


def test_plain_cnn_keeps_one_transpose_at_the_input(tmp_path):
    imported = check(plain_cnn(), tmp_path)
    assert_one_transpose_at_the_input(imported)
    (first,) = transposes(imported)
    assert first.outputs[0].shape == (None, 12, 12, 3)
    assert [op.opcode for op in imported.main.operators if first.outputs[0] in op.inputs] == ["PAD"]


def test_plain_cnn_without_transposes_with_channels_last_input(tmp_path):
    """The rank-2 output is left alone by ``nchw_to_nhwc_output_shape``."""
    options = OnnxOptions(nchw_to_nhwc_input_shape=True, nchw_to_nhwc_output_shape=True)
    imported = check_channels_last(plain_cnn(), tmp_path, options)
    assert transposes(imported) == []
    assert [(t.name, t.shape) for t in imported.main.inputs] == [("x", (None, 12, 12, 3))]
    assert [t.shape for t in imported.main.outputs] == [(None, 5)]


def residual_net() -> onnx.ModelProto:
    """Two residual blocks (one with a projection), the output an NCHW feature map."""
    b = Builder()
    a = b.node("Relu", [b.conv("x", 3, 8)])
    y = b.batchnorm(b.conv(b.node("Relu", [b.conv(a, 8, 8)]), 8, 8), 8)
    a = b.node("Relu", [b.node("Add", [y, a])])
    y = b.conv(b.node("Relu", [b.conv(a, 8, 4)]), 4, 4)
    shortcut = b.conv(a, 8, 4, k=1)
    return b.model(IMAGE, [b.node("Relu", [b.node("Add", [shortcut, y])])])


def test_residual_adds_leave_one_transpose_per_image_io(tmp_path):
    imported = check(residual_net(), tmp_path)
    left = transposes(imported)
    assert len(left) == 2
    assert reads_input(imported, left[0])
    assert left[1].outputs[0] is imported.main.outputs[0]
    assert left[1].inputs[0].name == f"{imported.main.outputs[0].name}_nhwc"


def test_channels_last_io_removes_the_io_transposes(tmp_path):
    options = OnnxOptions(nchw_to_nhwc_input_shape=True, nchw_to_nhwc_output_shape=True)
    imported = check_channels_last(residual_net(), tmp_path, options)
    assert transposes(imported) == []
    out = imported.main.outputs[0]
    assert out.shape == (None, 12, 12, 4)
    assert imported.signature_defs[0].outputs[0][1] is out


def test_channels_last_output_only(tmp_path):
    imported = check_channels_last(
        residual_net(), tmp_path, OnnxOptions(nchw_to_nhwc_output_shape=True)
    )
    (left,) = transposes(imported)
    assert reads_input(imported, left)
    assert [t.name for t in imported.main.outputs] == [residual_net().graph.output[0].name]


def between_convs(middle) -> onnx.ModelProto:
    """Conv → Relu → ``middle(builder, y)`` → Conv → head, 8 channels."""
    b = Builder()
    y = middle(b, b.node("Relu", [b.conv("x", 3, 8)]))
    return b.model(IMAGE, [b.head(b.conv(y, 8, 8), 8)])


def squeeze_excitation(b: Builder, y: str) -> str:
    """y · σ(conv(relu(conv(mean(y)))))."""
    squeezed = b.node("ReduceMean", [y], axes=[2, 3], keepdims=1)
    s = b.node("Sigmoid", [b.conv(b.node("Relu", [b.conv(squeezed, 8, 2, k=1)]), 2, 8, k=1)])
    return b.node("Mul", [y, s])


def paddle_excitation(b: Builder, y: str) -> str:
    """Paddle's squeeze-excitation: the 1x1 Convs' biases as Adds of [1, C, 1, 1] constants."""
    squeezed = b.node("ReduceMean", [y], axes=[2, 3], keepdims=1)
    hidden = b.node("Conv", [squeezed, b.random(2, 8, 1, 1)])
    hidden = b.node("Relu", [b.node("Add", [hidden, b.random(1, 2, 1, 1)])])
    s = b.node("Add", [b.node("Conv", [hidden, b.random(8, 2, 1, 1)]), b.random(1, 8, 1, 1)])
    return b.node("Mul", [y, b.node("Sigmoid", [s])])


def gemm_excitation(b: Builder, y: str) -> str:
    """y · unsqueeze(σ(gemm(relu(gemm(mean(y)))))): the excitation is computed on [N, C]."""
    pooled = b.node("ReduceMean", [y], axes=[2, 3], keepdims=0)
    hidden = b.node("Relu", [b.node("Gemm", [pooled, b.random(2, 8), b.random(2)], transB=1)])
    s = b.node("Sigmoid", [b.node("Gemm", [hidden, b.random(8, 2), b.random(8)], transB=1)])
    return b.node("Mul", [y, b.node("Unsqueeze", [s, b.const([2, 3], np.int64)])])


@pytest.mark.parametrize("excitation", [squeeze_excitation, paddle_excitation])
def test_squeeze_excitation_sinks(tmp_path, excitation):
    """The excitation is [N, C, 1, 1]: its layout changes are RESHAPEs, which the pass moves
    like TRANSPOSEs, so none is left between the 1x1 Convs (one RESHAPE: the head's Flatten)."""
    imported = check(between_convs(excitation), tmp_path)
    assert_one_transpose_at_the_input(imported)
    assert kinds(imported).count("RESHAPE") == 1


def test_squeeze_excitation_with_gemm_gets_a_side_reshape(tmp_path):
    """The [N, C, 1, 1] excitation is read through a RESHAPE to [N, 1, 1, C]."""
    imported = check(between_convs(gemm_excitation), tmp_path)
    assert_one_transpose_at_the_input(imported)
    mul = next(op for op in imported.main.operators if op.opcode == "MUL")
    side = [op for op in imported.main.operators if op.outputs[0] in mul.inputs]
    assert "RESHAPE" in [op.opcode for op in side]


def test_concat_on_channels(tmp_path):
    b = Builder()
    a, c = b.conv("x", 3, 4), b.node("Relu", [b.conv("x", 3, 6, k=1)])
    y = b.conv(b.node("Concat", [a, c], axis=1), 10, 4)
    imported = check(b.model(IMAGE, [b.head(y, 4)]), tmp_path)
    assert_one_transpose_at_the_input(imported)
    (concat,) = [op for op in imported.main.operators if op.opcode == "CONCATENATION"]
    assert concat.options.axis == 3


def test_global_pool_without_keepdims_then_gemm(tmp_path):
    b = Builder()
    y = b.node("ReduceMean", [b.conv("x", 3, 8)], axes=[2, 3], keepdims=0)
    y = b.node("Gemm", [y, b.random(4, 8), b.random(4)], transB=1)
    assert_one_transpose_at_the_input(check(b.model(IMAGE, [y]), tmp_path))


def test_vit_patch_flatten_is_one_reshape(tmp_path):
    """Conv patches → Reshape [N, D, hw] → Transpose [0, 2, 1]: one RESHAPE of the NHWC
    patches."""
    b = Builder()
    patches = b.conv("x", 3, 16, k=4, strides=[4, 4], pads=[0, 0, 0, 0])
    tokens = b.node("Reshape", [patches, b.const([0, 16, -1], np.int64)])
    tokens = b.node("Transpose", [tokens], perm=[0, 2, 1])
    y = b.node("MatMul", [tokens, b.random(16, 8)])
    imported = check(b.model(IMAGE, [y]), tmp_path)
    assert_one_transpose_at_the_input(imported)
    conv = next(op for op in imported.main.operators if op.opcode == "CONV_2D")
    reader = [op for op in imported.main.operators if conv.outputs[0] in op.inputs]
    assert [op.opcode for op in reader] == ["RESHAPE"]


@pytest.mark.parametrize("batch", [1, "N"])
def test_channel_shuffle_becomes_a_rank3_transpose(tmp_path, batch):
    b = Builder()
    y = b.conv("x", 3, 8)
    y = b.node("Reshape", [y, b.const([-1, 2, 4, 12, 12], np.int64)])
    y = b.node("Transpose", [y], perm=[0, 2, 1, 3, 4])
    y = b.node("Reshape", [y, b.const([-1, 8, 12, 12], np.int64)])
    y = b.conv(y, 8, 4)
    imported = check(b.model({"x": (FLOAT, [batch, 3, 12, 12])}, [b.head(y, 4)]), tmp_path)
    first, shuffle = transposes(imported)
    assert reads_input(imported, first)
    assert len(shuffle.outputs[0].shape) == 3


@pytest.mark.parametrize("side", ["a", "b"])
def test_transposed_matmul_operand_becomes_an_adjoint(tmp_path, side):
    b = Builder()
    shapes = {"a": [2, 8, 4], "b": [2, 8, 6]} if side == "a" else {"a": [2, 4, 8], "b": [2, 6, 8]}
    operand = b.node("Transpose", [side], perm=[0, 2, 1])
    y = b.node("MatMul", [operand, "b"] if side == "a" else ["a", operand])
    inputs = {k: (FLOAT, v) for k, v in shapes.items()}
    imported = check(b.model(inputs, [y]), tmp_path)
    assert transposes(imported) == []
    (matmul,) = imported.main.operators
    assert (matmul.options.adjointLhs, matmul.options.adjointRhs) == (side == "a", side == "b")


def test_disabled_propagation_keeps_every_transpose(tmp_path):
    lines: list[str] = []
    path = str(tmp_path / "m.onnx")
    onnx.save(plain_cnn(), path)
    options = OnnxOptions(disable_transpose_propagation=True)
    n = len(transposes(import_onnx(path, options, note=lines.append)))
    barriers = n - 1
    assert lines[-1] == (
        f"transposes: {n} lowered, 0 removed, {n} left (1 at inputs, 0 at outputs, "
        f"{barriers} at barriers)"
    )
    check(plain_cnn(), tmp_path, options=options)


def test_summary_line_and_origins(tmp_path):
    lines: list[str] = []
    path = str(tmp_path / "m.onnx")
    onnx.save(residual_net(), path)
    imported = import_onnx(path, note=lines.append)
    lowered = int(lines[-1].split()[1])
    assert lines[-1] == (
        f"transposes: {lowered} lowered, {lowered - 2} removed, 2 left "
        "(1 at inputs, 1 at outputs, 0 at barriers)"
    )
    first, last = transposes(imported)
    assert imported.source_table[min(first.origin)] == "conv0"
    names = {imported.source_table[k] for k in last.origin}
    assert names and all(name.startswith("conv") for name in names)


# -- the rules on IR graphs ------------------------------------------------------------------

SHAPE = (2, 3, 4, 5)
NHWC = (0, 2, 3, 1)


def arranged(build):
    """``build(net)`` twice: one model as built, one after the pass; LiteRT runs both alike.
    Returns the arranged model and the summary line."""
    before, after = _built(build), _built(build)
    line = arrange_layout(after, OnnxOptions())
    infer_shapes(after)
    assert_same_outputs(before, after)
    return after, line


def _built(build):
    net = Net()
    net.outputs(*build(net))
    return net.model()


def sunk(model) -> bool:
    """Whether the operator after RELU reads it directly (the TRANSPOSE sank below it)."""
    relu = next(op for op in model.main.operators if op.opcode == "RELU")
    return all(
        op.opcode != "TRANSPOSE" for op in model.main.operators if relu.outputs[0] in op.inputs
    )


def through(
    opcode, operands=(), options=None, outputs=1, perm=NHWC, shape=SHAPE, used=None, **extra
):
    """x → RELU → TRANSPOSE(perm) → opcode(·, *operands) → its first ``used`` outputs (all
    by default) are the graph outputs."""

    def build(net):
        x = net.op("RELU", [net.input("x", shape)])
        t = net.transpose(x, perm, "t")
        made = [
            net.const(f"k{i}", v) if isinstance(v, np.ndarray) else v
            for i, v in enumerate(operands)
        ]
        y = net.op(opcode, [t, *made], options, outputs=outputs, **extra)
        return y[:used] if isinstance(y, list) else [y]

    return build


def reducer(keep):
    return new_options("ReducerOptions", keepDims=keep)


I32 = np.int32


def _split(net):
    """Both outputs transposed back: the sink removes every TRANSPOSE."""
    x = net.op("RELU", [net.input("x", SHAPE)])
    t = net.transpose(x, NHWC, "t")
    parts = net.op(
        "SPLIT",
        [net.const("axis", np.array(1, I32)), t],
        new_options("SplitOptions", numSplits=2),
        outputs=2,
    )
    return [net.transpose(part, (0, 3, 1, 2), f"back{k}") for k, part in enumerate(parts)]


def _select(net):
    """SELECT_V2(cond [3], t, 0.5): the transposed value is the second operand."""
    t = net.transpose(net.op("RELU", [net.input("x", SHAPE)]), NHWC, "t")
    cond = net.const("cond", np.array([True, False, True]))
    return [net.op("SELECT_V2", [cond, t, net.const("half", np.float32(0.5))])]


CASES = {
    "mean_keep": through("MEAN", [np.array([1, 2], I32)], reducer(True)),
    "mean_drop_reorders": through("MEAN", [np.array([1], I32)], reducer(False)),
    "sum_last": through("SUM", [np.array([-1], I32)], reducer(False)),
    "reduce_max_all": through("REDUCE_MAX", [np.array([0, 1, 2, 3], I32)], reducer(False)),
    "arg_max": through(
        "ARG_MAX",
        [np.array([2], I32)],
        new_options("ArgMaxOptions", outputType=2),
        outputs=["INT32"],
    ),
    "concat_const": through(
        "CONCATENATION",
        [np.ones((2, 4, 5, 2), np.float32)],
        new_options("ConcatenationOptions", axis=-1),
    ),
    "add_const": through("ADD", [np.arange(3, dtype=np.float32)], new_options("AddOptions")),
    "prelu": through("PRELU", [np.array([[[0.1, 0.2, 0.3]]], np.float32)]),
    "split": _split,
    "split_v": through(
        "SPLIT_V",
        [np.array([1, 2], I32), np.array(3, I32)],
        new_options("SplitVOptions", numSplits=2),
        outputs=2,
    ),
    "gather_matrix": through(
        "GATHER", [np.array([[0, 4], [1, 3]], I32)], new_options("GatherOptions", axis=2)
    ),
    "gather_scalar": through("GATHER", [np.array(1, I32)], new_options("GatherOptions", axis=1)),
    "pad": through("PAD", [np.array([[0, 0], [1, 2], [0, 1], [2, 0]], I32)]),
    "mirror_pad": through(
        "MIRROR_PAD",
        [np.array([[0, 0], [1, 1], [0, 1], [1, 0]], I32)],
        new_options("MirrorPadOptions", mode=0),
    ),
    "padv2": through(
        "PADV2", [np.array([[1, 0], [0, 0], [0, 1], [1, 1]], I32), np.array(-2.0, np.float32)]
    ),
    "slice": through("SLICE", [np.array([0, 1, 1, 0], I32), np.array([2, 2, 3, 2], I32)]),
    "strided_slice": through(
        "STRIDED_SLICE",
        [np.array([0, 3, 1, 1], I32), np.array([1, 0, 5, 3], I32), np.array([1, -1, 2, 1], I32)],
        new_options("StridedSliceOptions", beginMask=0b0001, endMask=0b0010),
    ),
    "tile": through("TILE", [np.array([1, 2, 1, 3], I32)]),
    "cumsum": through("CUMSUM", [np.array(3, I32)], new_options("CumsumOptions", exclusive=True)),
    "reverse": through("REVERSE_V2", [np.array([1, 2], I32)]),
    "softmax": through("SOFTMAX", [], new_options("SoftmaxOptions", beta=1.0), perm=(2, 0, 1, 3)),
    "fully_connected": through(
        "FULLY_CONNECTED",
        [np.ones((6, 5), np.float32), None],
        fc_options(keep=True),
        perm=(1, 2, 0, 3),
    ),
    "log_softmax": through("LOG_SOFTMAX", [], perm=(1, 0, 2, 3)),
    "l2_normalization": through("L2_NORMALIZATION", [], perm=(2, 1, 0, 3)),
    "topk": through(
        "TOPK_V2", [np.array(2, I32)], perm=(1, 0, 2, 3), outputs=["FLOAT32", "INT32"], used=1
    ),
    "select": _select,
    "greater": through("GREATER", [np.zeros((5, 3), np.float32)], outputs=["BOOL"]),
    "broadcast_to": through(
        "BROADCAST_TO", [np.array([2, 4, 5, 3], I32)], shape=(2, 1, 4, 5), version=2
    ),
    "unit_axis_reshape": through("RESHAPE", [np.array([2, 4, 5], I32)], shape=(2, 1, 4, 5)),
    "squeeze": through(
        "SQUEEZE", [], new_options("SqueezeOptions", squeezeDims=[3]), shape=(2, 1, 4, 5)
    ),
    "expand_dims": through("EXPAND_DIMS", [np.array(2, I32)], shape=(2, 1, 4, 5)),
}


@pytest.mark.parametrize("case", CASES)
def test_pushable_operator_reads_the_untransposed_value(case):
    model, _ = arranged(CASES[case])
    assert sunk(model), kinds(model)


@pytest.mark.parametrize(
    "build",
    [
        through("SOFTMAX", [], new_options("SoftmaxOptions", beta=1.0)),  # the last axis moves
        through("FULLY_CONNECTED", [np.ones((6, 3), np.float32), None], fc_options(keep=False)),
        through(
            "BATCH_MATMUL", [np.ones((2, 4, 3, 2), np.float32)], new_options("BatchMatMulOptions")
        ),
        through("REVERSE_V2", [np.array([2, 3], I32)]),  # axes 3, 1 of x: not contiguous
    ],
    ids=["softmax", "fully_connected", "batch_matmul", "reverse"],
)
def test_barriers_keep_the_transpose(build):
    model, _ = arranged(build)
    assert not sunk(model)


def test_side_operand_of_unit_axes_is_reshaped():
    """ADD(TRANSPOSE(x), y) with y [2,1,1,3]: y is read through a RESHAPE, the sink costs
    nothing."""

    def build(net):
        x = net.op("RELU", [net.input("x", SHAPE)])
        y = net.input("y", (2, 1, 1, 3))
        return [net.binary("ADD", net.transpose(x, NHWC, "t"), y)]

    model, _ = arranged(build)
    assert sunk(model)
    assert kinds(model).count("TRANSPOSE") == 1 and "RESHAPE" in kinds(model)


def test_side_transpose_is_not_added_when_the_cost_rises():
    def build(net):
        x = net.op("RELU", [net.input("x", SHAPE)])
        y = net.input("y", (2, 4, 5, 3))
        return [net.binary("ADD", net.transpose(x, NHWC, "t"), y)]

    model, line = arranged(build)
    assert not sunk(model)
    assert (
        line
        == "transposes: 1 lowered, 0 removed, 1 left (0 at inputs, 0 at outputs, 1 at barriers)"
    )
    assert kept_transposes(model.main, {}) == [
        "  TRANSPOSE t: RELU -> ADD; (d) the cost rule: moving it would add as many TRANSPOSEs "
        "as it removes"
    ]


def test_kept_transposes_name_a_barrier_and_an_onnx_transpose():
    def build(net):
        x = net.op("RELU", [net.input("x", SHAPE)])
        t = net.transpose(x, NHWC, "t")
        return [net.op("ZEROS_LIKE", [t])]

    model, _ = arranged(build)
    (line,) = kept_transposes(model.main, {})
    assert line.endswith("(b) next to the layout barrier ZEROS_LIKE")
    (t,) = [op for op in model.main.operators if op.opcode == "TRANSPOSE"]
    node_types = dict.fromkeys(t.origin, "Transpose")
    model.main.operators[-1].opcode = "RELU"  # pushable now: what is left is the ONNX node
    (line,) = kept_transposes(model.main, node_types)
    assert line.endswith("(c) an ONNX Transpose whose data movement stays")


def test_two_transposed_operands_merge_into_one():
    def build(net):
        a = net.op("RELU", [net.input("a", SHAPE)])
        b = net.op("TANH", [net.input("b", SHAPE)])
        return [net.binary("MUL", net.transpose(a, NHWC, "ta"), net.transpose(b, NHWC, "tb"))]

    model, line = arranged(build)
    (t,) = [op for op in model.main.operators if op.opcode == "TRANSPOSE"]
    assert t.outputs[0] is model.main.outputs[0]
    assert {model.source_table[k] for k in t.origin} == {"ta", "tb"}
    assert line.startswith("transposes: 2 lowered, 1 removed, 1 left")


def test_transposes_compose_and_cancel():
    def build(net):
        x = net.op("RELU", [net.input("x", SHAPE)])
        y = net.transpose(net.transpose(x, NHWC, "a"), (0, 3, 1, 2), "b")
        z = net.transpose(net.transpose(x, (1, 0, 2, 3), "c"), (0, 1, 3, 2), "d")
        return [net.op("TANH", [y]), z]

    model, _ = arranged(build)
    (t,) = [op for op in model.main.operators if op.opcode == "TRANSPOSE"]
    assert list(t.inputs[1].data) == [1, 0, 3, 2]
    assert {model.source_table[k] for k in t.origin} == {"c", "d"}


def test_transpose_of_a_constant_is_folded():
    def build(net):
        c = net.transpose(net.const("c", np.arange(6, dtype=np.float32).reshape(2, 3)), (1, 0), "t")
        return [net.binary("ADD", net.input("x", (3, 2)), c)]

    model, _ = arranged(build)
    assert kinds(model) == ["ADD"]


def test_identical_transposes_merge():
    def build(net):
        x = net.op("RELU", [net.input("x", SHAPE)])
        pool = new_options(
            "Pool2DOptions", padding=1, strideH=1, strideW=1, filterHeight=1, filterWidth=1
        )
        a = net.op("MAX_POOL_2D", [net.transpose(x, NHWC, "a")], pool)
        b = net.op("AVERAGE_POOL_2D", [net.transpose(x, NHWC, "b")], pool)
        return [a, b]

    model, _ = arranged(build)
    (t,) = [op for op in model.main.operators if op.opcode == "TRANSPOSE"]
    assert {model.source_table[k] for k in t.origin} == {"a", "b"}


@pytest.mark.parametrize(
    "shapes, perm, expect",
    [
        ([(2, 6, 4), (2, 2, 3, 4)], (0, 2, 1, 3), ["RESHAPE", "TRANSPOSE", "RESHAPE"]),  # shuffle
        ([(2, 12), (2, 3, 4)], (0, 2, 1), ["RESHAPE", "TRANSPOSE", "RESHAPE"]),
        ([(4, 6), (3, 8)], (1, 0), ["RESHAPE", "TRANSPOSE"]),  # no integer factorization
        ([(2, 3, 1, 4), None], (0, 2, 1, 3), ["RESHAPE"]),  # only a unit axis moves
        ([(2, 3, 4), None], (0, 2, 1), ["TRANSPOSE"]),  # already canonical
    ],
)
def test_reshape_transpose_chains(shapes, perm, expect):
    x_shape, mid = shapes

    def build(net):
        x = net.op("RELU", [net.input("x", x_shape)])
        if mid is not None:
            x = net.op("RESHAPE", [x, net.const("s", np.array(mid, I32))])
        y = net.transpose(x, perm, "t")
        if mid is not None and expect[-1] == "RESHAPE":
            y = net.op("RESHAPE", [y, net.const("back", np.array(x_shape, I32))])
        return [y]

    model, _ = arranged(build)
    assert kinds(model) == ["RELU", *expect]


def test_chain_with_an_unknown_batch():
    def build(net):
        x = net.op("RELU", [net.input("x", (None, 4, 3, 5))])
        y = net.transpose(x, (0, 3, 1, 2), "t")
        y = net.op("RESHAPE", [y, net.const("s", np.array([-1, 5, 12], I32))])
        return [net.transpose(y, (0, 2, 1), "u")]

    before, after = _built(build), _built(build)
    arrange_layout(after, OnnxOptions())
    assert kinds(after) == ["RELU", "RESHAPE"]
    assert list(after.main.operators[1].inputs[1].data) == [-1, 12, 5]
    assert_same_outputs(resize(before, "[2,4,3,5]"), resize(after, "[2,4,3,5]"))


def test_swapped_operands_of_batch_matmul_become_adjoints():
    def build(net):
        a = net.transpose(net.op("RELU", [net.input("a", (2, 3, 4))]), (0, 2, 1), "ta")
        b = net.transpose(net.op("TANH", [net.input("b", (2, 5, 3))]), (0, 2, 1), "tb")
        return [net.op("BATCH_MATMUL", [a, b], new_options("BatchMatMulOptions"))]

    model, _ = arranged(build)
    matmul = model.main.operators[-1]
    assert kinds(model) == ["RELU", "TANH", "BATCH_MATMUL"]
    assert matmul.options.adjointLhs and matmul.options.adjointRhs
    assert {model.source_table[k] for k in matmul.origin} == {"ta", "tb", "batch_matmul4"}


def test_conv1d_chain_keeps_rank3_io_transposes(tmp_path):
    b = Builder()
    w1, w2 = b.random(6, 3, 3), b.random(4, 6, 3)
    y = b.node("Relu", [b.node("Conv", ["x", w1], pads=[1, 1])])
    model = b.model({"x": (FLOAT, ["N", 3, 12])}, [b.node("Conv", [y, w2], pads=[1, 1])])
    imported = check(model, tmp_path)
    assert [list(op.inputs[1].data) for op in transposes(imported)] == [[0, 2, 1]] * 2
    options = OnnxOptions(nchw_to_nhwc_input_shape=True, nchw_to_nhwc_output_shape=True)
    imported = check_channels_last(model, tmp_path, options)
    assert transposes(imported) == []
    assert [t.shape for t in (*imported.main.inputs, *imported.main.outputs)] == [
        (None, 12, 3),
        (None, 12, 4),
    ]


@pytest.mark.parametrize("batch", ["N", 1])
def test_channels_last_single_channel_output(tmp_path, batch):
    """A one-channel map (a text detector's probability map): the last TRANSPOSE becomes a
    RESHAPE because the channel is 1, and is still the layout change the output rule drops."""
    b = Builder()
    y = b.node("Sigmoid", [b.conv(b.node("Relu", [b.conv("x", 3, 8)]), 8, 1)])
    model = b.model({"x": (FLOAT, [batch, 3, 12, 12])}, [y])
    plain = check_channels_last(model, tmp_path, OnnxOptions())
    assert plain.main.outputs[0].shape[1:] == (1, 12, 12)
    options = OnnxOptions(nchw_to_nhwc_input_shape=True, nchw_to_nhwc_output_shape=True)
    imported = check_channels_last(model, tmp_path, options)
    assert imported.main.outputs[0].shape[1:] == (12, 12, 1)
    assert kinds(imported).count("TRANSPOSE") == kinds(imported).count("RESHAPE") == 0


def test_channels_last_single_channel_output_after_elementwise(tmp_path):
    """PaddleOCR's DB head: ConvTranspose → Add → Sigmoid on one channel; the layout change
    stops before the Sigmoid as a RESHAPE, and the output rule still drops it."""
    b = Builder()
    y = b.node("ConvTranspose", ["x", b.random(3, 1, 2, 2)], strides=[2, 2])
    y = b.node("Sigmoid", [b.node("Add", [y, b.random(1, 1, 1, 1)])])
    model = b.model({"x": (FLOAT, [1, 3, 12, 12])}, [y])
    options = OnnxOptions(nchw_to_nhwc_input_shape=True, nchw_to_nhwc_output_shape=True)
    imported = check_channels_last(model, tmp_path, options)
    assert imported.main.outputs[0].shape == (1, 24, 24, 1)
    assert "TRANSPOSE" not in kinds(imported) and "RESHAPE" not in kinds(imported)


def paddle_gated(b: Builder, y: str) -> str:
    """Unfused BN as Mul/Add with [C,1,1] constants, a spelled-out hard-sigmoid gate
    ``y · max(min(0.2·y + 0.5, 1), 0)`` (a diamond: ``y`` read by the gate's Mul and the last
    Mul), an explicit Pad and a depthwise Conv."""
    y = b.node("Add", [b.node("Mul", [y, b.random(8, 1, 1)]), b.random(8, 1, 1)])
    gate = b.node("Add", [b.node("Mul", [y, b.const(0.2)]), b.const(0.5)])
    gate = b.node("Max", [b.node("Min", [gate, b.const(1.0)]), b.const(0.0)])
    y = b.node("Mul", [y, gate])
    pads = b.const([0, 0, 1, 1, 0, 0, 1, 1], np.int64)
    return b.conv(b.node("Pad", [y, pads]), 8, 8, group=8, pads=[0, 0, 0, 0])


def test_gated_diamond_sinks(tmp_path):
    """The TRANSPOSE after the first Conv sinks into the whole diamond at once (sinking into
    the gate alone would leave the last Mul reading ``y`` in both layouts)."""
    model = between_convs(paddle_gated)
    assert_one_transpose_at_the_input(check(model, tmp_path))
    options = OnnxOptions(nchw_to_nhwc_input_shape=True, nchw_to_nhwc_output_shape=True)
    assert transposes(check_channels_last(model, tmp_path, options)) == []


@pytest.mark.parametrize("scaled_last", [False, True])
def test_spelled_out_hard_swish_is_one_operator(tmp_path, scaled_last):
    """Paddle2ONNX's ``x·Clip(x + 3, 0, 6)/6``, the /6 before or after the product."""

    def hard_swish(b: Builder, y: str) -> str:
        clipped = b.node("Clip", [b.node("Add", [b.const(3.0), y]), b.const(0.0), b.const(6.0)])
        if scaled_last:
            return b.node("Div", [b.node("Mul", [clipped, y]), b.const(6.0)])
        return b.node("Mul", [y, b.node("Mul", [clipped, b.const(1 / 6)])])

    imported = check(between_convs(hard_swish), tmp_path)
    assert_one_transpose_at_the_input(imported)
    assert [k for k in kinds(imported) if k in ("HARD_SWISH", "MUL", "DIV")] == ["HARD_SWISH"]


def test_diamond_that_does_not_close_keeps_its_transpose(tmp_path):
    """A branch meeting a value from another input cannot be closed: the cost rule keeps one
    TRANSPOSE inside (and the outputs stay right)."""
    b = Builder()
    y = b.node("Relu", [b.conv("x", 3, 8)])
    other = b.node("Relu", [b.node("Mul", ["z", b.const(2.0)])])
    y = b.node("Mul", [y, b.node("Add", [b.node("Sigmoid", [y]), other])])
    inputs = {**IMAGE, "z": (FLOAT, ["N", 8, 12, 12])}
    imported = check(b.model(inputs, [b.head(b.conv(y, 8, 8), 8)]), tmp_path)
    assert len(transposes(imported)) <= 3


def detector_heads(b: Builder) -> list[str]:
    """Two scales of a detector head: Conv → Split into boxes and scores → Sigmoid on the
    scores → Reshape [1, C, H·W] → Transpose [0, 2, 1] → Concat of the scales (YOLOv8,
    PicoDet)."""
    small = b.conv("x", 3, 8, strides=[2, 2])
    boxes, scores = [], []
    for y in (b.conv("x", 3, 8), b.conv(small, 8, 8)):
        box, score = b.node("Split", [y, b.const([3, 5], np.int64)], outputs=2, axis=1)
        for part, c, out in ((box, 3, boxes), (b.node("Sigmoid", [score]), 5, scores)):
            flat = b.node("Reshape", [part, b.const([1, c, -1], np.int64)])
            out.append(b.node("Transpose", [flat], perm=[0, 2, 1]))
    return [b.node("Concat", boxes, axis=1), b.node("Concat", scores, axis=1)]


def test_detector_heads_lose_their_transposes(tmp_path):
    """``TRANSPOSE(cf) → Reshape → Transpose`` is one RESHAPE of the channels-last value: the
    sink into the Split counts what rule 3 makes of the chain after it."""
    b = Builder()
    model = b.model({"x": (FLOAT, [1, 3, 12, 12])}, detector_heads(b))
    imported = check(model, tmp_path)
    assert_one_transpose_at_the_input(imported)
    assert [t.shape for t in imported.main.outputs] == [(1, 180, 3), (1, 180, 5)]


def test_channel_softmax_before_a_conv(tmp_path):
    """YOLOv8's DFL: box logits [1, 64, A] as [1, 4, 16, A], the 16 bins moved to the
    channels, Softmax over them, a 1x1 Conv summing them. The Softmax moves its axis to the
    end, which is the Conv's channels-last order: one TRANSPOSE in all (the ONNX one)."""
    b = Builder()
    y = b.node("Reshape", ["x", b.const([1, 4, 16, 20], np.int64)])
    y = b.node("Softmax", [b.node("Transpose", [y], perm=[0, 2, 1, 3])], axis=1)
    y = b.node("Conv", [y, b.random(1, 16, 1, 1)])
    model = b.model(
        {"x": (FLOAT, [1, 64, 20])}, [b.node("Reshape", [y, b.const([1, 4, 20], np.int64)])]
    )
    assert len(transposes(check(model, tmp_path))) == 1
