"""ONNX reductions (onnx-import.md §6.1): ReduceMean/Sum/Max/Min/Prod, ReduceL2,
ReduceSumSquare, ReduceLogSumExp; axes from the attribute or the input; keepdims;
noop_with_empty_axes."""

import numpy as np
import onnx
import pytest

from support.onnx_check import check
from support.onnx_text import opcodes, text_model

SIMPLE = ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"]
DECOMPOSED = ["ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"]
# The opset from which each reduction takes its axes as an input.
AXES_INPUT = {"ReduceSum": 13}


def reduction(op: str, opset: int, axes: list[int] | None, **attrs) -> onnx.ModelProto:
    """``op`` over ``axes`` of an [N, 3, 4, 5] input, axes as attribute or input by opset."""
    by_input = opset >= AXES_INPUT.get(op, 18)
    attributes = dict(attrs)
    if axes is not None and not by_input:
        attributes["axes"] = axes
    listed = ",".join(f"{k}={v}".replace(" ", "") for k, v in attributes.items())
    call = f"{op}<{listed}>" if listed else op
    operands = "x, a" if axes is not None and by_input else "x"
    graph = f"g (float[N,3,4,5] x) => (float[] y) {{ y = {call}({operands}) }}"
    extra = {"a": np.array(axes, np.int64)} if axes is not None and by_input else {}
    return text_model(graph, opset, **extra)


@pytest.mark.parametrize("op", SIMPLE + DECOMPOSED)
@pytest.mark.parametrize(
    ("opset", "axes", "keepdims"), [(11, [1, -1], 1), (13, [2], 0), (18, [-3, 2], 1)]
)
def test_reductions_over_axes(tmp_path, op, opset, axes, keepdims):
    check(reduction(op, opset, axes, keepdims=keepdims), tmp_path)


@pytest.mark.parametrize("op", SIMPLE + DECOMPOSED)
def test_no_axes_reduces_everything(tmp_path, op):
    imported = check(reduction(op, 18, None, keepdims=0), tmp_path)
    assert imported.main.outputs[0].shape == ()


@pytest.mark.parametrize(
    ("op", "opset"), [("ReduceSum", 13), ("ReduceMean", 18), ("ReduceMax", 18)]
)
def test_noop_with_empty_axes(tmp_path, op, opset):
    graph = (
        f"g (float[N,3,4] x) => (float[] y) {{ r = {op}<noop_with_empty_axes=1>(x) y = Relu(r) }}"
    )
    assert opcodes(check(text_model(graph, opset), tmp_path)) == ["RELU"]


def test_empty_axes_input_without_noop_reduces_everything(tmp_path):
    graph = "g (float[N,3,4] x) => (float[] y) { y = ReduceSum<keepdims=1>(x, a) }"
    imported = check(text_model(graph, 13, a=np.zeros(0, np.int64)), tmp_path)
    assert imported.main.outputs[0].shape == (1, 1, 1)


def test_log_sum_exp_is_stable_for_large_values(tmp_path):
    graph = "g (float[2,3,4] x) => (float[] y) { y = ReduceLogSumExp<axes=[1],keepdims=0>(x) }"
    m = text_model(graph, 13)
    x = np.random.default_rng(0).uniform(80, 100, (2, 3, 4)).astype(np.float32)
    imported = check(m, tmp_path, inputs=[x])
    assert "REDUCE_MAX" in opcodes(imported)


def test_integer_reductions(tmp_path):
    graph = """
    g (int32[N,3,4] x) => (int32[] y, int32[] z) {
        y = ReduceMax<axes=[1]>(x)
        z = ReduceSum<keepdims=0>(x, a)
    }"""
    check(text_model(graph, 13, a=np.array([2])), tmp_path)
