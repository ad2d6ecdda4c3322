"""The one-resize shape-string grammar (resize.md §2)."""

import pytest

from one_cmds.config.shapes import ShapeStringError, parse_shapes
from one_cmds.stages.resize import format_shape

U = None


@pytest.mark.parametrize(
    ("text", "shapes"),
    [
        ("[3,4]", [(3, 4)]),
        ("[-1]", [(U,)]),
        ("[  5,  6]", [(5, 6)]),
        ("[3 , 4]", [(3, 4)]),
        ("[-1 , 4]", [(U, 4)]),
        ("[3,4],[5,6]", [(3, 4), (5, 6)]),
        (" [3, 4] , [5,6]", [(3, 4), (5, 6)]),
        (" [ 1   ] ,[  2]  ", [(1,), (2,)]),
        ("[1,2],[3,4,5],[6,7,8,9]", [(1, 2), (3, 4, 5), (6, 7, 8, 9)]),
        ("[]", [()]),
        ("[  ]", [()]),
        ("[],[]", [(), ()]),
        ("[],[2]", [(), (2,)]),
        ("[0,3]", [(0, 3)]),
        ("[+3]", [(3,)]),
        ("[2,299,299,3]", [(2, 299, 299, 3)]),
        ("[1,3,3,1],[1,3,3,1]", [(1, 3, 3, 1), (1, 3, 3, 1)]),
        ("\t[1]\t,\t[2]", [(1,), (2,)]),
        ("[2147483647]", [(2147483647,)]),
    ],
)
def test_valid(text, shapes):
    assert parse_shapes(text) == shapes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "No shapes found in the input string: "),
        ("]", "No shapes found in the input string: ]"),
        ("1a,2", "No shapes found in the input string: 1a,2"),
        ("-1", "No shapes found in the input string: -1"),
        ("7,7", "No shapes found in the input string: 7,7"),
        ("8", "No shapes found in the input string: 8"),
        ("1,2", "No shapes found in the input string: 1,2"),
        ("abcd", "No shapes found in the input string: abcd"),
        ("[-2]", "Error during shape processing: -2"),
        ("[-2,1,3]", "Error during shape processing: -2,1,3"),
        ("[[]],", "Error during shape processing: ["),
        ("[1, ,2]", "Error during shape processing: 1, ,2"),
        ("[8],9", "The part of input shapes: ,9 cannot be processed"),
        ("[1],[2],", "The part of input shapes: , cannot be processed"),
        ("][1]", "Invalid shape format: ][1]"),
        ("][", "Invalid shape format: ]["),
        ("abc[1]", "Invalid shape format: abc[1]"),
        ("[1][2]", "Invalid shape format: [1][2]"),
        ("[1]x[2]", "Invalid shape format: [1]x[2]"),
        ("[1],,[2]", "Invalid shape format: [1],,[2]"),
        ("[1,]", "Error during shape processing: 1,"),
        ("[1a]", "Error during shape processing: 1a"),
        ("[1.9]", "Error during shape processing: 1.9"),
        ("[99999999999]", "Error during shape processing: 99999999999"),
        ("[2147483648]", "Error during shape processing: 2147483648"),
    ],
)
def test_invalid(text, message):
    with pytest.raises(ShapeStringError) as e:
        parse_shapes(text)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("shape", "text"),
    [
        ((), "[]"),
        ((1,), "[1]"),
        ((1, 2, 3), "[1, 2, 3]"),
        ((1, U, 3), "[1, -1, 3]"),
        ((U, U), "[-1, -1]"),
    ],
)
def test_format(shape, text):
    assert format_shape(shape) == text
