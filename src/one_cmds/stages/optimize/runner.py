"""Running passes with the restart strategy (optimization.md §4.2): passes run in the fixed
order; when one changes the graph, the sweep starts again from the first (after dead-operator
removal and shape/type inference); a phase ends with a sweep that changes nothing."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ...errors import StageError
from ...ir import Model
from ...passes import GRAPH, PassSpec
from ...passes.toolkit import GraphEditor
from ...report.console import detail, out
from ...shape import infer_shapes
from ..options import OptimizeOptions
from .luci_names import luci_name

# Sweeps allowed per phase, beyond two per operator, before a phase is declared unsettled.
SWEEP_MARGIN = 100


def luci_log() -> bool:
    """Whether ``LUCI_LOG`` asks for the pass log (set, and not 0)."""
    return os.environ.get("LUCI_LOG", "0").strip() not in ("", "0")


def _log_pass(name: str, rewrites: int) -> None:
    """A line per pass run that changed the graph, with luci's name for the pass: on stdout
    under ``LUCI_LOG``, else in the verbose (``-V``) log."""
    line = f"{luci_name(name)} changed the graph ({name}, {rewrites} rewrites)"
    (out if luci_log() else detail)(line)


class Runner:
    """Runs phases on one model and counts the rewrites of each pass."""

    def __init__(self, model: Model, options: OptimizeOptions, passes: dict[str, PassSpec]) -> None:
        self.model = model
        self.options = options
        self.passes = passes
        self.counts: dict[str, int] = {}

    def infer(self) -> None:
        """Dead-operator removal and shape/type inference (operators without a shape rule
        keep their declared outputs)."""
        infer_shapes(self.model, keep_declared=True)

    def graph_phase(self, index: int, names: Sequence[str]) -> None:
        """Run the graph passes ``names`` on subgraph ``index`` until a sweep changes
        nothing."""
        specs = [self.passes[name] for name in names]
        for _ in range(self._limit()):
            self.infer()
            if not self._sweep(index, specs):
                return
        raise self._unsettled(names)

    def model_phase(self, names: Sequence[str]) -> None:
        """Run the model passes ``names`` until a sweep changes nothing."""
        specs = [self.passes[name] for name in names]
        for _ in range(self._limit()):
            self.infer()
            if not any(self._count(spec, spec.run(self.model, self.options)) for spec in specs):
                return
        raise self._unsettled(names)

    def run_once(self, name: str) -> None:
        """Run one model pass once."""
        spec = self.passes[name]
        self._count(spec, spec.run(self.model, self.options))

    def _sweep(self, index: int, specs: list[PassSpec]) -> bool:
        """One sweep; whether a pass changed the graph (the sweep then stops)."""
        editor = GraphEditor(self.model, index)
        for spec in specs:
            if spec.scope == GRAPH:
                rewrites = spec.run(editor)
            else:
                rewrites = spec.run(self.model, self.options)
            if editor.changed:
                editor.commit()
                editor = GraphEditor(self.model, index)
            if self._count(spec, rewrites):
                return True
        return False

    def _count(self, spec: PassSpec, rewrites: int) -> bool:
        if rewrites:
            self.counts[spec.name] = self.counts.get(spec.name, 0) + rewrites
            _log_pass(spec.name, rewrites)
        return bool(rewrites)

    def _limit(self) -> int:
        return SWEEP_MARGIN + 2 * self.model.operator_count()

    def _unsettled(self, names: Sequence[str]) -> StageError:
        busy = [n for n in names if n in self.counts]
        return StageError(
            f"optimization did not settle: the passes keep changing the graph ({', '.join(busy)})"
        )
