"""Attention with a causal mask of float32's lowest (quant/softmax_inputs.py): the softmax
input is quantized over the span the softmax tells apart and the mask is raised to it, so the
scores keep their precision. Before, the sum's scale was 1e+34: uniform attention in 8 bits
and an overflowing int16 rescale (Hugging Face Llama/Qwen2 exports)."""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from one_cmds.ir.schema import new_options
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


def test_classifier_rows_peaking_apart_keep_their_argmax(tmp_path):
    """A recognizer's time steps over a large vocabulary: rows whose top logit lies far below
    the set-wide maximum keep their distribution (a floor at ``max - 16`` flattened them)."""
    steps, classes = 24, 600
    net = Net()
    logits = net.input("logits", [1, steps, classes])
    net.outputs(net.op("SOFTMAX", [logits], new_options("SoftmaxOptions", beta=1.0), name="p"))
    model = net.model()
    rng = np.random.default_rng(1)

    def record() -> np.ndarray:
        x = rng.normal(0, 2, (1, steps, classes))
        peaks = rng.integers(0, classes, steps)
        x[0, np.arange(steps), peaks] += np.linspace(4, 40, steps)  # rows peak at 4..40
        return x.astype(np.float32)

    np.savez(tmp_path / "r.npz", **{"0": np.stack([record() for _ in range(16)])})
    q = one_cmds.quantize(
        model, quantized_dtype="int8", granularity="channel", input_type="float32",
        output_type="float32", input_data=str(tmp_path / "r.npz"), input_data_format="npz",
    )  # fmt: skip
    x = record()
    (want,) = one_cmds.Interpreter(model).run([x])
    (lite,) = run_model(q, [x], DEFAULT)
    assert np.array_equal(lite.argmax(-1), want.argmax(-1))
    assert np.abs(lite - want).max() <= 0.02
