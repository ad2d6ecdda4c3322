"""Building plans from a configuration file or a single driver's command line
(cli-and-config.md §6, §9, §14, §17.1)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from one_cmds.backends.calls import ToolOptions
from one_cmds.config.backend_steps import (
    BACKEND_DRIVERS,
    BackendRequest,
    backend_calls,
    infer_calls,
)
from one_cmds.config.drivers import DRIVERS, step_of
from one_cmds.config.groups import check_optimization_name, load_groups
from one_cmds.config.reader import ConfigFile, read_config
from one_cmds.config.resolve import OPTIMIZE, build_options, convert_values
from one_cmds.config.sections import (
    check_backend,
    check_backend_section,
    check_section_names,
    read_environment,
    read_profile,
    read_switches,
    read_target,
)
from one_cmds.config.source import COMMAND_LINE, Source, unrecognized
from one_cmds.config.steps import ALL_STEPS, RUN_STEPS
from one_cmds.config.values import Settings
from one_cmds.pipeline import Plan
from one_cmds.pipeline import environment as pipeline_environment
from one_cmds.report.console import warn


def _section_missing(config: ConfigFile, section: str) -> Exception:
    return config.source().error(f"configuration file must have '{section}' section")


def _command_line(cli: Mapping[str, object] | None, driver: str, usage: bool) -> Settings:
    source = Source(place="command line", usage=usage)
    return convert_values(driver, cli or {}, source)


def _check_cli_sections(cli: Mapping[str, object], enabled: list[str]) -> None:
    unknown = [name for name in cli if name not in RUN_STEPS]
    if unknown:
        raise unrecognized("sections", unknown, sorted(RUN_STEPS), Source(place="command line"))
    for name in cli:
        if name not in enabled:
            warn(f"options given for [{name}] have no effect: the step is not enabled")


def plan_from_config(
    path: str,
    *,
    cli: dict[str, dict[str, object]] | None = None,
    optimization: str | None = None,
    legacy: bool = False,
    backend: str | None = None,
    target: str | None = None,
) -> Plan:
    """Read and validate a configuration (INI, or TOML for ``*.toml``) and build its plan.

    ``cli`` maps a step section to option values given on a command line (highest
    precedence); ``optimization`` is a group name such as ``"O1"`` (``onecc -O1``), which
    replaces ``include``; ``legacy`` is the ``one-build`` behaviour (§9.1); ``backend`` is
    ``onecc -b`` and ``target`` ``onecc -T`` (forwarded to codegen and profile). Everything
    is checked before the plan is returned; no model is read.
    """
    config = read_config(os.path.expanduser(path))
    if optimization is not None:
        check_optimization_name(optimization)
    if backend is not None:
        check_backend(config, backend)
    check_section_names(config)
    switches = read_switches(config, legacy=legacy)
    include_source = config.source(switches.section)
    names = [optimization] if optimization is not None else switches.include
    o1_named, groups = load_groups(names, include_source)
    o1_group = include_source if o1_named else None
    profile = read_profile(config)
    environment = read_environment(config)
    check_backend_section(config)
    _check_cli_sections(cli or {}, switches.enabled)

    steps = []
    for step in switches.enabled:
        if step not in config.sections:
            raise _section_missing(config, step)
        source = config.source(step)
        if step in BACKEND_DRIVERS:
            request = BackendRequest(
                section=config.sections[step],
                source=source,
                backend=backend,
                target=target,
                config_target=read_target(config),
            )
            with pipeline_environment(environment):
                calls = backend_calls(BACKEND_DRIVERS[step], request)
            steps.append(step_of(step, ToolOptions(calls), step))
            continue
        options = build_options(
            step,
            main=source,
            section=convert_values(step, config.sections[step], source),
            groups=groups if step == OPTIMIZE else (),
            o1_group=o1_group,
            cli=_command_line((cli or {}).get(step), step, usage=False),
        )
        from one_cmds.stages.options import InferOptions

        if isinstance(options, InferOptions):
            options = ToolOptions(infer_calls(options))
        steps.append(step_of(step, options, step))
    for step in ALL_STEPS:
        if step in switches.enabled or step not in config.sections:
            continue
        if step in DRIVERS:
            convert_values(step, config.sections[step], config.source(step))
    if not steps:
        warn("no step is enabled")
    return Plan(steps=steps, environment=environment, profile=profile, config_path=config.path)


def plan_from_arguments(
    driver: str,
    cli: Mapping[str, object],
    *,
    config: str | None = None,
    section: str | None = None,
    optimization: str | None = None,
) -> Plan:
    """The one-step plan of a single-step driver (``one-optimize -i a -o b ...``).

    ``cli`` holds the options given on its command line; with ``config`` the driver also
    reads its own section (``section`` names another one, hidden ``-S``) and the global
    ``[profile]`` and ``[Environment]``, as ``onecc -C`` would for that step. Without a
    configuration, errors are command-line errors (exit 2).
    """
    if optimization is not None:
        check_optimization_name(optimization)
    path = None
    settings: Settings = {}
    main = COMMAND_LINE
    name = section or driver
    profile, environment = False, {}
    if config is not None:
        parsed = read_config(os.path.expanduser(config))
        path = parsed.path
        if name not in parsed.sections:
            raise _section_missing(parsed, name)
        main = parsed.source(name)
        settings = convert_values(driver, parsed.sections[name], main)
        profile, environment = read_profile(parsed), read_environment(parsed)
    o1_named, groups = load_groups([optimization] if optimization is not None else [], main)
    options = build_options(
        driver,
        main=main,
        section=settings,
        groups=groups,
        cli=_command_line(cli, driver, usage=config is None),
        o1_group=main if o1_named else None,
    )
    step = step_of(driver, options, name if config is not None else None)
    return Plan(steps=[step], environment=environment, profile=profile, config_path=path)
