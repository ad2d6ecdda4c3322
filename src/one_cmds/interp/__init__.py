"""Numpy reference interpreter: one kernel per operator."""

from .interpreter import Interpreter, InterpreterError, RunContext, evaluate, load_kernels
from .registry import KERNELS, kernel

__all__ = [
    "KERNELS",
    "Interpreter",
    "InterpreterError",
    "RunContext",
    "evaluate",
    "kernel",
    "load_kernels",
]
