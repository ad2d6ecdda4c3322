"""``one_cmds.Interpreter``: a model run by the engine ``engine`` chooses
(:mod:`.choice`): LiteRT when it runs every operator of the model, else the numpy reference
interpreter of :mod:`one_cmds.interp`; given a Model or a model file."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from .. import interp
from ..formats.reader import load
from ..ir import Model
from .choice import litert_runner


class Interpreter(interp.Interpreter):
    """Run a model on numpy inputs.

    ``Interpreter(model_or_path).run(inputs)`` takes a list in graph-input order or a dict by
    input name and returns the outputs of subgraph 0 as numpy arrays; ``run_all`` also returns
    every intermediate tensor by name; ``run(..., observer=fn)`` streams them instead.
    ``records=True`` says the inputs stack independent records on their first axis: every
    record's results are then exactly those of a run on that record alone. A path is loaded
    as :func:`one_cmds.load` loads circle and TFLite files.

    ``engine``: ``"auto"`` (default) runs ``run`` in LiteRT (XNNPACK) when LiteRT runs every
    operator, type and quantization of the model, else in the reference interpreter;
    ``"litert"`` insists on LiteRT, ``"reference"`` on the reference interpreter. ``run_all``,
    observers and ``records=True`` always use the reference interpreter. ``engine_used`` says
    which engine ``run`` uses; ``threads`` is LiteRT's thread count (default: every CPU).
    """

    def __init__(
        self,
        model: Model | str | os.PathLike[str],
        *,
        records: bool = False,
        engine: str = "auto",
        threads: int | None = None,
    ) -> None:
        super().__init__(
            model if isinstance(model, Model) else load(os.fspath(model)), records=records
        )
        self._litert = None if records else litert_runner(self.model, engine, threads=threads)

    @property
    def engine_used(self) -> str:
        return "reference" if self._litert is None else "litert"

    def run(
        self,
        inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray],
        *,
        observer: interp.interpreter.Observer | None = None,
    ) -> list[np.ndarray]:
        if self._litert is None or observer is not None:
            return super().run(inputs, observer=observer)
        return self._litert.run(inputs)[0]
