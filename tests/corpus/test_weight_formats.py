"""Issue 20: the LLM weight formats on every corpus model: each mode quantizes it, the circle
file round-trips byte for byte, the interpreter runs the result to finite outputs, and LiteRT
runs it too where it has the kernels (the forms it refuses are LiteRT gaps, and the model
stays circle-only). How far the outputs move from float is printed (``-rs``), not bounded:
a weights-only CNN run on random records can drift far (the corpus notes, docs/results/corpus.md)."""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from corpus.checks import enabled, entries
from corpus.download import CorpusUnavailable, Entry
from one_cmds.engines.litert_coverage import litert_gaps
from one_cmds.interp import Interpreter

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not enabled(), reason="ONE_CMDS_CORPUS=0"),
]

MODES = {
    "int8": {"quantize_weights": True},
    "int4": {"quantize_weights": True, "quantized_dtype": "int4"},
    "q8_0": {"quantize_weights_chunk": "q8_0"},
    "q4_0": {"quantize_weights_chunk": "q4_0"},
}
RECORDS = 2


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("entry", entries(), ids=lambda e: e.id)
def test_weight_format_runs(corpus_results, entry: Entry, mode: str, tmp_path) -> None:
    try:
        prep = corpus_results.prepared(entry)
    except CorpusUnavailable as e:
        pytest.skip(f"corpus model unavailable: {e}")
    quantized = one_cmds.quantize(prep.model, **MODES[mode])
    path = tmp_path / "q.circle"
    one_cmds.save(quantized, str(path))
    again = tmp_path / "again.circle"
    one_cmds.save(one_cmds.load(str(path)), str(again))
    assert path.read_bytes() == again.read_bytes()
    interpreter = Interpreter(quantized)
    drift = 0.0
    for record, expected in zip(prep.test[:RECORDS], prep.expected[:RECORDS], strict=True):
        for got, want in zip(interpreter.run(record), expected, strict=True):
            assert np.all(np.isfinite(got)) if got.dtype.kind == "f" else True
            if want.dtype.kind == "f":
                drift = max(drift, float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-12)))
    if not litert_gaps(quantized):
        litert = one_cmds.Interpreter(quantized, engine="litert")
        for got in litert.run(prep.test[0]):
            assert np.all(np.isfinite(got)) if got.dtype.kind == "f" else True
    print(f"{entry.id} {mode}: largest output change {drift:.3g} of the float output's range")
