"""What a kernel sees of the run it belongs to: the :class:`KernelContext` it is called with
and the :class:`InterpreterError` it raises. The interpreter implements the context; kernels
and the registry depend on this module only, never on the interpreter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from ..errors import OneCmdsError
from ..ir import Model


class InterpreterError(OneCmdsError):
    """The model cannot be run (bad inputs, an operator without kernel, a kernel failure)."""


class KernelContext(Protocol):
    """The ``ctx`` argument of every kernel: the model, whether the first axis of the
    activations holds independent records (``records``), and a way to run subgraphs.
    Kernels may keep state that outlives one operator on it (``ctx.resources``)."""

    model: Model
    records: bool

    def by_record(self, fn: Callable[..., np.ndarray], *arrays: np.ndarray) -> np.ndarray:
        """``fn(*arrays)``, computed record by record when the run stacks records."""
        ...

    def run_graph(self, index: int, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run subgraph ``index`` on ``args`` (one per graph input); return its outputs."""
        ...
