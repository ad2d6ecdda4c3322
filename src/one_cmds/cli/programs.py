"""Program name -> main function, for the launchers of a checkout (``./onecc``,
``drivers/one-*``), which run the program named by how they were invoked."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from one_cmds.cli import one_build, one_import, onecc
from one_cmds.cli.drivers import MAINS


def _one_create_quant_dataset(argv: Sequence[str] | None) -> int:
    from one_cmds.cli import data_tools  # h5 writing loads for the data tools only

    return data_tools.one_create_quant_dataset(argv)


def _rawdata2hdf5(argv: Sequence[str] | None) -> int:
    from one_cmds.cli import data_tools

    return data_tools.rawdata2hdf5(argv)


PROGRAMS: dict[str, Callable[[Sequence[str] | None], int]] = {
    "onecc": onecc.main,
    "one-build": one_build.main,
    "one-import": one_import.main,
    "one-create-quant-dataset": _one_create_quant_dataset,
    "rawdata2hdf5": _rawdata2hdf5,
    **MAINS,
}


def main_for(path: str) -> Callable[[Sequence[str] | None], int]:
    """The main function of the program whose launcher is ``path`` (default ``onecc``); a
    ``.py`` suffix of the launcher's name is not part of the program name."""
    name = os.path.basename(path).removesuffix(".py")
    return PROGRAMS.get(name, onecc.main)
