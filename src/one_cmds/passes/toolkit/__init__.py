"""The pattern toolkit the passes share. Here: the graph editor, operand readers and folding;
in modules of their own: ``match`` (commutative operands, plain operators), ``build`` (small
constants and operators), ``layout`` (integer operands, Reshape), ``transpose``,
``batchnorm`` (Mul-Add pairs), ``fully_connected`` (FC operands), ``custom`` (flex custom
operators)."""

from .editor import GraphEditor
from .fold import constant_results, fold, fold_all
from .values import (
    ACTIVATION_OPCODES,
    CLAMPS,
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
    "ACTIVATION_OPCODES",
    "CLAMPS",
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
    "fold_all",
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
