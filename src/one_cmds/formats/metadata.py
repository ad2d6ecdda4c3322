"""Byte layouts of the ONE metadata tables (circle-format-and-metadata.md §7, §12).

Every integer is a little-endian uint32; entries are written in ascending key order.
Decoders raise :class:`MetadataDecodeError` with the spec's reason text.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Mapping

SOURCE_TABLE = "ONE_source_table"
OP_TABLE = "ONE_op_table"
EXECUTION_PLAN_TABLE = "ONE_execution_plan_table"
SOURCE_MD5 = "ONE_source_md5"

_LABEL = {
    SOURCE_TABLE: "Source table",
    OP_TABLE: "Op table",
    EXECUTION_PLAN_TABLE: "Execution plan table",
    SOURCE_MD5: "ONE_source_md5",
}


class MetadataDecodeError(Exception):
    """``<Table> decode error : <reason>``."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{_LABEL.get(name, name)} decode error : {reason}")


def encode_source_table(table: Mapping[int, str]) -> bytes:
    parts = [struct.pack("<I", len(table))]
    for key in sorted(table):
        name = table[key].encode("utf-8", errors="surrogateescape") + b"\0"
        parts.append(struct.pack("<II", key, len(name)))
        parts.append(name)
    return b"".join(parts)


def encode_op_table(table: Mapping[int, frozenset[int] | set[int]]) -> bytes:
    parts = [struct.pack("<I", len(table))]
    for key in sorted(table):
        ids = sorted(set(table[key]))
        parts.append(struct.pack(f"<II{len(ids)}I", key, len(ids), *ids))
    return b"".join(parts)


def encode_md5(digest: str) -> bytes:
    return digest.encode("ascii")


def _decode_entries(
    name: str, blob: bytes, entry: Callable[[bytes, int, int], tuple[object, int]]
) -> dict[int, object]:
    """Shared loop of the three table decoders: header, entries until the blob ends, checks."""
    if len(blob) < 4:
        raise MetadataDecodeError(name, "invalid entry number")
    (entry_number,) = struct.unpack_from("<I", blob, 0)
    result: dict[int, object] = {}
    pos = 4
    while pos < len(blob):
        if len(blob) - pos < 8:
            raise MetadataDecodeError(name, "invalid entry item")
        key, count = struct.unpack_from("<II", blob, pos)
        value, size = entry(blob, pos + 8, count)
        if pos + 8 + size > len(blob):
            raise MetadataDecodeError(name, "invalid entry data")
        if key in result:
            raise MetadataDecodeError(name, "duplicated origin ID")
        result[key] = value
        pos += 8 + size
    if pos != len(blob):
        raise MetadataDecodeError(name, "data size invalid")
    if len(result) != entry_number:
        mismatch = "result size mismatch" if name == SOURCE_TABLE else "entry number invalid"
        raise MetadataDecodeError(name, mismatch)
    return result


def decode_source_table(blob: bytes) -> dict[int, str]:
    def entry(data: bytes, start: int, length: int) -> tuple[object, int]:
        end = start + length
        if length == 0 or end > len(data) or data[end - 1] != 0:
            raise MetadataDecodeError(SOURCE_TABLE, "invalid entry data")
        return data[start : end - 1].decode("utf-8", errors="surrogateescape"), length

    return _decode_entries(SOURCE_TABLE, blob, entry)  # type: ignore[return-value]


def decode_op_table(blob: bytes) -> dict[int, frozenset[int]]:
    def entry(data: bytes, start: int, count: int) -> tuple[object, int]:
        size = 4 * count
        if start + size > len(data):
            raise MetadataDecodeError(OP_TABLE, "invalid entry data")
        return frozenset(struct.unpack_from(f"<{count}I", data, start)), size

    return _decode_entries(OP_TABLE, blob, entry)  # type: ignore[return-value]


def decode_execution_plan_table(blob: bytes) -> dict[int, tuple[int, ...]]:
    def entry(data: bytes, start: int, count: int) -> tuple[object, int]:
        if count == 0:
            raise MetadataDecodeError(EXECUTION_PLAN_TABLE, "empty execution plan entry")
        size = 4 * count
        if start + size > len(data):
            raise MetadataDecodeError(EXECUTION_PLAN_TABLE, "invalid entry data")
        return struct.unpack_from(f"<{count}I", data, start), size

    return _decode_entries(EXECUTION_PLAN_TABLE, blob, entry)  # type: ignore[return-value]


_DIGEST = re.compile(rb"[0-9a-f]{32}")


def decode_md5(blob: bytes) -> str:
    if not _DIGEST.fullmatch(blob):
        raise MetadataDecodeError(SOURCE_MD5, "invalid digest")
    return blob.decode("ascii")
