"""Byte layouts and decoder errors of the ONE metadata tables (circle spec §7, §12)."""

import pytest

from one_cmds.formats import metadata as md


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace("|", " "))


@pytest.mark.parametrize(
    ("table", "blob"),
    [
        ({0: "ofm"}, "01 00 00 00 | 00 00 00 00 | 04 00 00 00 | 6f 66 6d 00"),
        ({1: "node1"}, "01 00 00 00 | 01 00 00 00 | 06 00 00 00 | 6e 6f 64 65 31 00"),
        ({}, "00 00 00 00"),
        (
            {2: "prob", 0: "conv1", 1: "relu1"},
            "03 00 00 00 | 00 00 00 00 06 00 00 00 63 6f 6e 76 31 00 | "
            "01 00 00 00 06 00 00 00 72 65 6c 75 31 00 | 02 00 00 00 05 00 00 00 70 72 6f 62 00",
        ),
    ],
)
def test_source_table_layout(table, blob):
    assert md.encode_source_table(table) == hx(blob)
    assert md.decode_source_table(hx(blob)) == table


@pytest.mark.parametrize(
    ("table", "blob"),
    [
        ({0: {1, 2}}, "01 00 00 00 | 00 00 00 00 | 02 00 00 00 | 01 00 00 00 02 00 00 00"),
        (
            {1: {2}, 0: {1, 0}},
            "02 00 00 00 | 00 00 00 00 02 00 00 00 00 00 00 00 01 00 00 00 | "
            "01 00 00 00 01 00 00 00 02 00 00 00",
        ),
    ],
)
def test_op_table_layout(table, blob):
    assert md.encode_op_table(table) == hx(blob)
    assert md.decode_op_table(hx(blob)) == {k: frozenset(v) for k, v in table.items()}


def test_source_names_keep_raw_bytes():
    raw = b"\xff\xfeodd"
    blob = b"\x01\0\0\0" + b"\x07\0\0\0" + b"\x06\0\0\0" + raw + b"\0"
    decoded = md.decode_source_table(blob)
    assert md.encode_source_table(decoded) == blob


def test_op_table_repeated_ids_collapse():
    blob = hx("01 00 00 00 | 00 00 00 00 | 02 00 00 00 | 05 00 00 00 05 00 00 00")
    assert md.decode_op_table(blob) == {0: frozenset({5})}


def test_execution_plan_example():
    blob = hx("01 00 00 00 | 01 00 00 00 | 02 00 00 00 | 01 00 00 00 | 64 00 00 00")
    assert md.decode_execution_plan_table(blob) == {1: (1, 100)}


@pytest.mark.parametrize(
    ("decode", "blob", "message"),
    [
        (md.decode_source_table, "01 00 00", "Source table decode error : invalid entry number"),
        (
            md.decode_source_table,
            "01 00 00 00 | 00 00",
            "Source table decode error : invalid entry item",
        ),
        (
            md.decode_source_table,
            "01 00 00 00 | 00 00 00 00 | 09 00 00 00 | 6f 66 6d 00",
            "Source table decode error : invalid entry data",
        ),
        (
            md.decode_source_table,
            "01 00 00 00 | 00 00 00 00 | 00 00 00 00",
            "Source table decode error : invalid entry data",
        ),
        (
            md.decode_source_table,
            "01 00 00 00 | 00 00 00 00 | 03 00 00 00 | 6f 66 6d",
            "Source table decode error : invalid entry data",
        ),
        (
            md.decode_source_table,
            "02 00 00 00 | 00 00 00 00 | 02 00 00 00 | 61 00 | 00 00 00 00 | 02 00 00 00 | 62 00",
            "Source table decode error : duplicated origin ID",
        ),
        (
            md.decode_source_table,
            "02 00 00 00 | 00 00 00 00 | 02 00 00 00 | 61 00",
            "Source table decode error : result size mismatch",
        ),
        (
            md.decode_op_table,
            "01 00 00 00 | 00 00 00 00 | 03 00 00 00 | 01 00 00 00",
            "Op table decode error : invalid entry data",
        ),
        (
            md.decode_op_table,
            "02 00 00 00 | 00 00 00 00 | 01 00 00 00 | 01 00 00 00",
            "Op table decode error : entry number invalid",
        ),
        (
            md.decode_execution_plan_table,
            "01 00 00 00 | 00 00 00 00 | 00 00 00 00",
            "Execution plan table decode error : empty execution plan entry",
        ),
        (
            md.decode_execution_plan_table,
            "01 00 00 00 | 00 00 00 00 | 01 00 00 00 | 00 00 00 00 | 01",
            "Execution plan table decode error : invalid entry item",
        ),
    ],
)
def test_decoder_errors(decode, blob, message):
    with pytest.raises(md.MetadataDecodeError) as e:
        decode(hx(blob))
    assert str(e.value) == message


def test_md5_digest_bytes():
    digest = "d41d8cd98f00b204e9800998ecf8427e"
    assert md.encode_md5(digest) == hx(
        "64 34 31 64 38 63 64 39 38 66 30 30 62 32 30 34 65 39 38 30 30 39 39 38 65 63 66 38 34 32 37 65"
    )
    assert md.decode_md5(md.encode_md5(digest)) == digest


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"d41d8cd98f00b204e9800998ecf8427",
        b"D41D8CD98F00B204E9800998ECF8427E",
        b"d41d8cd98f00b204e9800998ecf8427e\0",
    ],
)
def test_md5_invalid_digest(blob):
    with pytest.raises(
        md.MetadataDecodeError, match="ONE_source_md5 decode error : invalid digest"
    ):
        md.decode_md5(blob)
