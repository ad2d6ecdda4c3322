"""BCQ information of a GraphDef for ``one-import-bcq`` (tf-and-pytorch-import.md §4): the
metadata constant the reference's ``generate_bcq_metadata`` adds and the output arrays its
``generate_bcq_output_arrays`` lists, so that ``fuse_bcq`` finds them after conversion.

Per weight constant ``<prefix>`` the constants ``<prefix>/bcqinfo_<name>`` carry its
binary-coded form; the metadata ``[start, version 1, user outputs, constants + 1, end]``
becomes output 0, the user's outputs follow, then one bundle per prefix."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import tensorflow as tf

from .errors import TfImportError

METADATA = "one_compiler/bcqinfo_one_metadata"
START_MAGIC, END_MAGIC = -1999999973, 1999999973  # int(-2e9 + 27), int(2e9 - 27)
VERSION = 1
INFO = "/bcqinfo_"
BUNDLE = (
    "do_w_x",
    "alpha",
    "packed_binary_code",
    "number_of_clusters",
    "size_of_clusters",
    "qbits_of_clusters",
)
DEQUANT = "dequant_weight"


class InvalidBcq(Exception):
    """The graph's BCQ constants are not valid BCQ information (the reason)."""


@dataclass
class BcqInfo:
    """The prefixes with BCQ constants, in order of their first constant, and how many
    constants each has (6, or 7 with ``dequant_weight``)."""

    prefixes: list[str]
    count: int

    def outputs(self, user_outputs: Sequence[str]) -> list[str]:
        """The arrays to convert: the metadata, the user's outputs, then per prefix its
        bundle and the weight itself (and ``dequant_weight`` with 7 constants)."""
        names = [METADATA, *user_outputs]
        for prefix in self.prefixes:
            names.extend(f"{prefix}{INFO}{name}" for name in BUNDLE)
            names.append(prefix)
            if self.count == len(BUNDLE) + 1:
                names.append(f"{prefix}{INFO}{DEQUANT}")
        return names


def bcq_info(graph_def: tf.compat.v1.GraphDef) -> BcqInfo:
    """The BCQ information of ``graph_def`` (the metadata constant aside), or
    :class:`InvalidBcq` with the reason."""
    names: dict[str, set[str]] = {}
    for node in graph_def.node:
        if node.op != "Const" or INFO not in node.name or node.name == METADATA:
            continue
        prefix, _, name = node.name.partition(INFO)
        if name not in (*BUNDLE, DEQUANT):
            raise InvalidBcq(f"unknown BCQ constant '{node.name}'")
        names.setdefault(prefix, set()).add(name)
    counts = {len(found) for found in names.values()}
    if not counts:
        raise InvalidBcq("no bcqinfo constants")
    if len(counts) > 1:
        raise InvalidBcq("prefixes have different numbers of BCQ constants")
    count = counts.pop()
    if count not in (len(BUNDLE), len(BUNDLE) + 1):
        raise InvalidBcq(f"{count} BCQ constants per prefix, expected 6 or 7")
    return BcqInfo(list(names), count)


def metadata_version(graph_def: tf.compat.v1.GraphDef) -> int | None:
    """The version recorded by a metadata constant already in the graph, if any."""
    for node in graph_def.node:
        if node.op == "Const" and node.name == METADATA:
            return int(tf.make_ndarray(node.attr["value"].tensor).reshape(-1)[1])
    return None


def add_metadata(graph_def: tf.compat.v1.GraphDef, info: BcqInfo, user_outputs: int) -> None:
    """Append the metadata constant to ``graph_def`` (§4.1 step 1)."""
    values = np.array([START_MAGIC, VERSION, user_outputs, info.count + 1, END_MAGIC], np.int32)
    node = graph_def.node.add()
    node.op = "Const"
    node.name = METADATA
    node.attr["dtype"].type = tf.int32.as_datatype_enum
    node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(values, tf.int32))


def with_bcq_outputs(
    graph_def: tf.compat.v1.GraphDef,
    user_outputs: Sequence[str],
    path: str,
    warn: Callable[[str], None],
) -> list[str]:
    """The output arrays to convert ``graph_def`` with, the metadata added to it when the
    graph has valid BCQ information and none yet; only the user's outputs, after a warning,
    without valid BCQ information."""
    version = metadata_version(graph_def)
    if version is not None and version != VERSION:
        raise TfImportError(
            f"BCQ version of the model(v{version}) is higher than the version supported by "
            f"this program(v{VERSION})"
        )
    try:
        info = bcq_info(graph_def)
    except InvalidBcq as e:
        warn(f"no valid BCQ information in {path} ({e}); imported without BCQ metadata")
        return list(user_outputs)
    if version is None:
        add_metadata(graph_def, info, len(user_outputs))
    return info.outputs(user_outputs)
