"""Program name -> main function, for the launchers of a checkout (``./onecc``,
``drivers/one-*``), which run the program named by how they were invoked."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from one_cmds.cli import one_build, onecc
from one_cmds.cli.drivers import MAINS

PROGRAMS: dict[str, Callable[[Sequence[str] | None], int]] = {
    "onecc": onecc.main,
    "one-build": one_build.main,
    **MAINS,
}


def main_for(path: str) -> Callable[[Sequence[str] | None], int]:
    """The main function of the program whose launcher is ``path`` (default ``onecc``)."""
    return PROGRAMS.get(os.path.basename(path), onecc.main)
