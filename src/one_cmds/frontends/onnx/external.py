"""External data of an ONNX model (onnx-import.md §7.1): every external tensor is checked,
then each initializer's value is a read-only view of its mapped file (registered as a model
file, so an unchanged weight is copied file to file on export and never becomes resident).
Tensors of packed or variable-size types, and external tensors outside the initializers,
are read into the model instead."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import onnx
from onnx import external_data_helper, helper

from ...formats.files import CHUNK, open_model_bytes
from .errors import OnnxFileError

# Element types whose raw bytes are a plain little-endian array (others are read, not mapped).
_PACKED = {
    onnx.TensorProto.STRING, onnx.TensorProto.INT4, onnx.TensorProto.UINT4,
    onnx.TensorProto.UNDEFINED,
} | {getattr(onnx.TensorProto, name) for name in ("FLOAT4E2M1", "INT2", "UINT2")
     if hasattr(onnx.TensorProto, name)}  # fmt: skip


def map_external_data(model: onnx.ModelProto, path: str) -> dict[str, np.ndarray]:
    """Check every external tensor of ``model`` (read from ``path``); return
    ``{initializer name: mapped array}``."""
    folder = os.path.dirname(os.path.abspath(path))
    tensors = [t for t in external_data_helper._get_all_tensors(model) if _is_external(t)]
    if not tensors:
        return {}
    _check(tensors, folder, path)
    initializers = {id(t) for t in model.graph.initializer}
    files: dict[str, memoryview | bytes] = {}
    mapped: dict[str, np.ndarray] = {}
    for t in tensors:
        if id(t) not in initializers or t.data_type in _PACKED:
            external_data_helper.load_external_data_for_tensor(t, folder)
            continue
        info = external_data_helper.ExternalDataInfo(t)
        file = os.path.join(folder, info.location)
        data = files.get(file)
        if data is None:
            data = files[file] = open_model_bytes(file)
        mapped[t.name] = _view(t, data, info, info.location)
    return mapped


def _view(t: onnx.TensorProto, data: memoryview | bytes, info, location: str) -> np.ndarray:
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(t.data_type)).newbyteorder("<")
    count = int(np.prod(t.dims, dtype=np.int64))
    offset = info.offset or 0
    if info.length is not None and info.length != count * dtype.itemsize:
        raise OnnxFileError(
            f"Invalid external data: {location} (tensor '{t.name}': length {info.length} "
            f"does not hold {count} elements of {dtype.itemsize} bytes)"
        )
    array = np.frombuffer(data, dtype, count, offset) if count else np.zeros(0, dtype)
    return array.reshape(tuple(t.dims))


def _check(tensors: list[onnx.TensorProto], folder: str, path: str) -> None:
    """Locations inside the folder, files present, ranges inside them, checksums equal."""
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
        while left and (chunk := f.read(min(CHUNK, left))):
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()
