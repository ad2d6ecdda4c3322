"""The operators LiteRT cannot run (engines/litert_coverage.py): each sampled row of the table is
refused by LiteRT, a neighbour outside the table runs, and a quantized model with such
operators is reported by kind."""

import numpy as np
import pytest

import one_cmds
from one_cmds.engines.litert_coverage import NO_KERNEL, litert_gaps
from one_cmds.ir import QuantParam
from support.litert import BUILTIN, DEFAULT, run_model
from support.single_op import op_model

NUMPY = {"UINT8": np.uint8, "INT8": np.int8, "INT16": np.int16}
ZERO = {"UINT8": 128, "INT8": 0, "INT16": 0}


def _unary(opcode: str, dtype: str):
    x = np.full((1, 4, 4, 4), 3, NUMPY[dtype])
    model = op_model(opcode, [x], outputs=[dtype])
    op = model.main.operators[0]
    for t in (op.inputs[0], op.outputs[0]):
        t.quant = QuantParam(
            scale=np.array([0.05], np.float32), zero_point=np.array([ZERO[dtype]], np.int64)
        )
    return model, [x]


@pytest.mark.parametrize(
    ("opcode", "dtype"),
    [("RSQRT", "UINT8"), ("ABS", "UINT8"), ("HARD_SWISH", "INT16"), ("SQUARE", "INT8")],
)
@pytest.mark.parametrize("resolver", [DEFAULT, BUILTIN])
def test_litert_refuses_a_row(opcode, dtype, resolver):
    assert opcode in NO_KERNEL[dtype]
    model, inputs = _unary(opcode, dtype)
    with pytest.raises(RuntimeError):
        run_model(model, inputs, resolver)
    assert [str(g) for g in litert_gaps(model)] == [
        f"LiteRT has no {dtype} {opcode} kernel ('output0')"
    ]


@pytest.mark.parametrize(("opcode", "dtype"), [("ABS", "INT8"), ("HARD_SWISH", "UINT8")])
def test_litert_runs_what_is_not_in_the_table(opcode, dtype):
    assert opcode not in NO_KERNEL[dtype]
    model, inputs = _unary(opcode, dtype)
    run_model(model, inputs, DEFAULT)
    assert litert_gaps(model) == []


def test_a_quantized_transformer_block_names_what_stops_litert(fixture_path):
    quantized = one_cmds.quantize(one_cmds.load(fixture_path("transformer_block.tflite")))
    assert [g.what for g in litert_gaps(quantized)] == [
        "UINT8 SQUARED_DIFFERENCE kernel",
        "UINT8 RSQRT kernel",
        "UINT8 BATCH_MATMUL kernel",
    ]
