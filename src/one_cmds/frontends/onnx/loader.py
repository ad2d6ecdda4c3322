"""Loading an ``.onnx`` file (onnx-import.md §4 steps 1-2, §7.1): the model, its external
data checked and read, model-local functions inlined, the opset checked, the nodes in a stable
topological order, the md5 of the file."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

import onnx
from onnx import external_data_helper

from .errors import OnnxFileError, OnnxImportError

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


def prepare_source(model: onnx.ModelProto, path: str, md5: str) -> OnnxSource:
    """Check and prepare a model read from ``path`` (or made in memory from the model file
    ``path``, whose md5 is ``md5``): graph, opset, external data, local functions, order."""
    if not model.HasField("graph") or not (model.graph.node or model.graph.output):
        raise OnnxFileError(f"Invalid input file: {path} (not an ONNX model: no graph)")
    opset = _default_opset(model)
    _load_external_data(model, path)
    if model.functions:
        from onnx import inliner

        model = inliner.inline_local_functions(model)
    return OnnxSource(path, model, opset, md5, _topological(model.graph, path))


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


def _load_external_data(model: onnx.ModelProto, path: str) -> None:
    """Check every external tensor (§7.1), then read them into the model."""
    folder = os.path.dirname(os.path.abspath(path))
    tensors = [t for t in external_data_helper._get_all_tensors(model) if _is_external(t)]
    if not tensors:
        return
    missing: dict[str, int] = {}
    for t in tensors:
        info = external_data_helper.ExternalDataInfo(t)
        location = info.location
        if os.path.isabs(location) or not _inside(folder, os.path.join(folder, location)):
            raise OnnxFileError(
                f"Invalid external data: {location} (tensor '{t.name}': location outside the "
                "model folder)"
            )
        file = os.path.join(folder, location)
        if not os.path.isfile(file):
            missing[location] = missing.get(location, 0) + 1
            continue
        size = os.path.getsize(file)
        offset = info.offset or 0
        length = info.length if info.length is not None else size - offset
        if offset + length > size:
            raise OnnxFileError(
                f"Invalid external data: {location} (tensor '{t.name}': offset {offset} + "
                f"length {length} exceeds file size {size})"
            )
        if info.checksum and _sha1(file, offset, length) != info.checksum:
            raise OnnxFileError(
                f"Invalid external data: {location} (tensor '{t.name}': checksum mismatch)"
            )
    if missing:
        count = sum(missing.values())
        raise OnnxFileError(
            f"External data file not found: {', '.join(missing)} "
            f"(needed by {count} tensors of {path})"
        )
    external_data_helper.load_external_data_for_model(model, folder)


def _is_external(t: onnx.TensorProto) -> bool:
    return t.HasField("data_location") and t.data_location == onnx.TensorProto.EXTERNAL


def _inside(folder: str, path: str) -> bool:
    real = os.path.realpath(path)
    return os.path.commonpath([os.path.realpath(folder), real]) == os.path.realpath(folder)


def _sha1(path: str, offset: int, length: int) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as f:
        f.seek(offset)
        left = length
        while left and (chunk := f.read(min(_CHUNK, left))):
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


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
