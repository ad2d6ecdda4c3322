"""Shape and dtype inference: one rule per operator, run over a model to a fixpoint."""

from . import rules as _rules  # noqa: F401  (importing registers every rule)
from .infer import ShapeInferenceError, infer_shapes
from .registry import RULES, ShapeError, rule

__all__ = ["RULES", "ShapeError", "ShapeInferenceError", "infer_shapes", "rule"]
