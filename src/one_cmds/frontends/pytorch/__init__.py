"""PyTorch import (tf-and-pytorch-import.md §5): a model file exported in memory to ONNX by
torch.onnx and imported by the ONNX front end. torch loads only when :func:`import_pytorch`
runs; :mod:`.kinds` tells a file's kind without it."""

from typing import Any

__all__ = ["import_pytorch"]


def __getattr__(name: str) -> Any:
    if name != "import_pytorch":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .importer import import_pytorch

    return import_pytorch
