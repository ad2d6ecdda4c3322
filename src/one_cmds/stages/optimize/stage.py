"""The ``[one-optimize]`` step as the pipeline runs it."""

from __future__ import annotations

from ...ir import Model
from ..options import OptimizeOptions
from ..stage import Stage


class OptimizeStage(Stage[OptimizeOptions]):
    def run(self, model: Model | None, options: OptimizeOptions) -> Model:
        from . import optimize

        assert model is not None
        return optimize(model, options)


OPTIMIZE = OptimizeStage()
