"""What a configuration asks for: the steps in their fixed order (cli-and-config.md §9), the
plan of one build, and the rule by which a step receives the previous step's model in memory.

Configuration checking imports this module, so it loads nothing heavy: the option models and
stages are named here and imported when a step runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from ..backends.calls import ToolOptions
    from ..stages.options import DriverOptions

    Options = Union[DriverOptions, ToolOptions]  # noqa: UP007 (a string annotation at run time)

# Every import switch of [onecc], in execution order.
IMPORT_SWITCHES = (
    "one-import-tflite",
    "one-import-circle",
    "one-import-tf",
    "one-import-onnx",
    "one-import-bcq",
    "one-import-pytorch",
)
# Every step key of [onecc], in execution order (§9).
STEP_ORDER = (
    *IMPORT_SWITCHES,
    "one-resize",
    "one-optimize",
    "one-quantize",
    "one-pack",
    "one-codegen",
    "one-profile",
    "one-partition",
    "one-infer",
)
# The stage that runs each step this project runs ("module:name" under one_cmds.stages).
STAGES = {
    "one-import-tflite": "importer:IMPORT",
    "one-import-circle": "importer:IMPORT",
    "one-import-tf": "tf_import:IMPORT_TF",
    "one-import-onnx": "importer:IMPORT_ONNX",
    "one-import-bcq": "tf_import:IMPORT_BCQ",
    "one-import-pytorch": "importer:IMPORT_PYTORCH",
    "one-resize": "resize:RESIZE",
    "one-optimize": "optimize.stage:OPTIMIZE",
    "one-quantize": "quantize:QUANTIZE",
    "one-pack": "pack:PACK",
    "one-codegen": "tools:TOOLS",
    "one-profile": "tools:TOOLS",
    "one-partition": "partition:PARTITION",
    "one-infer": "tools:TOOLS",
}
RUN_STEPS = tuple(step for step in STEP_ORDER if step in STAGES)


@dataclass
class Step:
    """One step to run: the driver, its validated options, the section it came from and the
    command line that heads its log (``<step> --<option> <value> ...``, §1.3)."""

    driver: str
    options: Options
    section: str | None = None
    command: str = ""


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
        own = getattr(step.options, "generate_profile_data", None)
        return self.profile if own is None else bool(own)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name the same file (after ``expanduser`` and ``realpath``)."""
    return _canonical(a) == _canonical(b)


def receives(input_path: str, previous_output: str) -> bool:
    """The in-memory hand-off rule (cli §10): a step whose input is the output file of the
    last step that produced a model receives that model instead of reading the file (a step
    without an input path, a tool step, receives nothing)."""
    return bool(input_path) and same_file(input_path, previous_output)


def _canonical(path: str) -> str:
    return os.path.realpath(os.path.expanduser(path))
