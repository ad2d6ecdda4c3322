"""The import steps (``one-import-tflite``, ``one-import-circle``): load a model file.

The format comes from the file identifier, so both steps accept either format. Loading stamps
origins and the source md5 (circle-format-and-metadata.md §8, §12).
"""

from __future__ import annotations

from ..formats.reader import load
from ..ir import Model
from ..report.console import warn


def import_model(path: str) -> Model:
    return load(path, warn=warn)
