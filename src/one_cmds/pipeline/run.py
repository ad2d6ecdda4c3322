"""The loop that runs a plan: one dispatch for every step, each a Stage (load / run / save),
handing the model on in memory by the rule of :func:`.plan.receives`."""

from __future__ import annotations

import importlib
import time
from typing import TYPE_CHECKING

from ..errors import UnsupportedError
from ..report import console
from .environment import environment
from .log import named, step_log
from .plan import STAGES, Plan, Step, receives

if TYPE_CHECKING:
    from ..stages.stage import Stage, StepResult


def stage_of(driver: str) -> Stage:
    """The stage of a driver (imported on first use: only the stages a plan uses load)."""
    if driver not in STAGES:
        raise UnsupportedError(f"{driver} is not supported")
    module, name = STAGES[driver].split(":")
    return getattr(importlib.import_module(f"one_cmds.stages.{module}"), name)


def run_plan(plan: Plan, *, verbose: bool = False) -> list[StepResult]:
    """Run the steps of ``plan`` in order; every stage is prepared (tools looked up) before
    any step runs. Returns the results of the steps that produce a model."""
    results: list[StepResult] = []
    with environment(plan.environment), console.verbosity(verbose):
        staged = [(step, stage_of(step.driver)) for step in plan.steps]
        for step, stage in staged:
            with named(step):
                stage.prepare(step.options)
        for step, stage in staged:
            result = _run_step(step, stage, plan, results[-1] if results else None, verbose)
            if stage.produces_model:
                results.append(result)
    return results


def _run_step(
    step: Step, stage: Stage, plan: Plan, previous: StepResult | None, verbose: bool
) -> StepResult:
    from ..formats.writer import settle
    from ..stages.stage import StepResult

    options = step.options
    input_path = getattr(options, "input_path", "")
    in_memory = previous is not None and receives(input_path, previous.output_path)
    start = time.perf_counter()
    with step_log(step, logged=stage.logged):
        model = previous.model if in_memory else stage.load(options)  # type: ignore[union-attr]
        before = model.operator_count() if model is not None else 0
        if verbose and stage.produces_model:
            source = "in memory" if in_memory else "from file"
            console.out(f"{step.driver}: {input_path} ({source}, {before} operators)")
        model = stage.run(model, options)
        size = stage.save(model, options, plan.profile_for(step))
        if stage.produces_model and model is not None:
            settle(model)  # the next step gets it as it would read the file
        done = stage.done(options)
        if done is not None:
            console.out(done)
    result = StepResult(
        driver=step.driver,
        input_path=input_path,
        output_path=getattr(options, "output_path", ""),
        operators_before=before,
        operators_after=model.operator_count() if model is not None else 0,
        output_size=size,
        seconds=time.perf_counter() - start,
        in_memory=in_memory,
        model=model,
    )
    summary = stage.summary(result)
    if summary is not None:
        console.out(summary, style="green")
    return result
