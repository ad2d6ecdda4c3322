"""LLM weights to GGML blocks (quantization.md §22, judges §23.1 and §23.4): selection in every
graph, the adopted warnings, tied embeddings, INT32 indices, bytes equal to ``gguf``'s, and a
multi-MB model quantized without becoming resident."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from gguf import GGMLQuantizationType
from gguf.quants import dequantize, quantize

import one_cmds
from one_cmds.interp import Interpreter
from one_cmds.ir import NO_ORIGIN, Graph, Model
from one_cmds.ir.schema import TYPE_BY_NAME, new_options
from one_cmds.quant import weight_chunks
from support.passes import Net, fc_options

GGUF = {"q4_0": GGMLQuantizationType.Q4_0, "q8_0": GGMLQuantizationType.Q8_0}
BLOCK_BYTES = {"q4_0": 18, "q8_0": 34}


def _gather(net: Net, params, indices, axis: int = 0):
    return net.op("GATHER", [params, indices], new_options("GatherOptions", axis=axis))


def _same_blocks(tensor, weights: np.ndarray, chunk: str) -> None:
    """§23.1: the bytes are gguf's blocks, and gguf decodes them to what the interpreter
    reads."""
    assert tensor.buffer.tobytes() == quantize(weights, GGUF[chunk]).tobytes()
    assert tensor.quant is None and tensor.shape == weights.shape


@pytest.fixture(scope="module")
def gpt(request):
    return one_cmds.load(str(request.config.rootpath / "tests/fixtures/gpt_decoder.tflite"))


@pytest.mark.parametrize("chunk", ["q4_0", "q8_0"])
def test_the_decoder(gpt, chunk):
    floats = {op.outputs[0].name: op.inputs[:3] for op in gpt.main.operators}
    converted = one_cmds.quantize(gpt, quantize_weights_chunk=chunk)
    graph = converted.main
    by_output = {op.outputs[0].name: op for op in graph.operators}
    embedding, lm_head = by_output["GatherV2;"], graph.operators[-1]
    assert lm_head.opcode == "FULLY_CONNECTED"
    assert embedding.inputs[0] is lm_head.inputs[1], "a tied embedding is converted once"
    kinds = {"q4_0": "GGML_Q4_0", "q8_0": "GGML_Q8_0"}
    for name, op in by_output.items():
        position = {"FULLY_CONNECTED": 1, "GATHER": 0}.get(op.opcode)
        if position is None:
            continue
        weight, source = op.inputs[position], floats[name][position]
        assert weight.dtype == kinds[chunk], name
        _same_blocks(weight, source.data, chunk)
        assert weight.buffer.nbytes == source.data.size * BLOCK_BYTES[chunk] // 32, "§23.4"
        if op.opcode == "FULLY_CONNECTED" and floats[name][2] is not None:
            assert op.inputs[2].dtype == "FLOAT32", "biases stay float32"
    assert graph.inputs[0].dtype == "INT32", "INT64 graph input indices are retyped"
    position = by_output["GatherV2_1;"]
    cast = by_output["range_i32"]
    assert position.inputs[1] is cast.outputs[0] and cast.outputs[0].dtype == "INT32"
    assert cast.inputs[0].name == "range" and cast.inputs[0].dtype == "INT64"
    assert (cast.options.inDataType, cast.options.outDataType) == (
        TYPE_BY_NAME["INT64"],
        TYPE_BY_NAME["INT32"],
    )
    assert cast.origin == NO_ORIGIN
    order = [op.outputs[0].name for op in graph.operators]
    assert order.index("range") < order.index("range_i32") < order.index("GatherV2_1;")
    origins = {op.outputs[0].name: op.origin for op in gpt.main.operators}
    assert all(op.origin == origins[op.outputs[0].name] for op in graph.operators if op is not cast)
    tokens = np.array([[3, 17, 42, 5]])
    (want,) = Interpreter(gpt).run([tokens])
    (got,) = Interpreter(converted).run([tokens.astype(np.int32)])
    error = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert error < {"q4_0": 0.3, "q8_0": 0.02}[chunk]


@pytest.mark.parametrize("chunk", ["q4_0", "q8_0"])
def test_blocks_equal_gguf_on_hard_data(chunk):
    """§23.1 cases through the converter's chunks: scales 1e-3, 1, 100, zero blocks, exact .5
    products, positive and negative maxima, |max| ties."""
    rng = np.random.default_rng(7)
    rows = [rng.standard_normal(128) * scale for scale in (1e-3, 1.0, 100.0)]
    rows.append(np.zeros(128))
    rows.append(np.tile((np.arange(32) - 16) / 4, 4))  # the spec example: exact halves
    rows.append(np.tile((16 - np.arange(32)) / 4, 4))  # its negative maximum
    ties = rng.standard_normal(128) * 0.5
    ties[::32], ties[5::32] = 3.0, -3.0
    rows.append(ties)
    weights = np.array(rows, np.float32)
    net = Net()
    x = net.input("x", [1, 128])
    net.outputs(net.op("FULLY_CONNECTED", [x, net.const("w", weights), None], fc_options()))
    (fc,) = one_cmds.quantize(net.model(), quantize_weights_chunk=chunk).main.operators
    _same_blocks(fc.inputs[1], weights, chunk)
    values = Interpreter(Model([_gather_graph(fc.inputs[1])])).run([np.arange(7)])[0]
    assert np.array_equal(values, dequantize(quantize(weights, GGUF[chunk]), GGUF[chunk]))


def _gather_graph(params) -> Graph:
    net = Net()
    indices = net.input("i", [7], "INT32")
    net.outputs(_gather(net, params, indices))
    return net.model(infer=False).main


def test_warnings_and_kept_weights(capsys):
    net = Net()
    ids = net.input("ids", [1, 4], "INT32")
    x, x48 = net.input("x", [1, 32]), net.input("x48", [1, 48])
    odd = net.random("odd", [8, 48])
    cube = net.random("cube", [4, 8, 32])
    wide = net.random("wide", [8, 64])
    huge = net.const("huge", np.full((4, 32), 1e6, np.float32))
    net.outputs(net.op("FULLY_CONNECTED", [x48, odd, None], fc_options()))
    net.outputs(_gather(net, cube, ids))
    net.outputs(_gather(net, wide, ids, axis=1))
    net.outputs(net.op("FULLY_CONNECTED", [x, huge, None], fc_options()))
    model = net.model(infer=False)
    converted = one_cmds.quantize(model, quantize_weights_chunk="q4_0")
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "WARNING: odd not quantized to GGML_Q4_0: last dimension 48 is not a multiple of 32",
        "WARNING: cube not quantized to GGML_Q4_0: GATHER needs rank-2 params and axis 0",
        "WARNING: wide not quantized to GGML_Q4_0: GATHER needs rank-2 params and axis 0",
        "WARNING: huge not quantized to GGML_Q4_0: scale overflows float16",
    ]
    dtypes = {t.dtype for op in converted.main.operators for t in op.inputs if t is not None}
    assert "GGML_Q4_0" not in dtypes
    q8 = one_cmds.quantize(model, quantize_weights_chunk="q8_0")
    assert "huge" not in capsys.readouterr().err, "1e6 / 127 fits float16"
    assert q8.main.operators[-1].inputs[1].dtype == "GGML_Q8_0"


def test_selection_rules(capsys):
    """Constant indices, skip_chunkquant_size (fewer elements: kept, silently), unselected
    users of a converted constant, every subgraph."""
    net = Net()
    ids = net.input("ids", [1, 4], "INT64")
    x = net.input("x", [1, 32])
    table = net.random("table", [16, 32])
    small = net.random("small", [2, 32])
    net.outputs(_gather(net, table, ids))
    net.outputs(_gather(net, net.random("fixed", [16, 32]), net.const("at", [1, 2], np.int32)))
    net.outputs(net.op("FULLY_CONNECTED", [x, small, None], fc_options()))
    net.outputs(net.binary("ADD", x, net.op("RESHAPE", [table, net.const("s", [16, 32])])))
    main = net.model(infer=False).main
    sub = Net()
    y = sub.input("y", [1, 32])
    sub.outputs(sub.op("FULLY_CONNECTED", [y, sub.random("sub_w", [64, 32]), None], fc_options()))
    model = Model([main, sub.model().main])
    converted = one_cmds.quantize(model, quantize_weights_chunk="q8_0", skip_chunkquant_size=65)
    assert capsys.readouterr().err == ""
    gather, fixed, dense, reshape, _ = converted.main.operators
    assert gather.inputs[0].dtype == "GGML_Q8_0"
    assert converted.main.inputs[0].dtype == "INT32"
    assert fixed.inputs[0].dtype == "FLOAT32", "constant indices: not selected"
    assert dense.inputs[1].dtype == "FLOAT32", "64 elements < 65"
    assert reshape.inputs[0].dtype == "FLOAT32", "an unselected reader keeps the float original"
    assert converted.graphs[1].operators[0].inputs[1].dtype == "GGML_Q8_0"
    exact = one_cmds.quantize(model, quantize_weights_chunk="q8_0", skip_chunkquant_size=64)
    assert exact.main.operators[2].inputs[1].dtype == "GGML_Q8_0", "64 elements >= 64"


def test_with_weights_only(request, capsys):
    """Both keys: GGML blocks first (the FULLY_CONNECTED), then int8 (the convolutions)."""
    path = request.config.rootpath / "tests/fixtures/mobilenet_tiny.tflite"
    model = one_cmds.load(str(path))
    both = one_cmds.quantize(model, quantize_weights_chunk="q8_0", quantize_weights=True)
    weights = {op.opcode: op.inputs[1].dtype for op in both.main.operators if len(op.inputs) > 2}
    assert weights == {
        "CONV_2D": "INT8",
        "DEPTHWISE_CONV_2D": "INT8",
        "FULLY_CONNECTED": "GGML_Q8_0",
    }


def test_chunks_release_pages(monkeypatch):
    net = Net()
    x = net.input("x", [1, 64])
    net.outputs(net.op("FULLY_CONNECTED", [x, net.random("w", [9, 64]), None], fc_options()))
    model = net.model()
    whole = one_cmds.quantize(model, quantize_weights_chunk="q4_0").main.operators[0]
    released = []
    monkeypatch.setattr(weight_chunks, "CHUNK_BYTES", 4 * 64 * 4)
    monkeypatch.setattr(weight_chunks, "release_pages", released.append)
    chunked = one_cmds.quantize(model, quantize_weights_chunk="q4_0").main.operators[0]
    assert [len(part) for part in released] == [4, 4, 1]
    assert whole.inputs[1].buffer.tobytes() == chunked.inputs[1].buffer.tobytes()


_MEASURE = """
import json, sys
import one_cmds

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) * 1024

given = json.loads(sys.argv[2])
one_cmds.quantize(one_cmds.load(sys.argv[3]), **given)  # imports, on a small model
model = one_cmds.load(sys.argv[1])
before = peak()
result = one_cmds.quantize(model, **given)
kept = sum(t.buffer.nbytes for t in result.main.referenced_tensors() if t.is_constant)
print(json.dumps({"grown": peak() - before, "result": kept}))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="VmHWM needs Linux")
@pytest.mark.parametrize(
    "given", [{"quantize_weights_chunk": "q4_0"}, {"quantize_weights": True}], ids=["q4_0", "int8"]
)
def test_a_mapped_model_does_not_become_resident(tmp_path, fixture_path, given):
    """A 64 MB weight of a loaded (memory-mapped) file: the peak resident set grows by the
    result and a few chunks' temporaries, never by the file."""
    net = Net()
    x = net.input("x", [1, 4096])
    weights = np.random.default_rng(0).standard_normal((4096, 4096), np.float32)
    net.outputs(net.op("FULLY_CONNECTED", [x, net.const("w", weights), None], fc_options()))
    path = tmp_path / "big.circle"
    one_cmds.save(net.model(), str(path))
    del weights, net
    small = fixture_path("mobilenet_tiny.tflite")
    command = [sys.executable, "-c", _MEASURE, str(path), json.dumps(given), small]
    measured = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    # without the released pages the file alone would add its 64 MB
    assert measured["grown"] - measured["result"] <= 40 * 2**20, measured
