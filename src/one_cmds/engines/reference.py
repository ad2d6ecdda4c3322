"""The reference engine: the numpy interpreter of :mod:`one_cmds.interp`, given a Model or a
model file."""

from __future__ import annotations

import os

from .. import interp
from ..formats.reader import load
from ..ir import Model


class Interpreter(interp.Interpreter):
    """Run a model on numpy inputs with the reference interpreter.

    ``Interpreter(model_or_path).run(inputs)`` takes a list in graph-input order or a dict by
    input name and returns the outputs of subgraph 0 as numpy arrays; ``run_all`` also returns
    every intermediate tensor by name; ``run(..., observer=fn)`` streams them instead.
    ``records=True`` says the inputs stack independent records on their first axis: every
    record's results are then exactly those of a run on that record alone. A path is loaded
    as :func:`one_cmds.load` loads circle and TFLite files.
    """

    def __init__(self, model: Model | str | os.PathLike[str], *, records: bool = False) -> None:
        super().__init__(
            model if isinstance(model, Model) else load(os.fspath(model)), records=records
        )
