"""Errors of the TensorFlow import."""

from __future__ import annotations

from ...errors import ModelFileError, StageError


class TfFileError(ModelFileError):
    """A TensorFlow model file that cannot be opened or is not of its format."""


class TfImportError(StageError):
    """A TensorFlow model that cannot be converted (the reference's ``<ExcType>: <text>``)."""
