"""fuse_gelu (optimization.md §5.15).

The original holds CUSTOM(Erf), which LiteRT cannot run: it runs in the project's interpreter
(kernel tested in tests/unit/interp/test_erf.py) while the fused GELU model runs in LiteRT.
"""

import math

import numpy as np
import pytest

from one_cmds.interp import Interpreter
from support.litert import BUILTIN, random_inputs, run_model
from support.passes import Net, kinds, op_named, optimized, origin_names

PASS = "fuse_gelu"
SHAPE = [2, 5, 7]
PATTERN = ["MUL", "CUSTOM(Erf)", "ADD", "MUL", "MUL"]
SQRT_HALF = math.sqrt(0.5)


def gelu_net(
    *,
    c=SQRT_HALF,
    one=1.0,
    half=0.5,
    swap=False,
    add_act=0,
    other_x=False,
    code="Erf",
    c_input=False,
):
    net = Net()
    x = net.input("x", SHAPE)
    y = net.input("y", SHAPE) if other_x else x
    cs = net.input("c", []) if c_input else net.const("c", np.float32(c))
    scaled = net.binary("MUL", y, cs, swap=swap, name="mul_sqrt")
    erf = net.op("CUSTOM", [scaled], name="erf", custom_code=code)
    erf.shape = tuple(SHAPE)  # a custom operator keeps its declared shape
    o = net.const("one", np.float32(one))
    add = net.binary("ADD", erf, o, swap=swap, act=add_act, name="add_one")
    mul = net.binary("MUL", x, add, swap=swap, name="mul")
    h = net.const("half", np.float32(half))
    net.outputs(net.binary("MUL", mul, h, swap=swap, name="mul_half"))
    return net.model()


def assert_gelu_matches(model, after):
    """The original in the interpreter against the fused model in LiteRT."""
    inputs = random_inputs(model, seed=7)
    inputs = [x * 3 for x in inputs]
    want = Interpreter(model).run(inputs)
    got = run_model(after, inputs, BUILTIN)
    for w, g in zip(want, got, strict=True):
        assert w.shape == g.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("c", [SQRT_HALF, SQRT_HALF + 9e-6])
def test_fuses_into_gelu(swap, c):
    model = gelu_net(swap=swap, c=c)
    after = optimized(model, PASS)
    assert kinds(after) == ["GELU"]
    gelu = op_named(after, "GELU")
    assert gelu.inputs[0] is after.main.inputs[0]
    assert gelu.options.approximate is False
    assert origin_names(after, gelu) == {"mul_sqrt", "erf", "add_one", "mul", "mul_half"}
    assert after.main.outputs[0].name == "mul_half"
    assert_gelu_matches(model, after)


@pytest.mark.parametrize(
    "variant",
    [
        {"c": SQRT_HALF + 2e-5},
        {"one": 1.0001},
        {"half": 0.25},
        {"add_act": 1},
        {"other_x": True},  # the scaled tensor is not the multiplied one
        {"code": "Erfc"},
        {"c_input": True},
    ],
    ids=str,
)
def test_near_misses_stay(variant):
    model = gelu_net(**variant)
    after = optimized(model, PASS)
    assert kinds(after) == kinds(model)
    assert "GELU" not in kinds(after)
