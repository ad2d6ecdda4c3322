"""TensorFlow import (tf-and-pytorch-import.md §3, §4): a frozen GraphDef, a SavedModel or a
Keras file converted in process by TensorFlow's own converter into TFLite bytes, which the
TFLite reader loads. TensorFlow loads only when :func:`import_tf` or :func:`import_bcq` runs;
:class:`TfOptions` and :func:`model_format_of` load without it."""

import importlib
from typing import Any

__all__ = ["TfOptions", "import_bcq", "import_tf", "model_format_of"]
_MODULE_OF = {"TfOptions": "options", "model_format_of": "inputs"}


def __getattr__(name: str) -> Any:
    """The exported names, each from its module (``importer`` unless listed)."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f".{_MODULE_OF.get(name, 'importer')}", __name__)
    return getattr(module, name)
