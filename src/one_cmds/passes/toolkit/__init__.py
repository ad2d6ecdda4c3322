"""The pattern toolkit the passes share: the graph editor, operand readers, folding."""

from .editor import GraphEditor
from .fold import constant_results, fold
from .values import (
    NONE,
    RELU,
    RELU6,
    RELU_N1_TO_1,
    TANH,
    activation,
    channel_vector,
    const_value,
    has_activation_attribute,
    is_const_scalar,
    is_float32,
    new_options,
    origin_of,
    other_input,
    scalar_value,
    split_const,
    with_options,
)

__all__ = [
    "NONE",
    "RELU",
    "RELU6",
    "RELU_N1_TO_1",
    "TANH",
    "GraphEditor",
    "activation",
    "channel_vector",
    "const_value",
    "constant_results",
    "fold",
    "has_activation_attribute",
    "is_const_scalar",
    "is_float32",
    "new_options",
    "origin_of",
    "other_input",
    "scalar_value",
    "split_const",
    "with_options",
]
