"""Issue 19: calibration on LiteRT records the reference interpreter's ranges on every
corpus model, within the float rounding of different kernels."""

from __future__ import annotations

import pytest

from corpus.checks import enabled, entries
from corpus.download import CorpusUnavailable, Entry
from corpus.engines import calibration_records, engine_ranges, worst_difference

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not enabled(), reason="ONE_CMDS_CORPUS=0"),
]

# Of the tensor's range over the records. basic-pitch's CQT front end accumulates long float
# sums in a different order in XNNPACK (6e-4); every other model is within 2e-5.
BOUND = 1e-3


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e.id)
def test_litert_calibration_records_the_reference_ranges(corpus_results, entry: Entry) -> None:
    try:
        prep = corpus_results.prepared(entry)
    except CorpusUnavailable as e:
        pytest.skip(f"corpus model unavailable: {e}")
    records = calibration_records(prep.calibration)
    ours = engine_ranges(prep.model, records, "auto")
    if ours.note != "engine: litert":
        pytest.skip(f"{entry.id}: {ours.note}")
    reference = engine_ranges(prep.model, records, "reference")
    assert ours.ranges.keys() == reference.ranges.keys()
    worst, where = worst_difference(ours.ranges, reference.ranges)
    assert worst <= BOUND, f"{where}: {worst:.2e} of its range"
