"""Loading a PyTorch model file by its kind (tf-and-pytorch-import.md §5.2): an ExportedProgram,
TorchScript, a pickled module or a state dict (with the python file that defines its class), or
a TorchServe archive of one of them. This runs the user's python file, as the reference does."""

from __future__ import annotations

import importlib.util
import inspect
import os
import pickle
import sys
import types
from dataclasses import dataclass
from typing import IO, Any

import torch

from ...errors import StageError
from ...formats.files import open_model_bytes
from ...report.chatter import one_line
from .kinds import Kind, MarEntries, kind_of


class PytorchImportError(StageError):
    """A PyTorch model that cannot be loaded or exported."""


@dataclass
class Loaded:
    """A loaded model: an ``nn.Module``, a TorchScript module or an ExportedProgram."""

    kind: Kind
    model: Any


@dataclass
class PythonFile:
    """A python file that defines model classes: its name (for messages) and source."""

    path: str
    source: str

    @classmethod
    def read(cls, path: str) -> PythonFile:
        try:
            return cls(path, bytes(open_model_bytes(path)).decode("utf-8"))
        except UnicodeDecodeError as e:
            raise cls.failed(path, e) from None

    @staticmethod
    def failed(path: str, error: BaseException) -> PytorchImportError:
        return PytorchImportError(
            f"ValueError: Failed to execute given python model file {path} "
            f"({type(error).__name__}: {error})"
        )

    def run(self) -> types.ModuleType:
        """Run the file as a module named by its stem, in ``sys.modules``, its folder
        appended to ``sys.path``."""
        name = _module_name(self.path)
        module = types.ModuleType(name)
        module.__file__ = os.path.abspath(self.path)
        folder = os.path.dirname(module.__file__)
        if folder not in sys.path:
            sys.path.append(folder)
        sys.modules[name] = module
        try:
            exec(compile(self.source, module.__file__, "exec"), module.__dict__)
        except (Exception, SystemExit) as e:  # user code never ends the tool (Ctrl-C does)
            sys.modules.pop(name, None)
            raise self.failed(self.path, e) from None
        return module


def _module_name(path: str) -> str:
    """The module a python file runs as: its stem."""
    return os.path.splitext(os.path.basename(path))[0]


def load_model(path: str, python_file: PythonFile | None) -> Loaded:
    """Load ``path``; ``python_file`` defines the classes a pickle names."""
    kind = kind_of(path, path)
    if kind is not Kind.MAR:
        return _load(path, path, kind, python_file)
    entries = MarEntries(path)
    if python_file is None and entries.model_file is not None:
        python_file = PythonFile(entries.model_file, entries.model_source or "")
    return _load(entries.serialized, path, kind_of(entries.serialized, path), python_file)


def _load(file: str | IO[bytes], path: str, kind: Kind, python_file: PythonFile | None) -> Loaded:
    if not isinstance(file, str):
        file.seek(0)
    if kind is Kind.EXPORTED_PROGRAM:
        return Loaded(kind, torch.export.load(file))
    if kind is Kind.TORCHSCRIPT:
        return Loaded(kind, torch.jit.load(file, map_location="cpu"))
    module = python_file.run() if python_file is not None else None
    loaded = torch.load(
        file,
        map_location="cpu",
        weights_only=False,
        pickle_module=_pickle_module(module, path, python_file.path if python_file else None),
    )
    if isinstance(loaded, torch.nn.Module):
        return Loaded(kind, loaded)
    if isinstance(loaded, dict) and all(isinstance(v, torch.Tensor) for v in loaded.values()):
        return Loaded(kind, _from_state_dict(loaded, module, path, python_file))
    raise PytorchImportError(
        f"Invalid input file: {path} (holds a {type(loaded).__name__}, not a model)"
    )


def _pickle_module(
    module: types.ModuleType | None, path: str, python_path: str | None
) -> types.ModuleType:
    """A ``pickle`` stand-in for ``torch.load`` whose unpickler finds ``__main__.<name>`` in
    the user's module and names the missing class otherwise."""

    class Unpickler(pickle.Unpickler):
        def find_class(self, module_name: str, name: str) -> Any:
            if module_name == "__main__" and module is not None:
                module_name = module.__name__
            try:
                return super().find_class(module_name, name)
            except (AttributeError, ImportError):
                raise _missing_class(path, module_name, name, python_path) from None

    stand_in = types.ModuleType("pickle")
    stand_in.__dict__.update(pickle.__dict__)
    stand_in.Unpickler = Unpickler  # type: ignore[attr-defined]
    stand_in.load = lambda f, **kw: Unpickler(f, **kw).load()  # type: ignore[attr-defined]
    return stand_in


def _missing_class(
    path: str, module_name: str, name: str, python_file: str | None
) -> PytorchImportError:
    """A class the pickle names cannot be found: give python_path only when it could help
    (a damaged archive or pickle names classes no python file defines; a module that is
    there but lacks the class is a damaged file or another version of the library)."""
    qualified = f"{module_name}.{name}"
    if module_name.startswith("__torch__"):
        return PytorchImportError(
            f"Invalid input file: {path} (a TorchScript archive without its code or constants: "
            f"'{qualified}' cannot be loaded)"
        )
    if not (all(p.isidentifier() for p in module_name.split(".")) and name.isidentifier()):
        return PytorchImportError(f"Invalid input file: {path} (damaged: it names class "
                                  f"{qualified!r})")  # fmt: skip
    if python_file is not None and module_name == _module_name(python_file):
        return PytorchImportError(f"Cannot load {path}: {python_file} defines no class '{name}'")
    if module_name != "__main__" and _importable(module_name):
        return PytorchImportError(
            f"Invalid input file: {path} (damaged, or saved with another version of "
            f"'{module_name}', which has no class '{name}')"
        )
    return PytorchImportError(
        f"Cannot load {path}: class '{qualified}' not found (give python_path, the file that "
        "defines it)"
    )


def _importable(module_name: str) -> bool:
    return (
        module_name in sys.modules
        or importlib.util.find_spec(module_name.split(".")[0]) is not None
    )


def _from_state_dict(
    state: dict[str, torch.Tensor],
    module: types.ModuleType | None,
    path: str,
    python_file: PythonFile | None,
) -> torch.nn.Module:
    """The model class of ``module`` built without arguments, the state loaded strictly. Of
    several classes, the one whose parameters and buffers the state names (a project
    addition: the reference stops at more than one class)."""
    if module is None or python_file is None:
        raise PytorchImportError(
            f"{path} holds only a state dict: give python_path, the file that defines the "
            "model class"
        )
    defined = [
        c
        for c in vars(module).values()
        if inspect.isclass(c) and issubclass(c, torch.nn.Module) and c.__module__ == module.__name__
    ]
    matching = [c for c in defined if _state_keys(c) == set(state)]
    chosen = defined if len(defined) == 1 else matching
    if len(chosen) != 1:
        names = [c.__name__ for c in defined]
        raise PytorchImportError(
            f"ValueError: Expected only one class as model definition. {names} ({python_file.path})"
        )
    model = chosen[0]()
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise PytorchImportError(
            f"Cannot load {path} into {chosen[0].__name__}: {one_line(e)}"
        ) from None
    return model


def _state_keys(cls: type[torch.nn.Module]) -> set[str] | None:
    """The state dict keys of ``cls()``; None when it cannot be built without arguments."""
    try:
        return set(cls().state_dict())
    except Exception:
        return None
