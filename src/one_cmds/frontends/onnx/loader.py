"""Loading an ``.onnx`` file (onnx-import.md §4 steps 1-2, §7.1): the model, its external
data checked and read, model-local functions inlined, the opset checked, the nodes in a stable
topological order, the md5 of the file."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

import numpy as np
import onnx

from .errors import OnnxFileError, OnnxImportError
from .external import map_external_data

OPSETS = range(9, 26)
DEFAULT_DOMAINS = ("", "ai.onnx")
_CHUNK = 8 * 2**20


@dataclass
class OnnxSource:
    """A loaded ONNX model: ``order`` lists the indices of ``graph.node`` in a topological
    order (graph order where valid); a node's index is its source id (§9)."""

    path: str
    model: onnx.ModelProto
    opset: int
    md5: str
    order: list[int]
    # Initializers whose data is external: views of their mapped files (:mod:`.external`).
    external: dict[str, np.ndarray] = field(default_factory=dict)


def load_source(path: str) -> OnnxSource:
    """Read, check and prepare an ONNX file; errors carry the messages of §3."""
    if os.path.isdir(path):
        raise OnnxFileError(f"Failed to open file: {path} (is a directory)")
    try:
        md5 = _file_md5(path)
    except OSError as e:
        raise OnnxFileError(f"Failed to open file: {path} ({e.strerror})") from None
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as e:  # the protobuf decoder raises its own types
        raise OnnxFileError(f"Invalid input file: {path} (not an ONNX model: {e})") from None
    return prepare_source(model, path, md5)


def prepare_source(
    model: onnx.ModelProto, path: str, md5: str, weights: dict[str, np.ndarray] | None = None
) -> OnnxSource:
    """Check and prepare a model read from ``path`` (or made from the model file ``path``,
    whose md5 is ``md5``, by another front end, which hands over the values of initializers
    stored without data as ``weights``): graph, opset, external data mapped, local functions,
    order."""
    if not model.HasField("graph") or not (model.graph.node or model.graph.output):
        raise OnnxFileError(f"Invalid input file: {path} (not an ONNX model: no graph)")
    opset = _default_opset(model)
    external = {**map_external_data(model, path), **(weights or {})}
    if model.functions:
        from onnx import inliner

        model = inliner.inline_local_functions(model)
    return OnnxSource(path, model, opset, md5, _topological(model.graph, path), external)


def _file_md5(path: str) -> str:
    """The md5 of a file, read in chunks."""
    digest = hashlib.md5()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _default_opset(model: onnx.ModelProto) -> int:
    versions = [o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS]
    version = max(versions) if versions else 1
    if version not in OPSETS:
        raise OnnxImportError(
            f"Unsupported opset: ai.onnx version {version} "
            f"(supported: {OPSETS.start} to {OPSETS.stop - 1})"
        )
    return version


def _topological(graph: onnx.GraphProto, path: str) -> list[int]:
    """The node indices in a stable topological order; an undefined input or a cycle is an
    error."""
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer} | {""}
    producers: dict[str, int] = {}
    for k, node in enumerate(graph.node):
        for out in node.output:
            if out:
                producers[out] = k
    for k, node in enumerate(graph.node):
        for name in node.input:
            if name not in defined and name not in producers:
                label = node.name or (node.output[0] if node.output else "")
                raise OnnxFileError(
                    f"Invalid input file: {path} (node {k} '{label}': input '{name}' is not "
                    "defined)"
                )
    order: list[int] = []
    ready = set(defined)
    pending = list(range(len(graph.node)))
    while pending:
        still = []
        for k in pending:
            node = graph.node[k]
            if all(name in ready for name in node.input):
                order.append(k)
                ready.update(node.output)
            else:
                still.append(k)
        if len(still) == len(pending):
            raise OnnxFileError(f"Invalid input file: {path} (graph has a cycle)")
        pending = still
    return order
