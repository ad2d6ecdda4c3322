"""How a weights-only quantized constant appears in the model (quantization.md §21.3):

* hybrid: the INT8/INT16/INT4 constant (the weight's name and shape, per-channel scales,
  zero points 0, ``quantized_dimension`` = the channel axis) feeds the operator directly;
* ``DEQUANTIZE``: the constant → ``DEQUANTIZE`` → ``<name>_DQ`` (float32) → the operator;
* block: the INT4 constant of shape [O·I/B, B] (one scale per block, ``quantized_dimension``
  0) → ``DEQUANTIZE`` → ``<name>_DQ`` → ``RESHAPE`` by the constant ``<name>_DQ_shape`` =
  [O, I] → ``<name>_DQ_reshape`` → the FULLY_CONNECTED weights.

New operators have no origin.
"""

from __future__ import annotations

import numpy as np

from ..ir import Buffer, Operator, QuantParam, Tensor
from ..ir.schema import new_options
from .symmetric_weights import SymmetricWeights


def quantized_constant(
    name: str, shape: tuple[int, ...], weights: SymmetricWeights, dtype: str
) -> Tensor:
    """The constant of ``shape`` holding ``weights`` as ``dtype`` ("int8", "int16", "int4")."""
    tensor = Tensor(name, dtype.upper(), shape, buffer=Buffer.from_array(weights.data))
    tensor.quant = QuantParam(
        scale=weights.scales,
        zero_point=np.zeros(len(weights.scales), np.int64),
        quantized_dimension=weights.axis,
    )
    return tensor


def dequantized(constant: Tensor, name: str) -> tuple[Tensor, Operator]:
    """``<name>_DQ``: the float32 value of ``constant``, and the DEQUANTIZE computing it."""
    result = Tensor(f"{name}_DQ", "FLOAT32", constant.shape)
    return result, Operator("DEQUANTIZE", [constant], [result])


def block_form(
    name: str, weights: SymmetricWeights, shape: tuple[int, int]
) -> tuple[Tensor, list[Operator]]:
    """The float32 [O, I] weights the FULLY_CONNECTED reads, from per-block int4 ``weights``
    of shape [O·I/B, B], and the DEQUANTIZE and RESHAPE computing them."""
    count = len(weights.scales)
    constant = quantized_constant(name, (count, shape[0] * shape[1] // count), weights, "int4")
    blocks, dequantize = dequantized(constant, name)
    target = Tensor.constant(f"{name}_DQ_shape", np.array(shape, np.int32), "INT32")
    result = Tensor(f"{name}_DQ_reshape", "FLOAT32", shape)
    options = new_options("ReshapeOptions", newShape=list(shape))
    return result, [dequantize, Operator("RESHAPE", [blocks, target], [result], options)]
