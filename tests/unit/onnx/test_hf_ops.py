"""Converters the Hugging Face exports need (issue 17, tests/fixtures/generate_hf.py), each on a
unit graph judged against onnxruntime."""

import numpy as np
import pytest

from support.onnx_check import check
from support.onnx_text import opcodes, text_model

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_elements_with_unknown_index_dims(axis, tmp_path):
    """BertEmbeddings' ``gather(token_type_ids.expand(batch, -1), 1, position_ids)``: the
    coordinates along the other axes come from the indices' SHAPE, static after resize."""
    graph = f"""
    g (float[N,5,4] x, int64[N,M,3] i) => (float[] y) {{
        y = GatherElements<axis={axis}>(x, i)
    }}"""
    x = RNG.uniform(-1, 1, (3, 5, 4)).astype(np.float32)
    limit = x.shape[axis]
    i = RNG.integers(-limit, limit, (3, 2, 3))
    imported = check(text_model(graph, 13), tmp_path, inputs=[x, i])
    assert {"RANGE", "BROADCAST_TO", "GATHER_ND"} <= set(opcodes(imported))
