"""Issue 22: the layout rule of onnx-import.md §5.5 on the corpus's ONNX models.

For each model, imported with ONNX-shaped I/O (``onnx``) and with both ``nchw_to_nhwc``
options (``nhwc``): LiteRT on the written ``.tflite`` agrees with onnxruntime on the ONNX
file; a plain CNN (manifest ``layout.plain_cnn``) keeps only TRANSPOSEs at its inputs and
outputs, and none with both options; every model keeps at most the manifest's
``layout.transposes`` (the counts measured when the rule last improved, so a regression
fails and an improvement is recorded there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.checks import enabled
from corpus.download import CorpusUnavailable, Entry
from corpus.layout import LAYOUTS, measure, onnx_entries, onnxruntime_outputs, records

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not enabled(), reason="ONE_CMDS_CORPUS=0"),
]

TOLERANCE = 1e-4  # of the output's largest magnitude (at least 1)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("entry", onnx_entries(), ids=lambda e: e.id)
def test_onnx_layout(entry: Entry, layout: str, tmp_path: Path) -> None:
    try:
        expected = onnxruntime_outputs(entry, records(entry))
    except CorpusUnavailable as e:
        pytest.skip(str(e))
    result = measure(entry, layout, tmp_path, expected)
    assert result.worst <= TOLERANCE, f"LiteRT differs from onnxruntime by {result.worst:.3g}"
    rule = entry.extra["layout"]
    bound = rule["transposes"][layout]
    assert result.transposes <= bound, f"{result.transposes} TRANSPOSEs, at most {bound}"
    if rule["plain_cnn"]:
        inner = result.transposes - result.boundary
        assert inner == 0, f"a plain CNN keeps {inner} TRANSPOSEs inside the graph"
        if layout == "nhwc":
            assert result.transposes == 0
