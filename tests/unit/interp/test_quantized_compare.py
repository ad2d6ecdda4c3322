"""Quantized comparisons against LiteRT's reference kernels, bit for bit (comparisons.cc
rescales each operand by its own scale): equal and different qparams, broadcasting, and the
near-ties the fixed-point rescaling decides."""

from __future__ import annotations

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from support.quantized import NUMPY, assert_exact, qparam, quantized_model

OPCODES = ["EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"]


@pytest.mark.parametrize("opcode", OPCODES)
@pytest.mark.parametrize("dtype", ["UINT8", "INT8"])
@pytest.mark.parametrize(
    ("q1", "q2"),
    [((0.05, 10), (0.05, 10)), ((0.05, 10), (0.1, -3)), ((0.013, 0), (0.0039, 7))],
)
def test_comparison_matches_litert(opcode, dtype, q1, q2):
    info = np.iinfo(NUMPY[dtype])
    shift = 128 if dtype == "UINT8" else 0
    q1, q2 = qparam(q1[0], q1[1] + shift), qparam(q2[0], q2[1] + shift)
    a = np.arange(info.min, info.max + 1, 3).astype(NUMPY[dtype])[:, None]
    b = np.arange(info.min, info.max + 1, 17).astype(NUMPY[dtype])[None, :]
    assert_exact(quantized_model(opcode, [a, b], [q1, q2], "BOOL", None), [a, b])


def test_int16_compares_real_values():
    a = np.array([100, -40, 0], np.int16)
    b = np.array([50, -20, 3], np.int16)
    model = quantized_model("EQUAL", [a, b], [qparam(0.01), qparam(0.02)], "BOOL", None)
    (got,) = Interpreter(model).run([a, b])
    assert got.tolist() == [True, True, False]
