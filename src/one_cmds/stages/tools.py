"""The steps that run backend tools as child processes (``one-codegen``, ``one-profile``,
``one-infer``; backends-and-packaging.md §1.3): every tool is looked up before any step of the
plan runs; the calls run in order and the first failure stops."""

from __future__ import annotations

from ..backends.calls import ToolOptions, run_calls
from ..ir import Model
from .stage import Stage, StepResult


class ToolStage(Stage[ToolOptions]):
    produces_model = False
    logged = False

    def prepare(self, options: ToolOptions) -> None:
        for call in options.calls:
            call.resolved()

    def load(self, options: ToolOptions) -> Model | None:
        return None

    def run(self, model: Model | None, options: ToolOptions) -> Model | None:
        run_calls(options.calls)
        return None

    def save(self, model: Model | None, options: ToolOptions, profile: bool) -> int:
        return 0

    def summary(self, r: StepResult) -> str | None:
        return None


TOOLS = ToolStage()
