"""Attention with a causal mask of float32's lowest (quant/softmax_inputs.py): the softmax
input is quantized over the span the softmax tells apart and the mask is raised to it, so the
scores keep their precision. Before, the sum's scale was 1e+34: uniform attention in 8 bits
and an overflowing int16 rescale (Hugging Face Llama/Qwen2 exports)."""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from one_cmds.ir import QuantParam
from one_cmds.ir.schema import new_options
from one_cmds.quant.softmax_inputs import narrow_softmax_inputs
from support.litert import BUILTIN, DEFAULT, run_model
from support.passes import Net

N = 8
LOWEST = np.finfo(np.float32).min


def _attention(constant_mask: bool):
    net = Net()
    scores = net.input("scores", [1, N, N])
    causal = np.where(np.tril(np.ones((N, N), bool)), 0.0, LOWEST).astype(np.float32)[None]
    if constant_mask:
        mask = net.const("mask", causal)
    else:  # computed, as the exporters write it: SELECT_V2(cond, 0, lowest)
        keep = net.input("keep", [1, N, N], "BOOL")
        zero, lowest = net.const("zero", np.float32(0)), net.const("lowest", LOWEST)
        mask = net.op("SELECT_V2", [keep, zero, lowest], name="mask")
    masked = net.op("ADD", [scores, mask], name="masked")
    net.outputs(net.op("SOFTMAX", [masked], new_options("SoftmaxOptions", beta=1.0), name="p"))
    return net.model(), causal


def _records(rng, constant_mask: bool, count: int):
    scores = rng.normal(0, 2, (count, 1, N, N)).astype(np.float32)
    keep = np.broadcast_to(np.tril(np.ones((N, N), bool)), (count, 1, N, N)).copy()
    return [scores] if constant_mask else [scores, keep]


@pytest.mark.parametrize("constant_mask", [True, False])
@pytest.mark.parametrize(
    ("dtype", "tolerance"), [("uint8", 0.02), ("int16", 0.002), ("int8", 0.02)]
)
def test_masked_softmax_keeps_its_scores(tmp_path, constant_mask, dtype, tolerance):
    model, _ = _attention(constant_mask)
    rng = np.random.default_rng(0)
    np.savez(
        tmp_path / "r.npz", **{str(i): a for i, a in enumerate(_records(rng, constant_mask, 16))}
    )
    q = one_cmds.quantize(
        model, quantized_dtype=dtype, granularity="channel", input_type="float32",
        output_type="float32", input_data=str(tmp_path / "r.npz"), input_data_format="npz",
    )  # fmt: skip
    inputs = [a[0] for a in _records(rng, constant_mask, 1)]
    (want,) = one_cmds.Interpreter(model).run(inputs)
    (got,) = one_cmds.Interpreter(q).run(inputs)
    assert np.abs(got - want).max() <= tolerance
    if dtype == "int8":
        for resolver in (DEFAULT, BUILTIN):
            (lite,) = run_model(q, inputs, resolver)
            assert np.abs(lite - want).max() <= tolerance


@pytest.mark.parametrize(("low", "narrowed"), [(-42.0, False), (float(LOWEST), True)])
def test_only_a_masked_softmax_input_is_narrowed(low, narrowed):
    """PP-OCR rec's classifier: logits recorded in [-42, 19] whose time steps peak as low as
    1.0 keep that range (a floor at 19 - 16 flattened those steps); a range a mask brought to
    float32's lowest is narrowed to the 16 below its maximum."""
    net = Net()
    features = net.input("features", [4, 8])
    head = net.const("head", np.eye(8, dtype=np.float32))
    logits = net.op("FULLY_CONNECTED", [features, head, None], name="logits")
    net.outputs(net.op("SOFTMAX", [logits], new_options("SoftmaxOptions", beta=1.0), name="p"))
    graph = net.model().main
    x = graph.operators[-1].inputs[0]
    x.quant = QuantParam(min=np.array([low], np.float32), max=np.array([19.0], np.float32))
    assert narrow_softmax_inputs(graph) == int(narrowed)
    assert float(x.quant.min[0]) == (3.0 if narrowed else low)
