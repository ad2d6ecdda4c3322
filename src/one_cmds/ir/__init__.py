"""The in-memory graph handed from step to step. Imports nothing else of the project."""

from .dtypes import from_numpy, numpy_dtype
from .graph import Graph, GraphError
from .model import MetadataEntry, Model, SignatureDef
from .operator import Operator
from .origin import NO_ORIGIN, Origin, composite
from .tensor import Buffer, QuantParam, Shape, Tensor

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
