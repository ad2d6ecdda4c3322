"""A frozen GraphDef (tf-and-pytorch-import.md §3.3 graph_def): parsed as binary, else as
UTF-8 text; in the graph it is imported into, the input and output arrays are found (§3.2
row 9), the input shapes set (row 10) and the graph checked to be frozen (row 11), with
TensorFlow 1.x's texts for both converter versions."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf
from google.protobuf import text_format
from google.protobuf.message import DecodeError

from .errors import TfFileError, TfImportError


def parse_graph_def(
    data: memoryview | bytes, path: str, *, text: bool = True
) -> tf.compat.v1.GraphDef:
    """The GraphDef in ``data`` (the file ``path``): binary, else (with ``text``) UTF-8 text.
    Without ``text`` a file that is not binary is protobuf's ``Error parsing message``, as
    the reference's one-import-bcq reports it (one-import-bcq_neg_004)."""
    graph_def = tf.compat.v1.GraphDef()
    try:
        graph_def.ParseFromString(bytes(data))
    except DecodeError as binary:
        if not text:
            raise TfFileError(
                f"Error parsing message: {path} is not a binary TensorFlow GraphDef ({binary})"
            ) from None
        graph_def = tf.compat.v1.GraphDef()
        try:
            text_format.Merge(bytes(data).decode("utf-8"), graph_def)
        except (UnicodeDecodeError, text_format.ParseError):
            raise _not_a_graph_def(path, str(binary)) from None
    if not graph_def.node:
        raise _not_a_graph_def(path, "no nodes")
    return graph_def


def _not_a_graph_def(path: str, reason: str) -> TfFileError:
    return TfFileError(f"Unable to parse input file: {path} (not a TensorFlow GraphDef: {reason})")


def tensor_name(name: str) -> str:
    """``name`` as a tensor name: ``name:0`` unless a port is given."""
    return name if ":" in name else f"{name}:0"


def find_tensors(graph: tf.Graph, names: Sequence[str]) -> list[tf.Tensor]:
    """The tensors ``names`` denote; *E* ``ValueError: Invalid tensors '<a>,<b>' were found.``
    naming every one that is not in ``graph``."""
    found, invalid = [], []
    for name in names:
        try:
            found.append(graph.get_tensor_by_name(tensor_name(name)))
        except (KeyError, ValueError):
            invalid.append(name)
    if invalid:
        raise TfImportError(f"ValueError: Invalid tensors '{','.join(invalid)}' were found.")
    return found


def set_shapes(
    tensors: Sequence[tf.Tensor], names: Sequence[str], shapes: Sequence[Sequence[int]]
) -> None:
    """Give each input its shape; *E* ``ValueError: The shape of tensor '<name>' cannot be
    changed from <old> to <new>. <TF reason>`` when it does not fit."""
    for tensor, name, shape in zip(tensors, names, shapes, strict=True):
        old = tensor.shape
        try:
            tensor.set_shape(shape)
        except ValueError as e:
            raise TfImportError(
                f"ValueError: The shape of tensor '{name}' cannot be changed from {old} to "
                f"{list(shape)}. {e}"
            ) from None


def check_frozen(graph: tf.Graph) -> None:
    """*E* ``ValueError: Please freeze the graph using freeze_graph.py.`` for a graph with
    variables (TensorFlow 1.x's test)."""
    for op in graph.get_operations():
        if op.type.startswith("Variable") or op.type.endswith("VariableOp"):
            raise TfImportError("ValueError: Please freeze the graph using freeze_graph.py.")


def prepare(
    graph: tf.Graph,
    inputs: Sequence[str],
    outputs: Sequence[str],
    shapes: Sequence[Sequence[int]] | None,
) -> tuple[list[tf.Tensor], list[tf.Tensor]]:
    """The input and output tensors of ``graph`` (inputs, then outputs, checked by name), the
    inputs' shapes set, the graph checked to be frozen."""
    input_tensors = find_tensors(graph, inputs)
    output_tensors = find_tensors(graph, outputs)
    if shapes:
        set_shapes(input_tensors, inputs, shapes)
    check_frozen(graph)
    return input_tensors, output_tensors
