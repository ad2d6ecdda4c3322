"""The LiteRT engine: a Model written as TFLite (``TFL3``) into memory-backed storage
(``/dev/shm`` where the system has it, else the temporary folder; any size, the writer moves
weights after the flatbuffer above 2 GiB) and run by LiteRT (``ai-edge-litert``) in process,
with its default delegates (XNNPACK).

Tensors a caller wants besides the outputs (calibration's observed tensors) are made extra
outputs of the written copy, so XNNPACK keeps running whole partitions and hands them over.

A runner may hold several interpreters of the one written file (``slots``), which threads run
side by side (LiteRT releases the GIL while it invokes); the weights are mapped once.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import ExportError, StageError
from ..interp.interpreter import arrange_inputs
from ..ir import Model, Tensor
from ..report.chatter import caught_output
from ..report.console import detail

_SHM = "/dev/shm"


class LiteRTError(StageError):
    """LiteRT refused the model (an operator, type or quantization it has no kernel for)."""


def _interpreter_class():
    """LiteRT's Interpreter; a missing or broken ``ai-edge-litert`` is a :class:`LiteRTError`
    (``engine=auto`` then falls back to the reference interpreter)."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError as e:
        missing = isinstance(e, ModuleNotFoundError)
        reason = "is not installed" if missing else f"does not load ({_first_line(e)})"
        raise LiteRTError(f"LiteRT (ai-edge-litert) {reason}: pip install ai-edge-litert") from None
    return Interpreter


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, which containers and ``taskset`` set)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class LiteRTRunner:
    """``model`` in LiteRT; ``extra`` tensors of subgraph 0 are returned after the outputs.
    ``threads``: LiteRT's threads per interpreter (default: every usable CPU); ``slots``:
    how many interpreters, each run by one thread at a time. ``owned``: the caller made
    ``model`` for this runner alone, which may then change it instead of copying it."""

    def __init__(
        self,
        model: Model,
        extra: Sequence[Tensor] = (),
        *,
        threads: int | None = None,
        slots: int = 1,
        owned: bool = False,
    ) -> None:
        self.model = model
        outputs = {id(t) for t in model.main.outputs}
        self.extra = [t for t in dict.fromkeys(extra) if id(t) not in outputs]
        self.threads = threads or usable_cpus()
        interpreter = _interpreter_class()
        runnable = _runnable(model, self.extra, owned)
        self._interpreters = self._open(interpreter, runnable, slots)
        first = self._interpreters[0]
        self._inputs = [d["index"] for d in first.get_input_details()]
        self._outputs = [d["index"] for d in first.get_output_details()]
        shapes = [tuple(d["shape"]) for d in first.get_input_details()]
        self._shapes = [list(shapes) for _ in self._interpreters]  # per slot, as allocated

    def _open(self, interpreter: type, copy: Model, slots: int) -> list:
        from ..formats.writer import save

        folder = _SHM if os.path.isdir(_SHM) and os.access(_SHM, os.W_OK) else None
        with tempfile.TemporaryDirectory(dir=folder, prefix="one-cmds-litert-") as tmp:
            path = os.path.join(tmp, "model.tflite")
            try:
                save(copy, path)
            except ExportError as e:  # a circle-only feature
                raise LiteRTError(f"LiteRT cannot run the model: {e.message}") from None
            try:
                with caught_output(detail):  # LiteRT's "Created ... XNNPACK delegate" line
                    interpreters = [
                        interpreter(model_path=path, num_threads=self.threads) for _ in range(slots)
                    ]
                    for interpreter in interpreters:
                        interpreter.allocate_tensors()
            except (RuntimeError, ValueError) as e:
                raise LiteRTError(f"LiteRT cannot run the model: {_first_line(e)}") from None
        return interpreters

    @property
    def slots(self) -> int:
        return len(self._interpreters)

    def run(
        self,
        inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray],
        *,
        slot: int = 0,
    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The outputs of subgraph 0, and the values of the ``extra`` tensors, from
        interpreter ``slot``."""
        interpreter, shapes = self._interpreters[slot], self._shapes[slot]
        args = arrange_inputs(self.model.main, inputs)
        for k, (index, value) in enumerate(zip(self._inputs, args, strict=True)):
            if shapes[k] != value.shape:
                interpreter.resize_tensor_input(index, value.shape, strict=False)
                interpreter.allocate_tensors()
                shapes[k] = value.shape
        for index, value in zip(self._inputs, args, strict=True):
            interpreter.set_tensor(index, value)
        interpreter.invoke()
        values = [interpreter.get_tensor(index) for index in self._outputs]
        count = len(self.model.main.outputs)
        return values[:count], values[count:]


def _runnable(model: Model, extra: list[Tensor], owned: bool) -> Model:
    """``model`` as LiteRT runs it: its subgraph 0 also outputs the ``extra`` tensors, and
    its float tensors carry no scales (the per-channel qparams that weights fake-quantized
    for calibration keep would make LiteRT refuse the model; it computes floats without
    them). A copy, unless nothing changes or the model is ``owned``."""
    scaled = [
        t
        for g in model.graphs
        for t in g.referenced_tensors()
        if t.dtype == "FLOAT32" and t.quant is not None and t.quant.scale is not None
    ]
    if not extra and not scaled:
        return model
    runnable, pairs = (model, None) if owned else model.copy_mapped()

    def own(t: Tensor) -> Tensor:
        return t if pairs is None else pairs[id(t)]

    runnable.main.outputs = [*runnable.main.outputs, *map(own, extra)]
    if extra:
        runnable.signature_defs = []
    for t in scaled:
        own(t).quant = None
    return runnable


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__
