"""The LiteRT engine: a Model written as TFLite (``TFL3``) into memory-backed storage
(``/dev/shm`` where the system has it, else the temporary folder; any size, the writer moves
weights after the flatbuffer above 2 GiB) and run by LiteRT (``ai-edge-litert``) in process,
with its default delegates (XNNPACK).

Tensors a caller wants besides the outputs (calibration's observed tensors) are made extra
outputs of the written copy, so XNNPACK keeps running whole partitions and hands them over.
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
    from ai_edge_litert.interpreter import Interpreter

    return Interpreter


class LiteRTRunner:
    """``model`` in LiteRT; ``extra`` tensors of subgraph 0 are returned after the outputs."""

    def __init__(
        self, model: Model, extra: Sequence[Tensor] = (), *, threads: int | None = None
    ) -> None:
        self.model = model
        outputs = {id(t) for t in model.main.outputs}
        self.extra = [t for t in dict.fromkeys(extra) if id(t) not in outputs]
        self.threads = threads or os.cpu_count() or 1
        self._interpreter = self._open(_with_outputs(model, self.extra))

    def _open(self, copy: Model):
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
                    interpreter = _interpreter_class()(model_path=path, num_threads=self.threads)
                    interpreter.allocate_tensors()
            except (RuntimeError, ValueError) as e:
                raise LiteRTError(f"LiteRT cannot run the model: {_first_line(e)}") from None
        return interpreter

    def run(
        self, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray], *, views: bool = False
    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The outputs of subgraph 0, and the values of the ``extra`` tensors; with ``views``
        read-only views of LiteRT's buffers, valid until the next run, instead of copies."""
        interpreter = self._interpreter
        args = arrange_inputs(self.model.main, inputs)
        details = interpreter.get_input_details()
        for d, value in zip(details, args, strict=True):
            if tuple(d["shape"]) != value.shape:
                interpreter.resize_tensor_input(d["index"], value.shape, strict=False)
                interpreter.allocate_tensors()
        for d, value in zip(details, args, strict=True):
            interpreter.set_tensor(d["index"], value)
        interpreter.invoke()
        read = (lambda i: interpreter.tensor(i)()) if views else interpreter.get_tensor
        values = [read(d["index"]) for d in interpreter.get_output_details()]
        count = len(self.model.main.outputs)
        return values[:count], values[count:]


def _with_outputs(model: Model, extra: list[Tensor]) -> Model:
    """``model`` itself, or a copy whose subgraph 0 also outputs the ``extra`` tensors."""
    if not extra:
        return model
    copy = model.copy()
    pairs = dict(
        zip(
            (id(t) for t in model.main.referenced_tensors()),
            copy.main.referenced_tensors(),
            strict=True,
        )
    )
    copy.main.outputs = [*copy.main.outputs, *(pairs[id(t)] for t in extra)]
    copy.signature_defs = []
    return copy


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__
