"""The in-memory graph handed from step to step. Imports nothing else of the project.

Names load on first use, so that the light parts (``ir.shape_list``, ``ir.schema`` tables) can
be imported without numpy.
"""

from typing import Any

__all__ = [
    "NO_ORIGIN",
    "Buffer",
    "Graph",
    "GraphError",
    "MetadataEntry",
    "Model",
    "Operator",
    "Origin",
    "QuantParam",
    "Shape",
    "SignatureDef",
    "Tensor",
    "composite",
    "from_numpy",
    "numpy_dtype",
]
_HOMES = {
    "from_numpy": "dtypes",
    "numpy_dtype": "dtypes",
    "Graph": "graph",
    "GraphError": "graph",
    "MetadataEntry": "model",
    "Model": "model",
    "SignatureDef": "model",
    "Operator": "operator",
    "NO_ORIGIN": "origin",
    "Origin": "origin",
    "composite": "origin",
    "Buffer": "tensor",
    "QuantParam": "tensor",
    "Shape": "tensor",
    "Tensor": "tensor",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value
