"""Helpers of the one-partition tests: the worked example's graph and running parts in sequence."""

from __future__ import annotations

import json
import os

import numpy as np

from one_cmds.engines import Interpreter
from one_cmds.ir import Model
from one_cmds.partition import partition
from support.passes import Net, new_options

PART_DIV_ACL_CL = """\
[partition]
backends=cpu,acl_cl
default=cpu
comply=opcode

[OPCODE]
DIV=acl_cl
"""


def instance_norm_003() -> Model:
    """The graph of the reference recipe Net_InstanceNorm_003: an instance-norm decomposition
    Mean, SquaredDifference, Mean, Add, Pow, Sub, Div, Mul, Add_as_terminal."""
    net = Net()
    x = net.input("Input", [1, 8, 6, 12])
    axes = net.const("Reduction_indices", [1, 2], np.int32)
    keep = new_options("ReducerOptions", keepDims=True)
    mean = net.op("MEAN", [x, axes], keep, name="Mean_of_ifm")
    sqd = net.op("SQUARED_DIFFERENCE", [x, mean], name="SquaredDifference")
    var = net.op("MEAN", [sqd, axes], keep, name="Mean_as_variance")
    var_eps = net.binary("ADD", var, net.const("Epsilon", 0.001), name="Add_as_variance")
    std = net.op("POW", [var_eps, net.const("Zero_point_five", 0.5)], name="Pow")
    centered = net.binary("SUB", x, mean, name="Sub")
    div = net.binary("DIV", centered, std, name="Div")
    scaled = net.binary("MUL", div, net.random("Gamma", [12], 0.5, 2.0), name="Mul_gamma")
    out = net.binary("ADD", scaled, net.random("Beta", [12]), act=1, name="Add_as_terminal")
    net.outputs(out)
    return net.model()


def run_parts(conn_json: str, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Run the parts that ``conn_json`` lists one after the other, each reading the tensors
    it names from the earlier ones; return the source outputs."""
    with open(conn_json, encoding="utf-8") as f:
        conn = json.load(f)
    folder = os.path.dirname(conn_json)
    values = dict(inputs)
    for part in conn["parts"]:
        interpreter = Interpreter(os.path.join(folder, part["file"]), engine="reference")
        results = interpreter.run({name: values[name] for name in part["inputs"]})
        values.update(zip(part["outputs"], results, strict=True))
    return [values[name] for name in conn["source"]["outputs"]]


def partition_in(
    work: str | os.PathLike[str],
    model: Model | None,
    input_file: str,
    *,
    part_file: str = "m.part",
    default: str | None = None,
    profile: bool = False,
) -> list[str]:
    """``partition`` with the work folder ``work``, no --backends and the given options."""
    return partition(
        model,
        part_file=part_file,
        input_file=input_file,
        work_path=os.fspath(work),
        backends=None,
        default=default,
        profile=profile,
    )
