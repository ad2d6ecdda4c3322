"""The invariants of a quantized graph (quantization.md §25, quant/invariants.py).

Three kinds of test: the table's rows hold in LiteRT (a single-operator model whose output
qparams differ from its input's is refused or computed in the wrong scale, and one with equal
qparams is right); graph patterns that broke a row before the propagation was fixed now pass
the check and run in LiteRT's default resolver (XNNPACK) and builtin kernels; and the check
names the operator and tensor of a broken rule.
"""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from one_cmds.ir.schema import new_options
from one_cmds.quant.errors import QuantizeError
from one_cmds.quant.invariants import SAME_BY_OPCODE, invariant_problem
from support.litert import BUILTIN, DEFAULT, REFERENCE, run_model
from support.passes import Net, conv2d_options, pool_options
from support.quantized import qparam
from support.single_op import const, op_model, pool2d_options

NUMPY = {"UINT8": np.uint8, "INT8": np.int8, "INT16": np.int16}
ZERO_POINTS = {"UINT8": (128, 100), "INT8": (0, -20), "INT16": (0, 0)}
SCALES = {"UINT8": (0.05, 0.08), "INT8": (0.05, 0.08), "INT16": (0.0005, 0.0008)}
X = (1, 8, 8, 4)
# One single-operator case per row of the table: opcode, operands, options.
ROW_CASES = {
    "AVERAGE_POOL_2D": ([X], pool2d_options((2, 2), (2, 2), 1)),
    "MAX_POOL_2D": ([X], pool2d_options((2, 2), (2, 2), 1)),
    "RESHAPE": ([X, const(np.array([1, 64, 4], np.int32))], None),
    "EXPAND_DIMS": ([X, const(np.array(1, np.int32))], None),
    "TRANSPOSE": ([X, const(np.array([0, 3, 1, 2], np.int32))], None),
    "SPACE_TO_DEPTH": ([X], new_options("SpaceToDepthOptions", blockSize=2)),
    "PAD": ([X, const(np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))], None),
    "RESIZE_BILINEAR": ([X, const(np.array([16, 16], np.int32))], new_options("ResizeBilinearOptions")),
    "REDUCE_MAX": ([X, const(np.array([1, 2], np.int32))], new_options("ReducerOptions", keepDims=True)),
    "MAXIMUM": ([X, X], None),
    "PACK": ([X, X], new_options("PackOptions", valuesCount=2, axis=0)),
    "CONCATENATION": ([X, X], new_options("ConcatenationOptions", axis=3)),
    "SELECT_V2": ([const(np.random.default_rng(9).random(X) > 0.5), X, X], None),
}  # fmt: skip


def _single(opcode: str, dtype: str, same: bool, seed: int = 0):
    operands, options = ROW_CASES[opcode]
    (s_in, s_out), (z_in, z_out) = SCALES[dtype], ZERO_POINTS[dtype]
    out_q = qparam(s_in, z_in) if same else qparam(s_out, z_out)
    rng = np.random.default_rng(seed)
    info = np.iinfo(NUMPY[dtype])
    values = [
        rng.integers(info.min, info.max + 1, o).astype(NUMPY[dtype]) if isinstance(o, tuple) else o
        for o in operands
    ]
    model = op_model(opcode, values, options, outputs=[dtype])
    op = model.main.operators[0]
    for t in op.inputs:
        if t is not None and not t.is_constant:
            t.quant = qparam(s_in, z_in)
    op.outputs[0].quant = out_q
    return model, [v for v in values if isinstance(v, np.ndarray)]


def _float_result(model, inputs):
    """The operator on the dequantized inputs, requantized with the output's qparams."""
    floats = model.copy()
    for t in floats.main.inputs:
        t.dtype, t.quant = "FLOAT32", None
    out = floats.main.outputs[0]
    q, dtype = out.quant, out.dtype
    out.dtype, out.quant = "FLOAT32", None
    xs = [((x.astype(np.float64) - q_in.zero_point[0]) * q_in.scale[0]).astype(np.float32)
          for x, q_in in zip(inputs, (t.quant for t in model.main.inputs), strict=True)]  # fmt: skip
    (y,) = one_cmds.Interpreter(floats).run(xs)
    info = np.iinfo(NUMPY[dtype])
    return np.clip(np.round(y / q.scale[0]) + q.zero_point[0], info.min, info.max)


def _litert_error(model, inputs, resolver) -> float | None:
    """Largest distance (LSB) of LiteRT's result from the float result; None if refused."""
    try:
        (got,) = run_model(model, inputs, resolver)
    except (RuntimeError, ValueError):
        return None
    return float(np.abs(got.astype(np.int64) - _float_result(model, inputs)).max())


def _dtypes(opcode: str) -> list[str]:
    row = SAME_BY_OPCODE[opcode]
    kernel_types = {"SPACE_TO_DEPTH": {"UINT8", "INT8"}}.get(opcode, row.dtypes)
    return sorted(row.dtypes & kernel_types)


@pytest.mark.parametrize(("opcode", "dtype"), [(op, d) for op in ROW_CASES for d in _dtypes(op)])
def test_litert_needs_the_row(opcode, dtype):
    same, inputs = _single(opcode, dtype, same=True)
    for resolver in (DEFAULT, REFERENCE):
        assert _litert_error(same, inputs, resolver) <= 1, "equal qparams run right"
    differ, inputs = _single(opcode, dtype, same=False)
    errors = [_litert_error(differ, inputs, r) for r in (DEFAULT, REFERENCE)]
    assert any(e is None or e > 4 for e in errors), f"{opcode} {dtype} handles unequal: {errors}"
    assert invariant_problem(differ) is not None
    assert invariant_problem(same) is None


def test_uint8_concatenation_rescales_so_it_is_not_a_row():
    """LiteRT's uint8 CONCATENATION rescales its inputs: no invariant for it."""
    model, inputs = _single("CONCATENATION", "UINT8", same=False)
    assert _litert_error(model, inputs, DEFAULT) <= 1
    assert invariant_problem(model) is None


def test_the_check_names_operator_tensor_and_kernel():
    model, _ = _single("MAX_POOL_2D", "UINT8", same=False)
    problem = invariant_problem(model)
    assert problem.startswith("MAX_POOL_2D 'output0': 'output0' must have the scale and zero point")
    assert "XNNPACK" in problem


def test_fixed_qparams_and_bias_scale_rules():
    model, _ = _single("RESHAPE", "UINT8", same=True)
    op = model.main.operators[0]
    op.opcode, op.options = "LOGISTIC", None
    op.inputs = op.inputs[:1]
    assert "not the fixed (0.00390625, 0)" in invariant_problem(model)
    op.outputs[0].quant = qparam(1 / 256, 0)
    assert invariant_problem(model) is None


def test_a_quantized_tensor_without_qparams_is_named():
    model, _ = _single("RESHAPE", "UINT8", same=True)
    model.main.operators[0].outputs[0].quant = None
    assert invariant_problem(model) == (
        "RESHAPE 'output0': 'output0' is UINT8 without a scale and zero point"
    )


# Graph patterns that broke a row before the propagation was fixed.
def _conv(net: Net, x, channels: int, name: str, depth: int = 3):
    w = net.random(f"{name}_w", [channels, 3, 3, depth])
    b = net.random(f"{name}_b", [channels])
    return net.op("CONV_2D", [x, w, b], conv2d_options(padding=0), name=name)


def _pool_net(opcode: str):
    net = Net()
    x = net.input("x", [1, 8, 8, 3])
    y = net.op(opcode, [_conv(net, x, 4, "conv")], pool_options(stride=(2, 2)), name="pool")
    net.outputs(_conv(net, y, 4, "conv2", depth=4))
    return net.model()


def _packed_twice():
    """A tensor read by a PACK and by another operator keeps its own range (backward
    propagation only reaches single-consumer inputs)."""
    net = Net()
    x = net.input("x", [1, 4, 4, 3])
    y = _conv(net, x, 4, "conv")
    z = net.op("PACK", [y, net.binary("MUL", y, y, name="sq")], new_options("PackOptions", valuesCount=2, axis=0), name="pack")  # fmt: skip
    net.outputs(z, y)
    return net.model()


PATTERNS = {
    "max_pool_after_conv": lambda: _pool_net("MAX_POOL_2D"),
    "average_pool_after_conv": lambda: _pool_net("AVERAGE_POOL_2D"),
    "pack_of_a_tensor_read_twice": _packed_twice,
}


def _records(model, count: int, seed: int) -> np.ndarray:
    shape = (count, *model.main.inputs[0].shape)
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def _quantized(model, dtype: str, granularity: str, folder):
    """Quantized with float I/O, calibrated on 8 records of the test inputs' distribution."""
    path = folder / "records.npz"
    np.savez(path, **{"0": _records(model, 8, 0)})
    return one_cmds.quantize(
        model, quantized_dtype=dtype, granularity=granularity, input_type="float32",
        output_type="float32", input_data=str(path), input_data_format="npz",
    )  # fmt: skip


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize(("dtype", "granularity"), [("uint8", "layer"), ("int16", "channel")])
def test_patterns_that_broke_a_row_now_hold_it(pattern, dtype, granularity, tmp_path):
    model = PATTERNS[pattern]()
    quantized = _quantized(model, dtype, granularity, tmp_path)  # runs the check
    assert invariant_problem(quantized) is None
    x = _records(model, 1, 1)[0]
    want = one_cmds.Interpreter(model).run([x])
    got = one_cmds.Interpreter(quantized).run([x])
    for w, g in zip(want, got, strict=True):
        assert np.abs(w - g).max() <= 0.05 * (w.max() - w.min()) + 1e-6
    if dtype == "uint8":
        for resolver in (DEFAULT, BUILTIN):
            outputs = run_model(quantized, [x], resolver)
            for w, g in zip(want, outputs, strict=True):
                assert np.abs(w - g).max() <= 0.05 * (w.max() - w.min()) + 1e-6


def test_a_broken_graph_fails_the_quantizer_with_the_rule(monkeypatch, tmp_path):
    from one_cmds.quant import default_pipeline

    monkeypatch.setattr(default_pipeline, "forward", lambda graph: None)
    with pytest.raises(QuantizeError, match=r"Quantized graph is invalid \(MAX_POOL_2D 'pool'"):
        _quantized(_pool_net("MAX_POOL_2D"), "uint8", "layer", tmp_path)
