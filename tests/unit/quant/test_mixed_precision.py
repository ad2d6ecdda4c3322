"""Per-layer mixed precision with ``quant_config`` (quantization.md §12, §14 step 2)."""

import json

import numpy as np
import pytest

import one_cmds
from one_cmds.config.resolve import build_options, convert_values
from one_cmds.config.source import Source
from one_cmds.errors import OneCmdsError
from one_cmds.interp import Interpreter
from one_cmds.ir import Graph, Model, Operator, QuantParam, Tensor
from one_cmds.quant.data import records
from one_cmds.quant.default_pipeline import calibrate, fake_quantize_weights, quantize_with_minmax
from one_cmds.quant.mixed_precision import load_precision, remove_redundant_quantize
from support.litert import random_inputs

MEAN, FC, SOFTMAX = "Mean", "MatMul;add_2", "Identity"
FLOAT_IO = {"input_type": "float32", "output_type": "float32"}


@pytest.fixture
def mobilenet(fixture_path):
    return one_cmds.load(fixture_path("mobilenet_tiny.tflite"))


@pytest.fixture
def qconf(tmp_path):
    def write(layers, **defaults):
        path = tmp_path / "qconf.json"
        path.write_text(json.dumps({**defaults, "layers": layers}))
        return str(path)

    return write


def int16(*names, **extra):
    return {"names": list(names), "dtype": "int16", "granularity": "channel", **extra}


def op_named(model, name):
    return next(op for op in model.main.operators if op.outputs[0].name == name)


def producer(model, tensor):
    return next(op for op in model.main.operators if tensor in op.outputs)


def quantize_all_stages(model, **options):
    """The three stages with the quant_config given to stage 1 as well."""
    source = Source(place="test")
    raw = {"input_path": "<m>", "output_path": "<m>", **options}
    opts = build_options(
        "one-quantize", main=source, section=convert_values("one-quantize", raw, source)
    )
    m = model.copy()
    fake_quantize_weights(m, opts.quantized_dtype, opts.granularity, opts.quant_config)
    calibrate(m, records(m.main.inputs, opts.input_data, opts.input_data_format), opts)
    quantize_with_minmax(m, opts)
    return m


def test_int16_fully_connected_in_uint8_model(mobilenet, qconf):
    q = one_cmds.quantize(mobilenet, quant_config=qconf([int16(FC)]))
    fc = op_named(q, FC)
    x, w, b = fc.inputs[:3]
    assert (x.dtype, w.dtype, b.dtype, fc.outputs[0].dtype) == ("INT16", "INT16", "INT64", "INT16")
    assert len(w.quant.scale) == w.shape[0] and w.quant.quantized_dimension == 0
    assert int(x.quant.zero_point[0]) == 0
    before = producer(q, x)
    assert before.opcode == "QUANTIZE" and before.inputs[0].dtype == "UINT8"
    assert before.inputs[0].name == MEAN and x.name == "Mean_Quantize"
    (after,) = [op for op in q.main.operators if fc.outputs[0] in op.inputs]
    assert after.opcode == "QUANTIZE" and after.outputs[0].dtype == "UINT8"
    softmax = op_named(q, SOFTMAX)
    assert softmax.inputs[0] is after.outputs[0] and softmax.outputs[0].dtype == "UINT8"
    assert sum(op.opcode == "QUANTIZE" for op in q.main.operators) == 2


def test_quantize_qparams_come_from_the_producer_range(mobilenet, qconf):
    q = one_cmds.quantize(mobilenet, quant_config=qconf([int16(FC)]))
    x = op_named(q, FC).inputs[0]
    u8 = producer(q, x).inputs[0]
    assert int(u8.quant.zero_point[0]) == 0, "Mean follows Relu6: its range starts at 0"
    # The same recorded maximum: uint8 max/255, int16 max/32767.
    assert float(x.quant.scale[0]) * 32767 == pytest.approx(
        float(u8.quant.scale[0]) * 255, rel=1e-6
    )


def test_consecutive_int16_operators_share_no_quantize(mobilenet, qconf):
    q = one_cmds.quantize(mobilenet, quant_config=qconf([int16(MEAN, FC)]))
    kinds = [op.kind for op in q.main.operators]
    assert kinds[-5:] == ["QUANTIZE", "MEAN", "FULLY_CONNECTED", "QUANTIZE", "SOFTMAX"]
    assert op_named(q, FC).inputs[0] is op_named(q, MEAN).outputs[0]


def test_fixed_qparams_and_graph_output_name(mobilenet, qconf):
    q = one_cmds.quantize(mobilenet, quant_config=qconf([int16(SOFTMAX)]))
    out = q.main.outputs[0]
    assert out.name == SOFTMAX and out.dtype == "UINT8"
    back = producer(q, out)
    assert back.opcode == "QUANTIZE"
    assert back.inputs[0].name == "Identity_Quantize" and back.inputs[0].dtype == "INT16"
    assert float(back.inputs[0].quant.scale[0]) == pytest.approx(1 / 32767)
    assert float(out.quant.scale[0]) == pytest.approx(1 / 255) and int(out.quant.zero_point[0]) == 0


def test_float_input_feeds_an_int16_first_operator_directly(mobilenet, qconf):
    first = mobilenet.main.operators[0].outputs[0].name
    q = one_cmds.quantize(mobilenet, quant_config=qconf([int16(first)]), **FLOAT_IO)
    head = q.main.operators[0]
    assert head.opcode == "QUANTIZE" and head.inputs[0] is q.main.inputs[0]
    assert head.outputs[0].dtype == "INT16" and q.main.operators[1].opcode == "CONV_2D"
    assert q.main.operators[2].opcode == "QUANTIZE"


def test_uint8_layer_in_int16_model_from_config_defaults(mobilenet, qconf):
    layer = {"name": FC, "dtype": "uint8", "granularity": "layer"}
    path = qconf([layer], default_quantization_dtype="int16", default_granularity="channel")
    q = one_cmds.quantize(mobilenet, quant_config=path)
    x, w, b = op_named(q, FC).inputs[:3]
    assert (x.dtype, w.dtype, b.dtype) == ("UINT8", "UINT8", "INT32") and len(w.quant.scale) == 1
    assert op_named(q, MEAN).outputs[0].dtype == "INT16"


def test_granularity_only(mobilenet, qconf):
    layer = {"name": FC, "dtype": "uint8", "granularity": "channel"}
    q = one_cmds.quantize(mobilenet, quant_config=qconf([layer]))
    w = op_named(q, FC).inputs[1]
    assert w.dtype == "UINT8" and len(w.quant.scale) == w.shape[0]
    assert "QUANTIZE" not in [op.opcode for op in q.main.operators]


def test_alternate_names(mobilenet):
    graph = mobilenet.main
    entry = int16("fc1/MatMul", alternate={"v2": [FC], "v3": ["nope"]})
    precision = load_precision({"layers": [entry]}, graph, "uint8", "layer")
    assert [op.outputs[0].name for op, _ in precision.listed] == [FC]
    assert precision.of(op_named(mobilenet, FC)).dtype == "int16"


@pytest.mark.parametrize(
    "entry",
    [
        int16(FC, alternate={"v2": [FC]}),
        int16("fc1/MatMul", alternate={"v2": ["fc2/MatMul"]}),
        int16(FC, MEAN, "missing"),
    ],
)
def test_names_mapped_in_multiple_or_no_ways(mobilenet, entry):
    with pytest.raises(OneCmdsError, match="mapped in multiple or no ways"):
        load_precision({"layers": [entry]}, mobilenet.main, "uint8", "layer")


def test_a_name_listed_twice_is_an_error(mobilenet, qconf):
    with pytest.raises(OneCmdsError, match="Duplicate layer name"):
        one_cmds.quantize(mobilenet, quant_config=qconf([int16(FC), int16(MEAN, FC)]))


def test_int16_layer_wise_entry_is_refused(mobilenet, qconf):
    layer = {"name": FC, "dtype": "int16", "granularity": "layer"}
    with pytest.raises(OneCmdsError, match=r"Layer-wise quantization only supports uint8"):
        one_cmds.quantize(mobilenet, quant_config=qconf([layer]))


def test_int16_operators_bring_the_output_closer_to_float(mobilenet, qconf, tmp_path):
    """Interpreter (LiteRT's integer kernels) on fresh inputs; LiteRT itself cannot run these
    models (it has no uint8<->int16 QUANTIZE and no int16-weight convolution)."""
    names = [op.outputs[0].name for op in mobilenet.main.operators]
    records_ = np.stack([random_inputs(mobilenet, seed=k)[0] for k in range(16)])
    np.savez(tmp_path / "calibration.npz", **{"0": records_})  # 16 records of input 0
    data = {"input_data": str(tmp_path / "calibration.npz"), "input_data_format": "npz"}
    u8 = quantize_all_stages(mobilenet, **data, **FLOAT_IO)
    config = qconf([int16(*names[:8])])
    mixed = quantize_all_stages(mobilenet, quant_config=config, **data, **FLOAT_IO)
    xs = [random_inputs(mobilenet, seed=100 + k)[0] for k in range(8)]
    want = np.stack([Interpreter(mobilenet).run([x])[0] for x in xs])

    def error(m):
        run = Interpreter(m)
        return float(np.mean(np.abs(np.stack([run.run([x])[0] for x in xs]) - want)))

    assert error(mixed) < 0.9 * error(u8)  # measured 0.00355 against 0.00411


def test_remove_redundant_quantize_chains_and_identities():
    q8 = QuantParam(scale=np.array([0.5], np.float32), zero_point=np.array([3], np.int64))
    q16 = QuantParam(scale=np.array([0.01], np.float32), zero_point=np.array([0], np.int64))
    x = Tensor("x", "UINT8", (2,), quant=q8)
    a = Tensor("a", "INT16", (2,), quant=q16)
    b = Tensor("b", "UINT8", (2,), quant=q8)
    y = Tensor("y", "UINT8", (2,), quant=q8)
    ops = [
        Operator("QUANTIZE", [x], [a]),
        Operator("QUANTIZE", [a], [b]),
        Operator("RELU", [b], [y]),
    ]
    model = Model(graphs=[Graph("main", [x], [y], ops)])
    remove_redundant_quantize(model)
    assert [op.opcode for op in model.main.operators] == ["RELU"]
    assert model.main.operators[0].inputs[0] is x
