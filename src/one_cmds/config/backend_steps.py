"""What a codegen, profile or infer step runs, from its section or command line
(backends-and-packaging.md §1.1, §2.1-§2.3, §3): the verification of §2.2 in order, with each
driver's own texts, then the tool calls."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from one_cmds.backends.calls import ToolCall
from one_cmds.backends.lookup import find_schema, find_target
from one_cmds.backends.schema import ArgumentParser, load_schema
from one_cmds.backends.target import target_backend
from one_cmds.config.source import COMMAND_LINE, Source, unrecognized
from one_cmds.config.values import to_bool, type_name
from one_cmds.errors import OneCmdsError
from one_cmds.report.console import warn

if TYPE_CHECKING:
    from one_cmds.stages.options import InferOptions

BOTH_OPTIONS = "'backend' option and 'target' option cannot be used simultaneously."
MISSING_COMMAND = "commands for the backend is missing."
BOTH_KEYS = "'backend' option and 'backends' option cannot be used simultaneously."
REQUIRED = "the following arguments are required: [-b/--backend | -T/--target]"
NOT_OF_GIVEN = "Not found the command of given backend"
RAW_COMMAND = "__command"


@dataclass(frozen=True)
class BackendDriver:
    """``one-codegen`` or ``one-profile``: tool suffix, schema name and help description.

    A ``backend`` whose command a configuration lacks is ``'command' key is missing in the
    configuration file``, with the reference's ``error: `` prefix in that context too, where
    its tests grep it (one-codegen_neg_004, one-profile_neg_004).
    """

    name: str
    suffix: str
    schema: str
    description: str


CODEGEN = BackendDriver(
    "one-codegen",
    "compile",
    "codegen",
    "command line tool for code generation",
)
PROFILE = BackendDriver(
    "one-profile",
    "profile",
    "profile",
    "command line tool for profiling backend model",
)
BACKEND_DRIVERS = {driver.name: driver for driver in (CODEGEN, PROFILE)}


@dataclass
class BackendRequest:
    """Everything a codegen/profile step is selected by.

    ``section`` is the step's section (None without ``-C``), ``source`` where it is defined
    (errors there exit 255), ``flags`` where ``-b``/``-T`` came from; ``after`` the backend's
    arguments from the command line: those after ``--``, or without ``--`` the arguments the
    driver does not know (None when there are none).
    """

    section: Mapping[str, object] | None = None
    source: Source = COMMAND_LINE
    flags: Source = COMMAND_LINE
    backend: str | None = None
    target: str | None = None
    config_target: str | None = None
    after: list[str] | None = None


def _words(value: object, source: Source, key: str) -> list[str]:
    """A command: a string split on whitespace (no quoting), or a TOML array of strings."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise source.error(f"expected a string, got {type_name(value)}", key=key)


def _names(keys: Mapping[str, object], source: Source) -> list[str]:
    """``backends=a,b``: items stripped, empty ones dropped."""
    if "backends" not in keys:
        return []
    value = keys["backends"]
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise source.error(f"expected a string, got {type_name(value)}", key="backends")
    return [item.strip() for item in items if item.strip()]


def _call(driver: BackendDriver, backend: str, target: str | None, words: list[str]) -> ToolCall:
    """``<backend>-<suffix> [--target T] words``."""
    tool = f"{backend}-{driver.suffix}"
    return ToolCall(tool, (*(["--target", target] if target else []), *words), prefix=tool)


def _warn_unused(keys: Mapping[str, object], names: list[str], source: Source) -> None:
    valid = {"backend", "backends", "command", RAW_COMMAND, *names}
    for key in keys:
        if key not in valid:
            warn(f"'{key}' has no effect in [{source.section}] and is ignored")


def _command_key(
    keys: Mapping[str, object], source: Source, schema: ArgumentParser | None = None
) -> str | None:
    """The key holding the backend's command words: ``__command``, else ``command`` unless the
    command schema has a ``command`` option of its own (onecc_070-072)."""
    raw = "command" in keys and (schema is None or not schema.has_option("command"))
    if raw and RAW_COMMAND in keys:
        raise source.error(f"'command' and '{RAW_COMMAND}' keys cannot be used simultaneously.")
    if RAW_COMMAND in keys:
        return RAW_COMMAND
    return "command" if raw else None


def _no_command(source: Source, key: str = "command") -> OneCmdsError:
    message = f"'{key}' key is missing in the configuration file"
    return source.error(message if source.usage else f"error: {message}")


def _backend_of(target: str | None, needed: bool) -> str | None:
    """The BACKEND of ``target``. When the backend is chosen otherwise, a target without a
    target file is only forwarded as ``--target`` (one-profile_007)."""
    if target is None or (not needed and find_target(target) is None):
        return None
    return target_backend(target)


def _schema_call(
    parser: ArgumentParser, keys: Mapping[str, object], target: str, source: Source
) -> ToolCall:
    """The argv a command schema builds from the section's keys (§2.4)."""
    given = {key: value for key, value in keys.items() if key != "backend"}
    name, args, leftover = parser.build(given, target, lambda k, v: to_bool(v, source, k))
    if leftover:
        raise source.error(f"Invalid option in [{source.section}] section: {' '.join(leftover)}")
    return ToolCall(name, tuple(args), prefix=name)


def _without_config(driver: BackendDriver, request: BackendRequest, backend: str) -> ToolCall:
    if not request.after:
        raise request.source.error(MISSING_COMMAND)
    return _call(driver, backend, request.target, request.after)


def backend_calls(driver: BackendDriver, request: BackendRequest) -> list[ToolCall]:
    """The §2.2 checks in order, then what runs (§2.3)."""
    where = request.source
    if request.backend is not None and request.target is not None:
        raise request.flags.error(BOTH_OPTIONS)
    keys = {k: v for k, v in (request.section or {}).items() if v != ""}
    target = request.target or request.config_target
    selected = request.backend is not None or "backend" in keys or "backends" in keys
    if not selected and target is None:
        raise where.error(REQUIRED)
    of_target = _backend_of(target, needed=not selected)
    if request.section is None:
        return [_without_config(driver, request, str(request.backend or of_target))]
    if "backend" in keys and "backends" in keys:
        raise where.error(BOTH_KEYS)
    backend = keys.get("backend")
    if backend is not None and not isinstance(backend, str):
        raise where.error(f"expected a string, got {type_name(backend)}", key="backend")
    if request.backend is not None and backend is not None and backend != request.backend:
        raise where.error(NOT_OF_GIVEN)
    names = _names(keys, where)
    schema = find_schema(of_target, driver.schema) if of_target is not None else None
    commanded = "command" in keys or RAW_COMMAND in keys
    if backend is not None and not commanded and not request.after and schema is None:
        raise _no_command(where)
    for name in names:
        if name not in keys:
            raise where.error(f"Not found the command for {name}")
    if request.backend is not None and names and request.backend not in names:
        raise where.error(NOT_OF_GIVEN)
    return _configured_calls(driver, request, keys, names, schema, of_target)


def _configured_calls(
    driver: BackendDriver,
    request: BackendRequest,
    keys: dict[str, object],
    names: list[str],
    schema: str | None,
    of_target: str | None,
) -> list[ToolCall]:
    """§2.3 with ``-C``: ``--`` arguments, then ``-b``, then a schema, then the keys."""
    where = request.source
    target = request.target or request.config_target
    backend = keys.get("backend")
    if request.after:
        if names and request.backend is None:
            raise where.error("the following arguments are required: -b/--backend")
        chosen = request.backend or backend or of_target
        return [_call(driver, str(chosen), target, request.after)]
    parser = load_schema(schema) if schema is not None and request.backend is None else None
    command = _command_key(keys, where, parser)
    if parser is not None:
        if command is None:
            return [_schema_call(parser, keys, str(target), where)]
        if command == "command":
            warn(
                f"'command' key in the [{driver.name}] will be deprecated as of September 1, 2025."
            )
    _warn_unused(keys, names, where)
    if request.backend is not None:
        key = command if backend == request.backend else request.backend
        if key is None or key not in keys:
            raise _no_command(where, key or "command")
        return [_call(driver, request.backend, target, _words(keys[key], where, key))]
    if names:
        return [_call(driver, name, target, _words(keys[name], where, name)) for name in names]
    if command is None:
        raise _no_command(where)
    chosen = backend if backend is not None else of_target
    return [_call(driver, str(chosen), target, _words(keys[command], where, command))]


def infer_calls(options: InferOptions, after: Sequence[str] = ()) -> list[ToolCall]:
    """The inference driver with the ``--`` arguments then ``command``; then, if set, the
    post-process script run by this Python (§3)."""
    command = options.command.split() if options.command else []
    prefix = os.path.basename(options.driver)
    calls = [ToolCall(options.driver, (*after, *command), prefix=prefix)]
    words = (options.post_process or "").split()
    if words:
        calls.append(ToolCall(words[0], tuple(words[1:]), prefix="one-infer", python=True))
    return calls


def workflow_backend_request(
    one_cmd: str, commands: Mapping[str, object], source: Source
) -> BackendRequest:
    """A workflow codegen/profile step: ``backend``/``target`` keys, ``--``, then ``command``
    (§1.1)."""
    valid = ("backend", "target", "command")
    unknown = [key for key in commands if key not in valid]
    if unknown:
        raise unrecognized("arguments", unknown, valid, source)
    after = workflow_command(one_cmd, commands, source)
    values = {}
    for key in ("backend", "target"):
        value = commands.get(key)
        if value is not None and not isinstance(value, str):
            raise source.error(f"expected a string, got {type_name(value)}", key=key)
        values[key] = value or None
    return BackendRequest(source=source, flags=source, after=after, **values)


def workflow_command(one_cmd: str, commands: Mapping[str, object], source: Source) -> list[str]:
    """The ``command`` of a workflow codegen/profile/infer step, split on whitespace."""
    if "command" not in commands:
        raise source.error(f'"command" is required for {one_cmd}')
    return _words(commands["command"], source, "command")
