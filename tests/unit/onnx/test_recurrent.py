"""LSTM, GRU, RNN (onnx-import.md §6.4) against onnxruntime, unrolled and as sequence ops."""

from collections import Counter

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import one_cmds
from one_cmds.frontends.onnx import OnnxOptions, import_onnx
from one_cmds.frontends.onnx.errors import OnnxImportError
from one_cmds.interp import Interpreter
from one_cmds.ir import Tensor
from support.litert import BUILTIN, run_model, run_tflite
from support.onnx_check import check, close, onnx_inputs, run_onnxruntime
from support.passes import Net, new_options

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
SEQUENCE_OP = {"LSTM": "UNIDIRECTIONAL_SEQUENCE_LSTM", "RNN": "UNIDIRECTIONAL_SEQUENCE_RNN"}
UNROLL = OnnxOptions(unroll_lstm=True, unroll_rnn=True)


def recurrent_model(
    op,
    *,
    steps=5,
    batch=2,
    features=3,
    hidden=4,
    direction="forward",
    layout=0,
    outputs=("Y", "Y_h"),
    bias=True,
    initial=False,
    peephole=False,
    opset=14,
    seed=0,
    graph_outputs=None,
    **attrs,
):
    """One ``op`` node; weights in [-1, 1); ``initial``: initial states as graph inputs;
    ``graph_outputs``: the outputs the graph returns (default: all named)."""
    rng = np.random.default_rng(seed)
    gates, dirs = GATES[op], 2 if direction == "bidirectional" else 1

    def const(name, *shape):
        return numpy_helper.from_array(rng.uniform(-1, 1, shape).astype(np.float32), name)

    initializers = [const("W", dirs, gates * hidden, features), const("R", dirs, gates * hidden, hidden)]  # fmt: skip
    if bias:
        initializers.append(const("B", dirs, 2 * gates * hidden))
    x_shape = [batch, steps, features] if layout else [steps, batch, features]
    state_shape = [batch, dirs, hidden] if layout else [dirs, batch, hidden]
    graph_inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, x_shape)]
    inputs = ["X", "W", "R", "B" if bias else "", ""]
    if initial:
        states = ["initial_h", "initial_c"] if op == "LSTM" else ["initial_h"]
        inputs += states
        graph_inputs += [helper.make_tensor_value_info(s, TensorProto.FLOAT, state_shape) for s in states]  # fmt: skip
    if peephole:
        inputs += [""] * (7 - len(inputs)) + ["P"]
        initializers.append(const("P", dirs, 3 * hidden))
    if layout:
        attrs["layout"] = layout
    node = helper.make_node(
        op, inputs, list(outputs), name="rnn", hidden_size=hidden, direction=direction, **attrs
    )
    returned = [o for o in graph_outputs or outputs if o]
    graph = helper.make_graph(
        [node],
        "g",
        graph_inputs,
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in returned],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def opcodes(model) -> Counter:
    return Counter(op.opcode for op in model.main.operators)


def judge(model, tmp_path, options=None):
    """``check``; layout 1 through its layout-0 twin, since onnxruntime refuses layout 1
    (lstm_base.h: 'Batchwise recurrent operations (layout == 1) are not supported')."""
    if not _layout(model):
        return check(model, tmp_path, options=options)
    twin = _time_major_twin(model)
    feeds = onnx_inputs(model)
    path = str(tmp_path / "twin.onnx")
    onnx.save(twin, path)
    expected = run_onnxruntime(path, [np.swapaxes(f, 0, 1) for f in feeds])
    onnx.save(model, str(tmp_path / "model.onnx"))
    imported = import_onnx(str(tmp_path / "model.onnx"), options)
    one_cmds.save(imported, str(tmp_path / "model.tflite"))
    got = run_tflite(str(tmp_path / "model.tflite"), feeds)
    outputs = [o.name for o in model.graph.output]
    for name, e, g in zip(outputs, expected, got, strict=True):
        e = np.moveaxis(e, 2, 0) if name == "Y" else np.swapaxes(e, 0, 1)
        assert close(e, g, 1e-4, 1e-4), f"output {name}: max abs diff {np.max(np.abs(e - g))}"
    return imported


def _layout(model) -> int:
    return next((a.i for a in model.graph.node[0].attribute if a.name == "layout"), 0)


def _time_major_twin(model):
    """The same node with layout 0, its inputs and states swapped to time major."""
    twin = onnx.ModelProto()
    twin.CopyFrom(model)
    node = twin.graph.node[0]
    node.attribute.remove(next(a for a in node.attribute if a.name == "layout"))
    for info in twin.graph.input:
        dims = info.type.tensor_type.shape.dim
        first, second = dims[0].dim_value, dims[1].dim_value
        dims[0].dim_value, dims[1].dim_value = second, first
    return twin


# -- LSTM ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("unroll", [False, True])
def test_lstm_directions(tmp_path, direction, unroll):
    model = recurrent_model("LSTM", direction=direction)
    imported = judge(model, tmp_path, UNROLL if unroll else None)
    dirs = 2 if direction == "bidirectional" else 1
    ops = opcodes(imported)
    assert ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] == (0 if unroll else dirs)
    assert ops["FULLY_CONNECTED"] == (5 * dirs if unroll else 0)  # 1 input + 4 recurrent
    assert ops["REVERSE_V2"] == (0 if unroll or direction == "forward" else 2)


def test_lstm_sequence_op_states_are_zero_variables(tmp_path):
    imported = judge(recurrent_model("LSTM", outputs=("Y",)), tmp_path)
    (lstm,) = [op for op in imported.main.operators if op.opcode == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    assert len(lstm.inputs) == 24
    h, c = lstm.inputs[18], lstm.inputs[19]
    assert h.is_variable and c.is_variable and h.data is None and c.data is None
    assert h.shape == c.shape == (2, 4)
    assert lstm.options.timeMajor and lstm.options.fusedActivationFunction == 4  # TANH
    assert [t.name for t in imported.main.outputs] == ["Y"]
    assert imported.main.outputs[0].shape == (5, 1, 2, 4)


def test_lstm_outputs_nothing_reads_do_not_count(tmp_path):
    """torch names Y_h and Y_c even when they are dropped: the sequence operator stays."""
    model = recurrent_model("LSTM", outputs=("Y", "Y_h", "Y_c"), graph_outputs=("Y",))
    imported = judge(model, tmp_path)
    assert opcodes(imported)["UNIDIRECTIONAL_SEQUENCE_LSTM"] == 1
    assert opcodes(imported)["GATHER"] == 0


def test_zero_initial_states_of_a_runtime_shape(tmp_path):
    """ConstantOfShape zeros (torch's initial states for a dynamic batch) are no state: no
    recurrent FULLY_CONNECTED at the first step."""
    model = recurrent_model("LSTM", batch="N", direction="bidirectional", outputs=("Y",))
    graph = model.graph
    graph.input.append(helper.make_tensor_value_info("state_shape", TensorProto.INT64, [3]))
    graph.node.insert(0, helper.make_node("ConstantOfShape", ["state_shape"], ["zeros"]))
    graph.node[1].input.extend(["zeros", "zeros"])
    feeds = [*onnx_inputs(model)[:1], np.array([2, 2, 4], np.int64)]
    imported = check(model, tmp_path, inputs=feeds, resize="[5,2,3],[3]")
    assert opcodes(imported)["FULLY_CONNECTED"] == 2 * 5  # 1 input + 4 recurrent per direction
    assert opcodes(imported)["UNPACK"] == 2


@pytest.mark.parametrize(
    "variant",
    [
        {"outputs": ("Y", "Y_h", "Y_c")},
        {"outputs": ("", "", "Y_c"), "direction": "bidirectional"},
        {"initial": True, "outputs": ("Y", "Y_h", "Y_c")},
        {"initial": True, "direction": "bidirectional"},
        {"clip": 0.5},
        {"batch": "N"},
    ],
    ids=["y_c", "y_c_only", "initial", "initial_bidirectional", "clip", "dynamic_batch"],
)
def test_lstm_falls_back_to_unrolled(tmp_path, variant):
    """What UNIDIRECTIONAL_SEQUENCE_LSTM cannot compute is unrolled even without unroll_lstm."""
    imported = judge(recurrent_model("LSTM", **variant), tmp_path)
    assert opcodes(imported)["UNIDIRECTIONAL_SEQUENCE_LSTM"] == 0
    assert opcodes(imported)["FULLY_CONNECTED"] > 0


@pytest.mark.parametrize("unroll", [False, True])
def test_lstm_peepholes_without_bias(tmp_path, unroll):
    model = recurrent_model("LSTM", peephole=True, bias=False, direction="bidirectional")
    imported = judge(model, tmp_path, UNROLL if unroll else None)
    assert opcodes(imported)["UNIDIRECTIONAL_SEQUENCE_LSTM"] == (0 if unroll else 2)


@pytest.mark.parametrize("unroll", [False, True])
@pytest.mark.parametrize("initial", [False, True])
def test_lstm_layout_1(tmp_path, unroll, initial):
    outputs = ("Y", "Y_h", "Y_c") if initial else ("Y", "Y_h")
    model = recurrent_model(
        "LSTM", layout=1, direction="bidirectional", initial=initial, outputs=outputs
    )
    imported = judge(model, tmp_path, UNROLL if unroll else None)
    assert imported.main.outputs[0].shape == (2, 5, 2, 4)  # [batch, seq, dirs, hidden]
    assert imported.main.outputs[1].shape == (2, 2, 4)


@pytest.mark.parametrize(
    ("activations", "sequence_op"),
    [(["Sigmoid", "Relu", "Relu"], True), (["Sigmoid", "Relu", "Tanh"], False),
     (["Tanh", "Tanh", "Tanh"], False), (["Sigmoid", "Tanh", "Relu"], False)],
)  # fmt: skip
def test_lstm_activations(tmp_path, activations, sequence_op):
    model = recurrent_model("LSTM", activations=activations)
    imported = judge(model, tmp_path)
    assert opcodes(imported)["UNIDIRECTIONAL_SEQUENCE_LSTM"] == int(sequence_op)


@pytest.mark.parametrize("opset", [9, 13, 22])
def test_lstm_opsets(tmp_path, opset):
    """LSTM-7 (no ``layout``) and LSTM-22 (types only) besides LSTM-14."""
    judge(recurrent_model("LSTM", opset=opset, direction="reverse"), tmp_path)


def test_lstm_one_step_and_full_sequence_lens(tmp_path):
    model = recurrent_model("LSTM", steps=1, outputs=("Y", "Y_h", "Y_c"))
    model.graph.initializer.append(numpy_helper.from_array(np.array([1, 1], np.int32), "lens"))
    model.graph.node[0].input[4] = "lens"
    judge(model, tmp_path)


# -- GRU -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("linear_before_reset", [0, 1])
@pytest.mark.parametrize("initial", [False, True])
def test_gru(tmp_path, direction, linear_before_reset, initial):
    model = recurrent_model(
        "GRU", direction=direction, linear_before_reset=linear_before_reset, initial=initial
    )
    imported = judge(model, tmp_path)
    dirs = 2 if direction == "bidirectional" else 1
    assert opcodes(imported)["FULLY_CONNECTED"] == 10 * dirs + 2 * dirs * initial


@pytest.mark.parametrize(
    "variant",
    [
        {"clip": 0.3, "activations": ["Sigmoid", "Relu"]},
        {"bias": False, "linear_before_reset": 1, "outputs": ("", "Y_h")},
        {"layout": 1, "initial": True, "direction": "bidirectional"},
        {"batch": "N", "steps": 1},
        {"opset": 9},
        {"opset": 22, "layout": 1},
    ],
    ids=["clip_relu", "no_bias", "layout_1", "dynamic_batch_one_step", "opset_9", "opset_22"],
)
def test_gru_variants(tmp_path, variant):
    judge(recurrent_model("GRU", **variant), tmp_path)


# -- RNN -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("unroll", [False, True])
def test_rnn_directions(tmp_path, direction, unroll):
    imported = judge(recurrent_model("RNN", direction=direction), tmp_path, UNROLL if unroll else None)  # fmt: skip
    dirs = 2 if direction == "bidirectional" else 1
    assert opcodes(imported)["UNIDIRECTIONAL_SEQUENCE_RNN"] == (0 if unroll else dirs)


@pytest.mark.parametrize(
    ("variant", "sequence_op"),
    [
        ({"activations": ["Relu"], "bias": False}, True),
        ({"activations": ["Sigmoid"]}, False),
        ({"clip": 0.4}, False),
        ({"initial": True, "direction": "bidirectional"}, False),
        ({"layout": 1, "direction": "bidirectional"}, True),
        ({"layout": 1, "initial": True}, False),
        ({"batch": "N"}, False),
    ],
    ids=["relu_no_bias", "sigmoid", "clip", "initial", "layout_1", "layout_1_initial", "dynamic"],
)
def test_rnn_variants(tmp_path, variant, sequence_op):
    imported = judge(recurrent_model("RNN", **variant), tmp_path)
    assert opcodes(imported)["UNIDIRECTIONAL_SEQUENCE_RNN"] == int(sequence_op) * (
        2 if variant.get("direction") == "bidirectional" else 1
    )


# -- the project's interpreter runs the sequence operators ---------------------------------------
@pytest.mark.parametrize("op", ["LSTM", "RNN"])
def test_interpreter_runs_the_sequence_ops(tmp_path, op):
    model = recurrent_model(op, direction="bidirectional", outputs=("Y", "Y_h"))
    path = str(tmp_path / "model.onnx")
    onnx.save(model, path)
    imported = import_onnx(path)
    assert opcodes(imported)[SEQUENCE_OP[op]] == 2
    feeds = onnx_inputs(model)
    got = Interpreter(imported).run(feeds)
    for e, g in zip(run_onnxruntime(path, feeds), got, strict=True):
        assert close(e, g, 1e-5, 1e-5)


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("activation", [0, 1, 4])  # NONE, RELU, TANH
def test_rnn_kernel_matches_litert(time_major, activation):
    """The UNIDIRECTIONAL_SEQUENCE_RNN kernel and shape rule against LiteRT's kernel."""
    net = Net(1)
    x = net.input("x", [4, 3, 5] if time_major else [3, 4, 5])
    state = Tensor("h_state", "FLOAT32", (3, 6), is_variable=True)
    inputs = [x, net.random("w", [6, 5]), net.random("r", [6, 6]), net.random("b", [6]), state]
    rnn_options = new_options(
        "SequenceRNNOptions", fusedActivationFunction=activation, timeMajor=time_major
    )
    net.outputs(net.op("UNIDIRECTIONAL_SEQUENCE_RNN", inputs, rnn_options, name="rnn"))
    model = net.model()
    assert model.main.outputs[0].shape == ((4, 3, 6) if time_major else (3, 4, 6))
    feed = np.random.default_rng(2).standard_normal(x.shape).astype(np.float32)
    (want,) = run_model(model, [feed], BUILTIN)
    (got,) = Interpreter(model).run([feed])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# -- unsupported uses ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("op", "change", "reason"),
    [
        ("LSTM", {"input_forget": 1}, "input_forget 1 is not supported"),
        ("GRU", {"activation_alpha": [0.5, 0.5]}, "activation_alpha [0.5, 0.5] is not supported"),
        ("RNN", {"activation_beta": [0.5]}, "activation_beta [0.5] is not supported"),
        ("RNN", {"activations": ["LeakyRelu"]}, "activations 'LeakyRelu' is not supported"),
        ("LSTM", {"lens": [5, 3]}, "sequence_lens [5, 3] is not supported"),
        ("GRU", {"lens_input": True}, "input 'lens' must be constant"),
        ("RNN", {"weights_input": True}, "input 'W' must be constant"),
        ("LSTM", {"steps": "T"}, "dimension 0 of 'X' must be known"),
    ],
)
def test_unsupported(tmp_path, op, change, reason):
    model = _unsupported_model(op, dict(change))
    path = str(tmp_path / "model.onnx")
    onnx.save(model, path)
    with pytest.raises(OnnxImportError) as e:
        import_onnx(path)
    assert str(e.value) == f"Unsupported ONNX operators (1): {op} 'rnn' (opset 14): {reason}"


def _unsupported_model(op, change):
    lens, lens_input = change.pop("lens", None), change.pop("lens_input", False)
    weights_input = change.pop("weights_input", False)
    model = recurrent_model(op, **change)
    graph = model.graph
    if lens is not None:
        graph.initializer.append(numpy_helper.from_array(np.array(lens, np.int32), "lens"))
    if lens_input:
        graph.input.append(helper.make_tensor_value_info("lens", TensorProto.INT32, [2]))
    if lens is not None or lens_input:
        graph.node[0].input[4] = "lens"
    if weights_input:
        (w,) = [t for t in graph.initializer if t.name == "W"]
        graph.initializer.remove(w)
        graph.input.append(helper.make_tensor_value_info("W", TensorProto.FLOAT, list(w.dims)))
    return model
