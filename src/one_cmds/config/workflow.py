"""Workflow files (``onecc -W``): loading, validation, ordering and plans
(cli-and-config.md §15)."""

from __future__ import annotations

import json
import os

from one_cmds.backends.calls import ToolOptions
from one_cmds.config.backend_steps import (
    BACKEND_DRIVERS,
    backend_calls,
    infer_calls,
    workflow_backend_request,
    workflow_command,
)
from one_cmds.config.drivers import DRIVERS, step_of
from one_cmds.config.load import plan_from_config
from one_cmds.config.reader import read_text
from one_cmds.config.resolve import build_options, convert_values
from one_cmds.config.source import Source
from one_cmds.errors import UnsupportedError
from one_cmds.pipeline import Plan

NOT_FOUND = "Not found given workflow file"
INVALID = "Invalid workflow file"
INFER = "one-infer"


def _load(path: str) -> dict[str, object]:
    text = read_text(path, NOT_FOUND, INVALID)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise Source(file=path).error(INVALID) from None
    if not isinstance(data, dict) or "workflows" not in data:
        raise Source(file=path).error('Not found "workflows" key in workflow file')
    return data


def _names(value: object, what: str, source: Source) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise source.error(f"{INVALID}: {what} must be an array of names")
    if len(set(value)) != len(value):
        raise source.error(f"{INVALID}: {what} lists a name more than once")
    return value


def _object(value: object, what: str, source: Source) -> dict[str, object]:
    if not isinstance(value, dict):
        raise source.error(f"{INVALID}: {what} must be an object")
    return value


def _check_workflow(data: dict[str, object], name: str, path: str) -> dict[str, object]:
    """Shape checks of one workflow and its steps, in the order of §15.2."""
    source = Source(file=path, place=f"workflow '{name}'")
    workflow = _object(data[name], f"workflow '{name}'", source)
    if "steps" not in workflow and "cfg-reference" not in workflow:
        raise source.error('Each workflow should have either "steps" or "cfg-reference"')
    if "steps" in workflow and "cfg-reference" in workflow:
        raise source.error('"steps" and "cfg-reference" are exclusive key')
    if "cfg-reference" in workflow:
        reference = _object(workflow["cfg-reference"], '"cfg-reference"', source)
        if not isinstance(reference.get("path"), str):
            raise source.error(f'{INVALID}: "cfg-reference" must have a "path" string')
        return workflow
    for step in _names(workflow["steps"], '"steps"', source):
        if step not in workflow:
            raise source.error(f'Not found {step} key listed in "steps"')
        body = workflow[step]
        if not isinstance(body, dict) or "one-cmd" not in body or "commands" not in body:
            where = Source(file=path, place=f"workflow '{name}', step '{step}'")
            raise where.error('Each step should have "one-cmd" and "commands"')
    return workflow


def run_order(names: list[str], after: dict[str, list[str]], source: Source) -> list[str]:
    """Kahn's algorithm on edges P -> W for each P in W's ``run-after``; among the ready
    workflows the one listed first runs first (§15.3)."""
    waiting = {name: set(after[name]) for name in names}
    order: list[str] = []
    while waiting:
        ready = [name for name in names if name in waiting and not waiting[name]]
        if not ready:
            raise source.error("Workflows should not have a cycle")
        order.append(ready[0])
        del waiting[ready[0]]
        for needs in waiting.values():
            needs.discard(ready[0])
    return order


def _step_options(driver: str, commands: dict[str, object], source: Source) -> object:
    """The options of one workflow step; codegen, profile and infer take their ``command``
    as the arguments after ``--`` (backends-and-packaging.md §1.1)."""
    if driver in BACKEND_DRIVERS:
        request = workflow_backend_request(driver, commands, source)
        return ToolOptions(backend_calls(BACKEND_DRIVERS[driver], request))
    if driver != INFER:
        return build_options(driver, main=source, section=convert_values(driver, commands, source))
    after = workflow_command(driver, commands, source)
    given = {key: value for key, value in commands.items() if key != "command"}
    options = build_options(driver, main=source, section=convert_values(driver, given, source))
    return ToolOptions(infer_calls(options, after))  # type: ignore[arg-type]


def _steps_plan(workflow: dict[str, object], name: str, path: str) -> Plan:
    steps = []
    for step in workflow["steps"]:  # type: ignore[attr-defined]
        body = workflow[step]
        source = Source(file=path, place=f"workflow '{name}', step '{step}'")
        driver = body["one-cmd"]  # type: ignore[index]
        if not isinstance(driver, str) or (driver not in DRIVERS and driver not in BACKEND_DRIVERS):
            raise UnsupportedError(f"{driver} is not supported" + source.context())
        commands = _object(body["commands"], '"commands"', source)  # type: ignore[index]
        steps.append(step_of(driver, _step_options(driver, commands, source), None))
    return Plan(steps=steps, config_path=path)


def plans_from_workflow(path: str) -> list[Plan]:
    """One plan per workflow, in run order; everything is validated before returning."""
    path = os.path.expanduser(path)
    data = _load(path)
    source = Source(file=path)
    names = _names(data["workflows"], '"workflows"', source)
    for name in names:
        if name not in data:
            raise source.error(f'Not found {name} key listed in "workflows"')
    workflows = {name: _check_workflow(data, name, path) for name in names}
    after: dict[str, list[str]] = {}
    for name, workflow in workflows.items():
        place = Source(file=path, place=f"workflow '{name}'")
        after[name] = _names(workflow.get("run-after", []), '"run-after"', place)
        for previous in after[name]:
            if previous not in workflows:
                raise place.error(f'Not found {previous} key listed in "run-after"')
    plans = []
    for name in run_order(names, after, source):
        workflow = workflows[name]
        if "cfg-reference" in workflow:
            reference = workflow["cfg-reference"]["path"]  # type: ignore[index]
            plans.append(plan_from_config(reference))
        else:
            plans.append(_steps_plan(workflow, name, path))
    return plans
