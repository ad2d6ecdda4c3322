"""The kernel registry: one numpy kernel per operator, registered under its opcode name.

A kernel is ``fn(op, args, ctx) -> array | sequence of arrays``: ``args`` holds one numpy
array per operator input (None for an omitted optional input), ``ctx`` is the running
:class:`~one_cmds.interp.interpreter.RunContext` (control-flow kernels use it to run
subgraphs). Kernels never modify their arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ir import Operator

if TYPE_CHECKING:
    from .interpreter import RunContext

Args = list[Any]
KernelResult = np.ndarray | Sequence[np.ndarray]
Kernel = Callable[[Operator, Args, "RunContext"], KernelResult]

KERNELS: dict[str, Kernel] = {}

_QUANTIZED_TYPES = frozenset({"INT8", "UINT8", "INT16"})


class QuantizedOperandError(Exception):
    """A kernel that computes on real values was given a quantized integer tensor."""


def kernel(*opcodes: str, real_valued: bool = False) -> Callable[[Kernel], Kernel]:
    """Register ``fn`` as the kernel of each opcode (``"ADD"``, or ``"CUSTOM(Name)"``).

    ``real_valued`` kernels compute on the values themselves, so they refuse quantized
    integer tensors (whose values mean ``scale * (q - zero_point)``) instead of computing
    garbage; data-movement kernels leave it off and accept any dtype.
    """

    def add(fn: Kernel) -> Kernel:
        registered = _refusing_quantized(fn) if real_valued else fn
        for opcode in opcodes:
            if opcode in KERNELS:
                raise ValueError(f"two kernels for {opcode}")
            KERNELS[opcode] = registered
        return fn

    return add


def _refusing_quantized(fn: Kernel) -> Kernel:
    @functools.wraps(fn)
    def run(op: Operator, args: Args, ctx: RunContext) -> KernelResult:
        for t in (*op.inputs, *op.outputs):
            if t is not None and t.dtype in _QUANTIZED_TYPES and _has_scale(t.quant):
                raise QuantizedOperandError(
                    f"quantized {t.dtype} tensor {t.name!r} is not supported "
                    "(this kernel computes on real values)"
                )
        return fn(op, args, ctx)

    return run


def _has_scale(quant: Any) -> bool:
    return quant is not None and quant.scale is not None and len(quant.scale) > 0
