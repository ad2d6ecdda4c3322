"""one-cmds: config-driven, in-process builds of TFLite, circle and ONNX models (``onecc``).

Python API: :func:`load`, :func:`save`, :func:`build`, :func:`optimize`, :func:`quantize`,
:func:`resize`, :class:`Interpreter` and the IR classes. Everything is imported on first use,
so the command line answers ``--version``, ``--help`` and configuration errors without
loading numpy or the flatbuffers bindings.
"""

from typing import Any

from .errors import OneCmdsError

__version__ = "0.1.0"  # the package version (pyproject.toml reads it from here)

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

# Public name -> the module that defines it.
_HOMES = {
    "build": "api",
    "load": "api",
    "optimize": "api",
    "quantize": "api",
    "save": "api",
    "Graph": "ir",
    "Model": "ir",
    "Operator": "ir",
    "Tensor": "ir",
    "Interpreter": "engines",
    "resize": "api",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'one_cmds' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
