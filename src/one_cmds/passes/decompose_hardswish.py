"""``decompose_hardswish`` (reference ``DecomposeHardSwishPass.cpp``): a FLOAT32
``HardSwish(x)`` becomes ``Mul(x, Mul(Relu6(Add(x, 3)), 1/6))`` with rank-0 FLOAT32 constants;
every new operator copies the HardSwish's origin. ``exact=False``: the decomposed arithmetic
rounds differently from the HardSwish kernel."""

from __future__ import annotations

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import GraphEditor
from .toolkit.build import binary, decompose_each, float_scalar


def _decomposed(g: GraphEditor, hardswish: Operator) -> Tensor:
    x, out, origin = hardswish.inputs[0], hardswish.outputs[0], hardswish.origin
    name = out.name
    three = float_scalar(g, f"{name}/Add/const", 3.0)
    shifted = binary(g, "ADD", x, three, origin=origin, like=out, name=f"{name}/Add")
    relu6 = g.op("RELU6", [shifted], origin=origin, like=out, name=f"{name}/Relu6").outputs[0]
    sixth = float_scalar(g, f"{name}/Mul/const", 1.0 / 6.0)
    gate = binary(g, "MUL", relu6, sixth, origin=origin, like=out, name=f"{name}/Mul1")
    return binary(g, "MUL", x, gate, origin=origin, like=out, name=f"{name}/Mul2")


@graph_pass("decompose_hardswish", exact=False)
def decompose_hardswish(g: GraphEditor) -> int:
    return decompose_each(g, "HARD_SWISH", lambda op: _decomposed(g, op))
