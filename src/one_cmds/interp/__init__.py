"""Numpy reference interpreter: one kernel per operator."""

from .interpreter import Interpreter, InterpreterError, RunContext
from .registry import KERNELS, kernel

__all__ = ["KERNELS", "Interpreter", "InterpreterError", "RunContext", "kernel"]
