"""Numpy reference interpreter: one kernel per operator."""

from .context import InterpreterError, KernelContext
from .interpreter import Interpreter, RunContext, evaluate, load_kernels
from .registry import KERNELS, QUANTIZED_KERNELS, kernel, quantized_kernel

__all__ = [
    "KERNELS",
    "QUANTIZED_KERNELS",
    "Interpreter",
    "InterpreterError",
    "KernelContext",
    "RunContext",
    "evaluate",
    "kernel",
    "load_kernels",
    "quantized_kernel",
]
