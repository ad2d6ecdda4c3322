"""Command schemas ``command/<backend>/{codegen,profile}.py`` (backends-and-packaging.md §2.4):
``command_schema()`` returns a parser whose arguments say how the section's keys become the
backend driver's argv. The file runs with ``onelib``, ``onelib.argumentparse`` and
``onelib.argparse`` standing for this module."""

from __future__ import annotations

import runpy
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from one_cmds.errors import ConfigError


class DriverName:
    """The argument naming the backend driver."""


class TargetOption:
    """The option that receives the target."""


class NormalOption:
    """An option filled from the section key of the same (dash-stripped) name."""


ACTIONS = (DriverName, TargetOption, NormalOption)


@dataclass(frozen=True)
class Argument:
    names: tuple[str, ...]
    action: type
    dtype: type

    @property
    def positional(self) -> bool:
        return not self.names[0].startswith("-")


class ArgumentParser:
    """The schema parser: arguments in declaration order, checked as they are added."""

    def __init__(self) -> None:
        self.arguments: list[Argument] = []

    def add_argument(self, *names: str, action: type | None = None, dtype: type = str) -> None:
        if action is None:
            raise ConfigError('"action" keyword argument is required')
        if action not in ACTIONS:
            raise ConfigError("Invalid action")
        if not names or not all(isinstance(n, str) and n.strip("-") for n in names):
            raise ConfigError("Invalid option name")
        if len({name.startswith("-") for name in names}) > 1:
            raise ConfigError(
                "Invalid option names. Only either of option type is allowed: "
                "positional or optional"
            )
        taken = {name for argument in self.arguments for name in argument.names}
        if taken & set(names) or len(set(names)) != len(names):
            raise ConfigError("Duplicate option names")
        if action is DriverName and any(a.action is DriverName for a in self.arguments):
            raise ConfigError("onecc doesn't support multiple driver name")
        if dtype is bool and action is not NormalOption:
            raise ConfigError("Only normal option can be boolean type")
        if dtype is bool and not names[0].startswith("-"):
            raise ConfigError('Boolean type option should start with dash("-")')
        self.arguments.append(Argument(tuple(names), action, dtype))

    def has_option(self, key: str) -> bool:
        """Whether a ``NormalOption`` reads the section key ``key``."""
        return any(
            key in (name.lstrip("-") for name in argument.names)
            for argument in self.arguments
            if argument.action is NormalOption
        )

    @property
    def driver(self) -> str:
        """The driver's name (the first name of the ``DriverName`` argument)."""
        for argument in self.arguments:
            if argument.action is DriverName:
                return argument.names[0]
        raise ConfigError("Not found the driver name in the command schema")

    def build(
        self,
        keys: Mapping[str, object],
        target: str | None,
        is_true: Callable[[str, object], bool],
    ) -> tuple[str, list[str], list[str]]:
        """The driver name, its arguments and the keys no argument used; ``is_true(key,
        value)`` reads the value of a boolean option."""
        args: list[str] = []
        used: set[str] = set()
        for argument in self.arguments:
            if argument.action is TargetOption:
                args.extend([argument.names[0], target or ""])
            elif argument.action is NormalOption:
                key = next((n.lstrip("-") for n in argument.names if n.lstrip("-") in keys), None)
                if key is None:
                    continue
                used.add(key)
                value = keys[key]
                if argument.dtype is bool:
                    if is_true(key, value):
                        args.append(argument.names[0])
                elif argument.positional:
                    args.append(str(value))
                else:
                    args.extend([argument.names[0], str(value)])
        return self.driver, args, [key for key in keys if key not in used]


@contextmanager
def _onelib() -> Iterator[None]:
    """``onelib``, ``onelib.argumentparse`` and ``onelib.argparse`` as this module."""
    this = sys.modules[__name__]
    package = types.ModuleType("onelib")
    package.argumentparse = this  # type: ignore[attr-defined]
    package.argparse = this  # type: ignore[attr-defined]
    names = ("onelib", "onelib.argumentparse", "onelib.argparse")
    saved = {name: sys.modules.get(name) for name in names}
    sys.modules.update({"onelib": package, "onelib.argumentparse": this, "onelib.argparse": this})
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def load_schema(path: str) -> ArgumentParser:
    """Run the schema file and call its ``command_schema()``."""
    with _onelib():
        try:
            namespace = runpy.run_path(path)
            if "command_schema" not in namespace:
                raise ConfigError('You must implement "command_schema" method')
            parser = namespace["command_schema"]()
        except ConfigError:
            raise
        except Exception as error:
            raise ConfigError(f"Failed to load the command schema {path}: {error}") from None
    if not isinstance(parser, ArgumentParser):
        raise ConfigError(f"command_schema() of {path} must return an ArgumentParser")
    return parser
