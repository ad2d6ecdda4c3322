"""Issue 16: the quantizer on real models (manifest.json), one test per (model, mode, check).

The checks and their bounds are in checks.py; what fails today is xfailed (strict) from
expected.py, so a fix shows up as XPASS -> failure until the table is updated. A mode the
quantizer does not offer yet (int8 before it lands) is skipped.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from corpus.checks import checks_for, enabled, entries, failure
from corpus.download import Entry
from corpus.expected import XFAIL
from corpus.run import MODES, ModeResult

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not enabled(), reason="ONE_CMDS_CORPUS=0"),
]


def _cases() -> list[object]:
    cases: list[object] = []
    for entry in entries():
        for mode in MODES:
            for check in checks_for(mode):
                # one worker takes every check of a (model, mode): the other would wait on
                # the result's lock while the first computes it
                marks = [pytest.mark.xdist_group(f"corpus-{entry.id}-{mode}")]
                reason = XFAIL.get((entry.id, mode, check))
                if reason is not None:
                    marks.append(pytest.mark.xfail(strict=True, reason=reason))
                cases.append(
                    pytest.param(entry, mode, check, marks=marks, id=f"{entry.id}-{mode}-{check}")
                )
    return cases


@pytest.mark.parametrize(("entry", "mode", "check"), _cases())
def test_corpus(
    corpus_result: Callable[[Entry, str], ModeResult], entry: Entry, mode: str, check: str
) -> None:
    result = corpus_result(entry, mode)
    if not result.available:
        pytest.skip(f"{mode} not available: {result.error}")
    message = failure(result, check)
    assert message is None, message
