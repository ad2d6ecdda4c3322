"""The shape of every step the pipeline runs: a :class:`Stage` loads the step's input, runs on
it and saves what the step writes; :class:`StepResult` is what a step did."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from ..formats.reader import load
from ..report.console import warn

if TYPE_CHECKING:
    from ..ir import Model

O = TypeVar("O")  # noqa: E741 (the options type of a stage)


@dataclass
class StepResult:
    """What a step did (returned by ``run_plan`` and ``one_cmds.build``)."""

    driver: str
    input_path: str
    output_path: str
    operators_before: int
    operators_after: int
    output_size: int
    seconds: float
    in_memory: bool
    model: Model | None = None


class Stage(Generic[O]):
    """A step that reads a model (TFLite or circle; not read when the previous step hands its
    model on), runs on it and writes it to ``output_path``. Steps of another shape override
    what differs."""

    produces_model = True  # its model may be handed to the next steps
    logged = True  # it writes ``<output_path>.log``

    def prepare(self, options: O) -> None:
        """Checks made before any step of the plan runs."""

    def load(self, options: O) -> Model | None:
        return load(options.input_path, warn=warn)  # type: ignore[attr-defined]

    def run(self, model: Model | None, options: O) -> Model | None:
        return model

    def save(self, model: Model | None, options: O, profile: bool) -> int:
        """Write what the step writes; the size of the model file."""
        from ..formats.writer import save

        assert model is not None
        return save(model, options.output_path, profile=profile)  # type: ignore[attr-defined]

    def done(self, options: O) -> str | None:
        """The line printed once the step's output is saved, if any."""
        return None

    def summary(self, r: StepResult) -> str | None:
        """The closing line of the step."""
        ops = f"{r.operators_after} operators"
        if r.operators_after != r.operators_before:
            ops = f"{r.operators_before} -> {r.operators_after} operators"
        return (
            f"{r.driver}: {r.input_path} -> {r.output_path} "
            f"({ops}, {r.output_size:,} bytes, {r.seconds:.2f} s)"
        )


class PackagingStage(Stage[O]):
    """A step that writes other files than a model (``one-pack``, ``one-partition``): it takes
    the previous model when handed one, else works from its input file itself."""

    produces_model = False

    def load(self, options: O) -> Model | None:
        return None

    def summary(self, r: StepResult) -> str | None:
        source = "in memory" if r.in_memory else "from file"
        return f"{r.driver}: {r.input_path} ({source}) -> {r.output_path} ({r.seconds:.2f} s)"
