"""Running a model: the engines (the numpy reference interpreter of :mod:`one_cmds.interp`,
LiteRT in process) behind one entry point for calibration, ``--verify``, evaluation and the
Python API. ``Interpreter`` is the public ``one_cmds.Interpreter``."""

from .reference import Interpreter

__all__ = ["Interpreter"]
