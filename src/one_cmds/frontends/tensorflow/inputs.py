"""What a TensorFlow model path holds, told without TensorFlow (tf-and-pytorch-import.md §3.2
rows 6 and 8, §2.4): its format by kind, and the bytes of the file whose md5 the model records
(the GraphDef, the Keras file, ``saved_model.pb`` of a SavedModel: not its ``variables/``)."""

from __future__ import annotations

import os

from ...formats.files import open_model_bytes
from .errors import TfFileError
from .options import ModelFormat

SAVED_MODEL_FILES = ("saved_model.pb", "saved_model.pbtxt")
KERAS_SUFFIXES = (".h5", ".hdf5", ".keras")
GRAPH_DEF_SUFFIXES = (".pb", ".pbtxt")


def model_format_of(path: str) -> ModelFormat | None:
    """The format of a TensorFlow model at ``path``: a folder holding ``saved_model.pb`` (or
    ``.pbtxt``), a Keras file, a ``.pb``/``.pbtxt`` GraphDef; None for anything else."""
    if os.path.isdir(path):
        found = any(os.path.isfile(os.path.join(path, n)) for n in SAVED_MODEL_FILES)
        return "saved_model" if found else None
    suffix = os.path.splitext(path)[1].lower()
    if suffix in KERAS_SUFFIXES:
        return "keras_model"
    return "graph_def" if suffix in GRAPH_DEF_SUFFIXES else None


def source_bytes(path: str, model_format: ModelFormat) -> memoryview | bytes:
    """The bytes of the model's source file (mapped read-only); ``Failed to open file: <path>
    (<reason>)`` when ``path`` cannot be read as that format, ``Invalid input file: <path>
    (not a SavedModel: no saved_model.pb)`` for a folder without one."""
    if model_format != "saved_model":
        return open_model_bytes(path)
    if not os.path.isdir(path):
        reason = "not a directory" if os.path.exists(path) else "No such file or directory"
        raise TfFileError(f"Failed to open file: {path} ({reason})")
    for name in SAVED_MODEL_FILES:
        graph = os.path.join(path, name)
        if os.path.isfile(graph):
            return open_model_bytes(graph)
    raise TfFileError(f"Invalid input file: {path} (not a SavedModel: no saved_model.pb)")
