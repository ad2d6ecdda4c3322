"""one-cmds: config-driven, in-process builds of TFLite and circle models (``onecc``)."""

from .api import build, load, save
from .errors import OneCmdsError
from .ir import Graph, Model, Operator, Tensor

__all__ = ["Graph", "Model", "OneCmdsError", "Operator", "Tensor", "build", "load", "save"]
