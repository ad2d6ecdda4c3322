"""How a foreign library's exception reads as one line (report/chatter.cause_line): the
reason, not the framing around it, whichever end of the message torch or TensorFlow puts it."""

from __future__ import annotations

import pytest

from one_cmds.report.chatter import cause_line


class OutOfRangeError(Exception):
    pass


@pytest.mark.parametrize(
    ("error", "line"),
    [
        # TensorFlow: framing, the reason, then the node
        (
            OutOfRangeError(
                "Graph execution error:\n\nRead less bytes than requested\n\t [[{{node RestoreV2}}]]"
            ),
            "OutOfRangeError: Read less bytes than requested",
        ),
        # TensorFlow: the reason, then a hint that does not apply
        (
            FileNotFoundError(
                "Unsuccessful TensorSliceReader constructor: no files for v/variables\n You may be "
                "trying to load on a different device from the computational device."
            ),
            "FileNotFoundError: Unsuccessful TensorSliceReader constructor: no files for v/variables",
        ),
        # torch.export: the reason, then where it happened
        (
            RuntimeError(
                "Expected 4-dimensional input, but got 3-dimensional input\n\nWhile executing "
                "%convolution\nOriginal traceback:\nNone\nUse tlparse to see full graph."
            ),
            "RuntimeError: Expected 4-dimensional input, but got 3-dimensional input",
        ),
        # a TorchScript traceback: the quoted exception at its end, its type not repeated
        (
            RuntimeError(
                "The following operation failed in the TorchScript interpreter.\nTraceback of "
                'TorchScript (most recent call last):\n  File "code/__torch__.py", line 9\n'
                "RuntimeError: a and b must have same reduction dim"
            ),
            "RuntimeError: a and b must have same reduction dim",
        ),
        (ValueError(""), "ValueError"),
    ],
)
def test_the_reason_is_picked(error, line):
    assert cause_line(error) == line


def test_the_innermost_cause_speaks():
    try:
        try:
            raise KeyError("weight_0")
        except KeyError as inner:
            raise RuntimeError("loading failed") from inner
    except RuntimeError as outer:
        assert cause_line(outer) == "KeyError: 'weight_0'"
