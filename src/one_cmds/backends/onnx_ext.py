"""The ``one-import-onnx-ext`` extension (onnx-import.md §2): an executable installed beside the
program (``<install>/bin``) that converts an ``.onnx`` file to a circle file,

    one-import-onnx-ext [--unroll_rnn] [--unroll_lstm] [--experimental_disable_batchmatmul_unfold]
                        [--save_intermediate] [--keep_io_order] [<its own options>] <in> <out>

It is found only there (not on ``PATH``), and not at all with ``disable_ext`` or with
``ONE_IMPORT_ONNX_EXT_DISABLE`` set to ``1``/``Y``; ``ONE_IMPORT_ONNX_EXT_FORCE`` does what
``force_ext`` does. Its stdout passes through, its stderr lines are prefixed with its name.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from one_cmds.backends.calls import ToolCall, run_call
from one_cmds.backends.lookup import program_folder

EXTENSION = "one-import-onnx-ext"
_DISABLE = "ONE_IMPORT_ONNX_EXT_DISABLE"
_FORCE = "ONE_IMPORT_ONNX_EXT_FORCE"
# Flags of one-import-onnx the extension receives when they are set, in this order.
PASSED_FLAGS = (
    "unroll_rnn",
    "unroll_lstm",
    "experimental_disable_batchmatmul_unfold",
    "save_intermediate",
    "keep_io_order",
)


def _set(variable: str) -> bool:
    return os.environ.get(variable) in ("1", "Y")


def installed_path() -> str:
    """Where the extension is looked for: beside the running program."""
    return os.path.join(program_folder(), EXTENSION)


def find_extension(disable_ext: bool) -> str | None:
    """The extension's path, or None when it is disabled or not installed."""
    if disable_ext or _set(_DISABLE):
        return None
    path = installed_path()
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def forced(force_ext: bool) -> bool:
    """``force_ext`` or ``ONE_IMPORT_ONNX_EXT_FORCE``: the extension runs first."""
    return force_ext or _set(_FORCE)


def run_extension(
    path: str, flags: Sequence[str], extra: Sequence[str], input_path: str, output_path: str
) -> None:
    """Run the extension on ``input_path`` writing ``output_path``; ``flags`` are names of
    :data:`PASSED_FLAGS` that are set, ``extra`` the options only the extension knows. A
    non-zero exit is ``one-import-onnx-ext exited with code <N>``."""
    args = [f"--{name}" for name in PASSED_FLAGS if name in flags]
    call = ToolCall(EXTENSION, (*args, *extra, input_path, output_path), prefix=EXTENSION)
    run_call(call, [path, *call.args])
