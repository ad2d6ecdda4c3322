"""Numpy reference interpreter: one kernel per operator."""

from .interpreter import Interpreter, InterpreterError, RunContext, evaluate, load_kernels
from .registry import KERNELS, QUANTIZED_KERNELS, kernel, quantized_kernel

__all__ = [
    "KERNELS",
    "QUANTIZED_KERNELS",
    "Interpreter",
    "InterpreterError",
    "RunContext",
    "evaluate",
    "kernel",
    "load_kernels",
    "quantized_kernel",
]
