"""one-cmds: config-driven, in-process builds of TFLite and circle models (``onecc``).

Python API: :func:`load`, :func:`save`, :func:`build`, :func:`optimize`, :func:`resize` and
:class:`Interpreter` (the last two are imported on first use).
"""

from typing import Any

from .api import build, load, optimize, quantize, save
from .errors import OneCmdsError
from .ir import Graph, Model, Operator, Tensor

__all__ = [
    "Graph",
    "Interpreter",
    "Model",
    "OneCmdsError",
    "Operator",
    "Tensor",
    "build",
    "load",
    "optimize",
    "quantize",
    "resize",
    "save",
]


def __getattr__(name: str) -> Any:
    if name == "Interpreter":
        from .interp import Interpreter

        return Interpreter
    if name == "resize":
        from .stages.resize import resize

        return resize
    raise AttributeError(f"module 'one_cmds' has no attribute {name!r}")
