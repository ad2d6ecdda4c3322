"""The kernel registry: one numpy kernel per operator, registered under its opcode name.

A kernel is ``fn(op, args, ctx) -> array | sequence of arrays``: ``args`` holds one numpy
array per operator input (None for an omitted optional input), ``ctx`` is the running
:class:`~one_cmds.interp.context.KernelContext` (control-flow kernels use it to run
subgraphs). Kernels never modify their arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ir import Operator
from .context import InterpreterError, KernelContext
from .qparams import is_quantized
from .real_weights import hybrid_index, unsupported_operand

Args = list[Any]
KernelResult = np.ndarray | Sequence[np.ndarray]
Kernel = Callable[[Operator, Args, KernelContext], KernelResult]

KERNELS: dict[str, Kernel] = {}
QUANTIZED_KERNELS: dict[str, Kernel] = {}
_REAL_VALUED: set[str] = set()


class QuantizedOperandError(Exception):
    """A kernel that computes on real values was given a quantized integer tensor."""


def kernel(*opcodes: str, real_valued: bool = False) -> Callable[[Kernel], Kernel]:
    """Register ``fn`` as the kernel of each opcode (``"ADD"``, or ``"CUSTOM(Name)"``).

    ``real_valued`` kernels compute on the values themselves: given quantized integer tensors
    (whose values mean ``scale * (q - zero_point)``) they hand over to the opcode's
    :func:`quantized_kernel`, or refuse when it has none, instead of computing garbage;
    data-movement kernels leave it off and accept any dtype.
    """

    def add(fn: Kernel) -> Kernel:
        for opcode in opcodes:
            if opcode in KERNELS:
                raise ValueError(f"two kernels for {opcode}")
            KERNELS[opcode] = fn
            if real_valued:
                _REAL_VALUED.add(opcode)
        return fn

    return add


def quantized_kernel(*opcodes: str) -> Callable[[Kernel], Kernel]:
    """Register ``fn`` as the kernel of each opcode when an operand or result is a quantized
    integer tensor (LiteRT's integer arithmetic)."""

    def add(fn: Kernel) -> Kernel:
        for opcode in opcodes:
            if opcode in QUANTIZED_KERNELS:
                raise ValueError(f"two quantized kernels for {opcode}")
            QUANTIZED_KERNELS[opcode] = fn
        return fn

    return add


def kernel_for(op: Operator) -> Kernel | None:
    """The kernel that runs ``op``: its quantized kernel when a tensor of it is quantized,
    else the registered one (None when there is none). A real-valued kernel without a
    quantized version refuses quantized tensors. The weights of a hybrid operator do not
    count (the float kernel reads them as real values), and an operand of a block type that
    the operator cannot read is refused (:mod:`.real_weights`)."""
    kind = op.kind
    refusal = unsupported_operand(op)
    if refusal is not None:
        return functools.partial(_refuse_operand, refusal)
    index = hybrid_index(op)
    weight = None if index is None else op.inputs[index]
    quantized = next(
        (t for t in (*op.inputs, *op.outputs) if t is not weight and is_quantized(t)), None
    )
    if quantized is None:
        return KERNELS.get(kind)
    if kind in QUANTIZED_KERNELS:
        return QUANTIZED_KERNELS[kind]
    if kind in _REAL_VALUED:
        return functools.partial(_refuse, quantized)
    return KERNELS.get(kind)


def _refuse(tensor: Any, op: Operator, args: Args, ctx: KernelContext) -> KernelResult:
    raise QuantizedOperandError(
        f"quantized {tensor.dtype} tensor {tensor.name!r} is not supported "
        "(this kernel computes on real values)"
    )


def _refuse_operand(message: str, op: Operator, args: Args, ctx: KernelContext) -> KernelResult:
    raise InterpreterError(message)
