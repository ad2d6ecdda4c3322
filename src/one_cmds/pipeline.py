"""The plan (ordered steps from ``[onecc]``) and the loop that hands the Model on."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .backends.calls import ToolOptions, run_calls
from .errors import OneCmdsError, UnsupportedError
from .report import console

if TYPE_CHECKING:  # the model, its files and the stages load when a step runs
    from .ir import Model

# Fixed execution order of the steps (cli-and-config.md §9). Import steps come first.
IMPORT_STEPS = ("one-import-tflite", "one-import-circle", "one-import-onnx")
STEP_ORDER = (
    *IMPORT_STEPS,
    "one-resize",
    "one-optimize",
    "one-quantize",
    "one-pack",
    "one-codegen",
    "one-profile",
    "one-partition",
    "one-infer",
)
# Steps that run backend tools as child processes (backends-and-packaging.md §1.3).
TOOL_STEPS = ("one-codegen", "one-profile", "one-infer")
# Steps that run in process but write other files than a model (§4, §5).
PACKAGING_STEPS = ("one-pack", "one-partition")


@dataclass
class Step:
    """One step to run: the driver name, the section it came from and its validated options.

    ``options`` is the driver's option model (``one_cmds.config.options``): every model has
    ``input_path``, ``output_path`` and ``generate_profile_data`` (None when not set).
    """

    driver: str
    options: Any
    section: str | None = None


@dataclass
class Plan:
    """What one configuration (or one workflow) asks for."""

    steps: list[Step] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)
    profile: bool = False
    config_path: str | None = None

    def profile_for(self, step: Step) -> bool:
        """Whether the step's export carries the profiling tables: the step's own value when
        set, else ``[profile]`` (cli-and-config.md §12)."""
        own = step.options.generate_profile_data
        return self.profile if own is None else bool(own)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name the same file (after ``expanduser`` and ``realpath``)."""
    return _canonical(a) == _canonical(b)


@dataclass
class StepResult:
    """What a step did (returned by :func:`run_plan` and ``one_cmds.build``)."""

    driver: str
    input_path: str
    output_path: str
    operators_before: int
    operators_after: int
    output_size: int
    seconds: float
    in_memory: bool
    model: Any = None


def _load_file(options: Any) -> Model:
    """A step's input read from its file (TFLite or circle, format from the identifier)."""
    from .stages.importer import import_model

    return import_model(options.input_path)


def _unchanged(model: Model, options: Any) -> Model:
    return model


@dataclass(frozen=True)
class StageSpec:
    """The function a driver runs on the model, the line it prints once its file is saved, and
    how it reads its input when the model is not handed on in memory."""

    run: Callable[[Model, Any], Model]
    after_save: Callable[[Any], str] | None = None
    load: Callable[[Any], Model] = _load_file


def _stage(driver: str) -> StageSpec:
    """The stage of a driver (imported lazily: only the stages a plan uses are loaded)."""
    if driver == "one-import-onnx":
        from .stages.importer import import_onnx_model

        return StageSpec(_unchanged, load=import_onnx_model)
    if driver in IMPORT_STEPS:
        return StageSpec(_unchanged)
    if driver == "one-resize":
        from .stages.resize import resize_done_message, run_resize_step

        return StageSpec(run_resize_step, resize_done_message)
    if driver == "one-optimize":
        from .stages.optimize import optimize

        return StageSpec(optimize)
    if driver == "one-quantize":
        from .stages.quantize import run_quantize_step

        return StageSpec(run_quantize_step)
    raise UnsupportedError(f"{driver} is not supported")


def run_plan(plan: Plan, *, verbose: bool = False) -> list[StepResult]:
    """Run the steps of ``plan`` in order, handing the model on in memory (cli §10).

    The model of the last step that produced one is handed to pack and partition when they
    read its file; tool steps run their calls (every tool is looked up before any step runs).
    Returns the results of the steps that produce a model.
    """
    results: list[StepResult] = []
    with environment(plan.environment), console.verbosity(verbose):
        for step in plan.steps:
            if isinstance(step.options, ToolOptions):
                with _named(step):
                    for call in step.options.calls:
                        call.resolved()
        for step in plan.steps:
            previous = results[-1] if results else None
            if isinstance(step.options, ToolOptions):
                with _named(step):
                    run_calls(step.options.calls)
            elif step.driver in PACKAGING_STEPS:
                _run_packaging(step, plan, previous)
            else:
                results.append(_run_step(step, plan, previous, verbose))
    return results


@contextmanager
def _named(step: Step) -> Iterator[None]:
    """An error without a program name gets the step's."""
    try:
        yield
    except OneCmdsError as e:
        if e.prog is None:
            e.prog = step.driver
        raise


@contextmanager
def _logged(step: Step) -> Iterator[list[str]]:
    """The lines the step prints, written to its log at its end, with the error if any."""
    with console.capture() as lines:
        try:
            with _named(step):
                yield lines
        except OneCmdsError as e:
            lines.append(f"{e.prog}: {e.message}")
            raise
        finally:
            _write_log(step, lines)


def _model_for(path: str, previous: StepResult | None) -> Model | None:
    """The previous model when ``path`` is its file, else None (the engine reads the file)."""
    if previous is not None and same_file(path, previous.output_path):
        return previous.model
    return None


def _pack(step: Step, model: Model | None, profile: bool) -> None:
    from .stages.pack import pack

    options = step.options
    console.out(pack(model, options.input_path, options.output_path, profile=profile))


def _partition(step: Step, model: Model | None, profile: bool) -> None:
    from .partition import partition

    options = step.options
    written = partition(
        model,
        part_file=options.part_file,
        input_file=options.input_file,
        work_path=options.work_path,
        backends=options.backends,
        default=options.default,
        profile=profile,
    )
    for path in written:
        console.detail(f"{step.driver}: wrote {path}")


def _run_packaging(step: Step, plan: Plan, previous: StepResult | None) -> None:
    """``one-pack`` and ``one-partition``: in process, on the previous model when they read
    its file, with their own log file."""
    options = step.options
    start = time.perf_counter()
    model = _model_for(options.input_path, previous)
    with _logged(step):
        run = _pack if step.driver == "one-pack" else _partition
        run(step, model, plan.profile_for(step))
    source = "in memory" if model is not None else "from file"
    console.out(
        f"{step.driver}: {options.input_path} ({source}) -> {options.output_path} "
        f"({time.perf_counter() - start:.2f} s)",
        style="green",
    )


def _run_step(step: Step, plan: Plan, previous: StepResult | None, verbose: bool) -> StepResult:
    options = step.options
    stage = _stage(step.driver)
    start = time.perf_counter()
    with _logged(step):
        in_memory = previous is not None and same_file(options.input_path, previous.output_path)
        model = previous.model if in_memory else stage.load(options)
        before = model.operator_count()
        if verbose:
            source = "in memory" if in_memory else "from file"
            console.out(f"{step.driver}: {options.input_path} ({source}, {before} operators)")
        model = stage.run(model, options)
        from .formats.writer import save

        size = save(model, options.output_path, profile=plan.profile_for(step))
        if stage.after_save is not None:
            console.out(stage.after_save(options))
    seconds = time.perf_counter() - start
    result = StepResult(
        driver=step.driver,
        input_path=options.input_path,
        output_path=options.output_path,
        operators_before=before,
        operators_after=model.operator_count(),
        output_size=size,
        seconds=seconds,
        in_memory=in_memory,
        model=model,
    )
    console.out(_summary(result), style="green")
    return result


def _summary(r: StepResult) -> str:
    ops = f"{r.operators_after} operators"
    if r.operators_after != r.operators_before:
        ops = f"{r.operators_before} -> {r.operators_after} operators"
    return (
        f"{r.driver}: {r.input_path} -> {r.output_path} "
        f"({ops}, {r.output_size:,} bytes, {r.seconds:.2f} s)"
    )


def _write_log(step: Step, lines: list[str]) -> None:
    """``<realpath(output_path)>.log``: the step's command line, then what it printed."""
    from .config.drivers import command_line

    path = getattr(step.options, "log_path", None) or (
        os.path.realpath(os.path.expanduser(step.options.output_path)) + ".log"
    )
    try:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(command_line(step.driver, step.options) + "\n")
            f.writelines(line + "\n" for line in lines)
    except OSError:
        pass  # the log is a courtesy; the step's own error (if any) says what is wrong


def _canonical(path: str) -> str:
    return os.path.realpath(os.path.expanduser(path))


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Set ``[Environment]`` values for the duration of a run, then restore the previous ones."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
