"""What a PyTorch model file holds, told by its content (tf-and-pytorch-import.md §5.2), without
importing torch: a TorchServe archive, an ExportedProgram, TorchScript, or a ``torch.save``
pickle (zip or legacy)."""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from enum import Enum
from typing import IO

from ...errors import ModelFileError
from ...formats.files import open_model_bytes

MAR_MANIFEST = "MAR-INF/MANIFEST.json"
EXPORTED_MODEL = "models/model.json"  # the program torch.export.load reads
# Legacy ``torch.save`` files start with a pickle of protocol 2.
_LEGACY_PICKLE = b"\x80\x02"


class Kind(Enum):
    EXPORTED_PROGRAM = "ExportedProgram"
    TORCHSCRIPT = "TorchScript"
    PICKLE = "torch.save"
    MAR = "TorchServe archive"


def kind_of(file: str | IO[bytes], path: str) -> Kind:
    """The kind of the model in ``file`` (``path`` itself, or a member of the archive
    ``path``)."""
    if _head(file) == _LEGACY_PICKLE:
        return Kind.PICKLE
    names = _zip_names(file)
    if names is None:
        raise not_a_model(path)
    if MAR_MANIFEST in names:
        return Kind.MAR
    for root in sorted({name.split("/", 1)[0] for name in names}):
        if f"{root}/archive_format" in names:
            if f"{root}/{EXPORTED_MODEL}" not in names:  # torch: "check the warnings above"
                raise ModelFileError(f"Invalid input file: {path} (an ExportedProgram archive "
                                     f"without {EXPORTED_MODEL})")  # fmt: skip
            return Kind.EXPORTED_PROGRAM
        if f"{root}/constants.pkl" in names and any(n.startswith(f"{root}/code/") for n in names):
            return Kind.TORCHSCRIPT
        if f"{root}/data.pkl" in names:
            return Kind.PICKLE
    raise not_a_model(path)


def not_a_model(path: str) -> ModelFileError:
    return ModelFileError(f"Invalid input file: {path} (not a PyTorch model)")


def _head(file: str | IO[bytes]) -> bytes:
    if isinstance(file, str):
        with open(file, "rb") as f:
            return f.read(2)
    file.seek(0)
    return file.read(2)


def _zip_names(file: str | IO[bytes]) -> set[str] | None:
    try:
        with zipfile.ZipFile(file) as archive:
            return set(archive.namelist())
    except zipfile.BadZipFile:
        return None


class MarEntries:
    """A TorchServe archive's serialized model, and its model file (name and source)."""

    def __init__(self, path: str) -> None:
        try:
            self._read(path)
        except (zipfile.BadZipFile, zlib.error, EOFError, UnicodeDecodeError) as e:
            raise ModelFileError(
                f"Invalid input file: {path} (a damaged archive: {type(e).__name__}: {e})"
            ) from None

    def _read(self, path: str) -> None:
        with zipfile.ZipFile(path) as archive:
            try:
                model = json.loads(archive.read(MAR_MANIFEST))["model"]
                serialized = model["serializedFile"]
                self.serialized = io.BytesIO(archive.read(serialized))
            except (KeyError, TypeError, json.JSONDecodeError):
                raise ModelFileError(
                    f"Invalid input file: {path} (MANIFEST.json has no model.serializedFile)"
                ) from None
            model_file = model.get("modelFile")
            self.model_file: str | None = None
            self.model_source: str | None = None
            if model_file and model_file in archive.namelist():
                self.model_file = model_file
                self.model_source = archive.read(model_file).decode("utf-8")


def input_kind(path: str) -> Kind | None:
    """The kind that decides the options a file needs (a TorchServe archive: the kind of its
    serialized model); None when the file cannot be read or is not a model (the import step
    then says why)."""
    try:
        return checked_input_kind(path)
    except ModelFileError:
        return None


def checked_input_kind(path: str) -> Kind:
    """:func:`input_kind`, or the error that says why ``path`` is none: ``Failed to open file``
    (missing, unreadable, a directory) or ``not a PyTorch model`` (empty, not an archive of a
    known kind)."""
    if not open_model_bytes(path):
        raise not_a_model(path)
    kind = kind_of(path, path)
    return kind_of(MarEntries(path).serialized, path) if kind is Kind.MAR else kind
