"""decompose_hardswish (reference DecomposeHardSwishPass)."""

import numpy as np

from one_cmds.ir import QuantParam
from support.passes import Net, assert_same_outputs, kinds, optimized, origin_names

PASS = "decompose_hardswish"


def hardswish_net(dtype="FLOAT32"):
    net = Net()
    x = net.input("x", [2, 3, 8], dtype)
    y = net.op("HARD_SWISH", [x], name="hs", outputs=[dtype])
    net.outputs(net.op("NEG", [y], name="neg", outputs=[dtype]) if dtype == "FLOAT32" else y)
    if dtype != "FLOAT32":
        for t in (x, y):
            t.quant = QuantParam(scale=np.float32([0.05]), zero_point=np.int64([0]))
    return net.model()


def test_becomes_add_relu6_mul_mul():
    model = hardswish_net()
    after = optimized(model, PASS)
    assert kinds(after) == ["ADD", "RELU6", "MUL", "MUL", "NEG"]
    ops = after.main.operators
    add, relu6, mul1, mul2 = ops[:4]
    x = after.main.inputs[0]
    assert add.inputs[0] is x and add.inputs[1].data == np.float32(3)
    assert add.inputs[1].shape == ()
    assert mul1.inputs[0] is relu6.outputs[0]
    assert mul1.inputs[1].data == np.float32(1 / 6)
    assert mul2.inputs == [x, mul1.outputs[0]]
    assert ops[4].inputs[0] is mul2.outputs[0]
    assert mul2.outputs[0].name == "hs"
    for op in ops[:4]:
        assert origin_names(after, op) == {"hs"}
    x = np.linspace(-5, 5, 48, dtype=np.float32).reshape(2, 3, 8)
    assert_same_outputs(model, after, [x])


def test_quantized_hardswish_stays():
    model = hardswish_net("INT8")
    assert kinds(optimized(model, PASS)) == ["HARD_SWISH"]
