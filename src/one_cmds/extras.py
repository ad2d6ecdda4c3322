"""The optional extras (tf-and-pytorch-import.md §2.2): TensorFlow and PyTorch for their front
ends, Ray for ``onecc --ray``; found without importing them when a configuration is checked,
their version checked when they are imported. Usable from every layer, as ``errors`` is."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType

from .errors import MissingExtraError


@dataclass(frozen=True)
class Requirement:
    """A module an extra installs: its import name, the name messages give it, the oldest
    version this project runs with (None: any)."""

    module: str
    label: str
    extra: str
    oldest: tuple[int, int] | None = None

    def check_installed(self) -> None:
        """Raise the "not installed" error when the module cannot be found."""
        if importlib.util.find_spec(self.module) is None:
            raise MissingExtraError(
                f"{self.label} is not installed: pip install 'one-cmds[{self.extra}]'"
            )

    def load(self) -> ModuleType:
        """Import the module; raise the "too old" error for an older release."""
        self.check_installed()
        module = importlib.import_module(self.module)
        version = str(getattr(module, "__version__", ""))
        if self.oldest is not None and _release(version) < self.oldest:
            oldest = ".".join(map(str, self.oldest))
            raise MissingExtraError(
                f"{self.label} {version.split('+')[0]} is too old ({oldest} or newer is "
                f"needed): pip install -U 'one-cmds[{self.extra}]'"
            )
        return module


def _release(version: str) -> tuple[int, ...]:
    """The leading numbers of a version string (``2.13.0+cpu`` -> (2, 13, 0))."""
    numbers = []
    for part in version.split("+")[0].split("."):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)


TORCH = Requirement("torch", "PyTorch", "pytorch", (2, 6))
ONNXSCRIPT = Requirement("onnxscript", "onnxscript", "pytorch")
PYTORCH_EXTRA = (TORCH, ONNXSCRIPT)
TENSORFLOW = Requirement("tensorflow", "TensorFlow", "tf", (2, 16))
RAY = Requirement("ray", "Ray", "ray", (2, 9))
