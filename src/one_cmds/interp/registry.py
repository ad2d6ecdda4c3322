"""The kernel registry: one numpy kernel per operator, registered under its opcode name.

A kernel is ``fn(op, args, ctx) -> array | sequence of arrays``: ``args`` holds one numpy
array per operator input (None for an omitted optional input), ``ctx`` is the running
:class:`~one_cmds.interp.interpreter.RunContext` (control-flow kernels use it to run
subgraphs). Kernels never modify their arguments.
"""

from __future__ import annotations

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


def kernel(*opcodes: str) -> Callable[[Kernel], Kernel]:
    """Register ``fn`` as the kernel of each opcode (``"ADD"``, or ``"CUSTOM(Name)"``)."""

    def add(fn: Kernel) -> Kernel:
        for opcode in opcodes:
            if opcode in KERNELS:
                raise ValueError(f"two kernels for {opcode}")
            KERNELS[opcode] = fn
        return fn

    return add
