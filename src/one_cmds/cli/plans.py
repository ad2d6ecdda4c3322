"""Running plans, or printing them for ``--dry-run`` (cli-and-config.md §6)."""

from __future__ import annotations

import json
import os
import time
from types import ModuleType
from typing import TYPE_CHECKING

from one_cmds.backends.calls import ToolOptions
from one_cmds.config.drivers import stored_values
from one_cmds.config.reader import read_text
from one_cmds.config.source import Source
from one_cmds.config.workflow import NOT_FOUND, run_order
from one_cmds.pipeline import Plan, Step, environment, receives
from one_cmds.report.console import out

if TYPE_CHECKING:
    from one_cmds.pipeline.ray_workflows import Workflow
    from one_cmds.stages.options import DriverOptions


def _format(value: object) -> str:
    if isinstance(value, list):
        return ",".join(str(item) for item in value) if value else "(none)"
    return str(value)


def _option_lines(driver: str, options: DriverOptions) -> list[str]:
    from one_cmds.stages.options import OptimizeOptions

    lines = []
    for option, value in stored_values(driver, options):
        if isinstance(options, OptimizeOptions) and option.name in options.passes:
            continue
        lines.append(f"    {option.name} = {_format(value)}")
    if isinstance(options, OptimizeOptions):
        lines.append(f"    passes = {' '.join(options.enabled_passes) or '(none)'}")
    return lines


def print_plan(plan: Plan) -> None:
    """Each step: name, input (file or in memory), output, effective options, profiling."""
    out(f"plan: {plan.config_path or 'command line'}")
    for key, value in plan.environment.items():
        out(f"environment: {key}={value}")
    from one_cmds.pipeline.run import stage_of

    previous: Step | None = None
    for number, step in enumerate(plan.steps, 1):
        options = step.options
        section = f" [{step.section}]" if step.section else ""
        out(f"{number}. {step.driver}{section}")
        if isinstance(options, ToolOptions):
            with environment(plan.environment):
                for call in options.calls:
                    out(f"  runs: {call.describe()}")
            continue
        source = options.input_path
        if previous is not None and receives(source, previous.options.output_path):
            source = f"in memory from {previous.driver}"
        profile = plan.profile_for(step)
        out(f"  input: {source}")
        out(f"  output: {options.output_path}")
        out(f"  profiling metadata: {'yes' if profile else 'no'}")
        out("  options:")
        for line in _option_lines(step.driver, options):
            out(line)
        if stage_of(step.driver).produces_model:
            previous = step


def run_plans(plans: list[Plan], *, dry_run: bool, verbose: bool) -> int:
    """Print (``--dry-run``) or run every plan in order; exit code 0."""
    for plan in plans:
        if dry_run:
            print_plan(plan)
        elif plan.steps:
            from one_cmds.pipeline.run import run_plan

            run_plan(plan, verbose=verbose)
    return 0


def workflows_of(path: str, plans: list[Plan]) -> list[Workflow]:
    """The workflows of a file that ``plans_from_workflow`` validated, with their plans (in
    run order) and their ``run-after`` names."""
    from one_cmds.pipeline.ray_workflows import Workflow

    path = os.path.expanduser(path)
    data = json.loads(read_text(path, NOT_FOUND))
    after = {name: tuple(data[name].get("run-after", [])) for name in data["workflows"]}
    order = run_order(data["workflows"], after, Source(file=path))
    return [Workflow(name, plan, after[name]) for name, plan in zip(order, plans, strict=True)]


def connect_ray(address: str) -> ModuleType:
    """Join or start the Ray cluster of ``--ray``; says where and how long it took."""
    from one_cmds.engines.ray_cluster import connect

    start = time.perf_counter()
    ray = connect(address)
    out(f"ray: {address or 'local cluster'} ready in {time.perf_counter() - start:.1f} s")
    return ray


def run_on_ray(path: str, plans: list[Plan], address: str) -> int:
    """Run the workflows of ``path`` as Ray tasks (``onecc -W --ray``); exit code 0, or the
    first failure in run order is raised as a local run raises it."""
    from one_cmds.pipeline.ray_workflows import run_workflows

    workflows = workflows_of(path, plans)
    ray = connect_ray(address)
    run_workflows(ray, workflows, where=address or "local cluster")
    return 0
