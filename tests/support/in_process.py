"""A program of the package run in this process as its console script runs it: its ``main``
with the command line, in a folder, with an environment; returns the exit code. The
hand-off tests run many single-step commands this way (each still reads the files the
previous one wrote), without paying a Python start and the imports per command."""

from __future__ import annotations

import os
from collections.abc import Mapping

from one_cmds.cli import drivers, onecc


def run_program(program: str, args: list[str], cwd: os.PathLike[str] | str, env: Mapping[str, str]):
    """Exit code of ``program args`` run in ``cwd`` with the process environment ``env``."""
    main = onecc.main if program == "onecc" else drivers.MAINS[program]
    folder, environment = os.getcwd(), dict(os.environ)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    try:
        return main(args)
    finally:
        os.environ.clear()
        os.environ.update(environment)
        os.chdir(folder)


def quantize_with_config(tmp_path: os.PathLike[str], model: str, keys: str) -> int:
    """Exit code of ``onecc -C q.cfg --verbose`` in ``tmp_path``, the config quantizing
    ``model`` into ``q.circle`` with the ``[one-quantize]`` lines ``keys``."""
    cfg = os.path.join(tmp_path, "q.cfg")
    with open(cfg, "w") as f:
        f.write(
            "[onecc]\none-quantize=True\n[one-quantize]\n"
            f"input_path={model}\noutput_path=q.circle\n{keys}"
        )
    return run_program("onecc", ["-C", cfg, "--verbose"], tmp_path, dict(os.environ))
