"""``--verify`` (a project addition): run the original and the optimized model in the
interpreter on the same random inputs and fail the step when an output differs beyond
rtol = atol = 1e-5 (1e-4 when an enabled pass reorders float arithmetic)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...engines import Interpreter
from ...errors import StageError
from ...interp import InterpreterError
from ...ir import Model, Tensor, numpy_dtype
from ...passes import PassSpec

EXACT_TOLERANCE = 1e-5
REORDERED_TOLERANCE = 1e-4


def random_inputs(inputs: Sequence[Tensor], seed: int = 0) -> list[np.ndarray]:
    """One array per input: floats standard normal, booleans random, integers in [0, 100)
    (uint8 in [0, 256), int8 in [-128, 128)); an unknown dimension is taken as 1."""
    rng = np.random.default_rng(seed)
    arrays = []
    for t in inputs:
        shape = tuple(1 if d is None else d for d in t.shape)
        dtype = numpy_dtype(t.dtype)
        if dtype is None:
            raise StageError(f"--verify: input '{t.name}' has type {t.dtype}, which it cannot feed")
        if dtype.kind == "f":
            arrays.append(rng.standard_normal(shape).astype(dtype))
        elif dtype.kind == "b":
            arrays.append(rng.random(shape) < 0.5)
        elif dtype.kind in "iu":
            low, high = {"int8": (-128, 128), "uint8": (0, 256)}.get(dtype.name, (0, 100))
            arrays.append(rng.integers(low, high, shape).astype(dtype))
        else:
            arrays.append(rng.standard_normal(shape).astype(dtype))
    return arrays


def verify(original: Model, optimized: Model, passes: Sequence[PassSpec]) -> str:
    """Compare the two models' outputs; raise when they differ, else return a summary."""
    exact = all(p.exact for p in passes)
    tolerance = EXACT_TOLERANCE if exact else REORDERED_TOLERANCE
    inputs = random_inputs(original.main.inputs)
    want = _matching_outputs(original, optimized, _run(original, inputs, "original"))
    got = _run(optimized, inputs, "optimized")
    worst = 0.0
    for t, w, g in zip(optimized.main.outputs, want, got, strict=True):
        if w.shape != g.shape:
            raise StageError(
                f"Optimized model differs from the original: output '{t.name}' has shape "
                f"{list(g.shape)}, the original {list(w.shape)} (--verify)"
            )
        difference = _difference(w, g, tolerance)
        if difference is None:
            continue
        worst = max(worst, difference[1])
        if difference[0]:
            changers = [p.name for p in passes if p.changes_results]
            note = f"; {', '.join(changers)} change results on purpose" if changers else ""
            raise StageError(
                f"Optimized model differs from the original: output '{t.name}' max abs "
                f"difference {difference[1]:.3g} exceeds rtol=atol={tolerance:g} "
                f"(--verify{note})"
            )
    return f"verify: outputs match (max abs difference {worst:.3g}, rtol=atol={tolerance:g})"


def _matching_outputs(
    original: Model, optimized: Model, values: list[np.ndarray]
) -> list[np.ndarray]:
    """The original's output values in the optimized model's output order: by position when
    both have as many outputs, else by name (``fuse_bcq`` drops metadata outputs)."""
    names = [t.name for t in original.main.outputs]
    if len(names) == len(optimized.main.outputs):
        return values
    by_name = dict(zip(names, values, strict=True))
    missing = [t.name for t in optimized.main.outputs if t.name not in by_name]
    if missing:
        raise StageError(f"--verify: output '{missing[0]}' is not an output of the original")
    return [by_name[t.name] for t in optimized.main.outputs]


def _run(model: Model, inputs: list[np.ndarray], which: str) -> list[np.ndarray]:
    try:
        return Interpreter(model).run(inputs)
    except InterpreterError as e:
        raise StageError(f"--verify cannot run the {which} model: {e.message}") from None


def _difference(want: np.ndarray, got: np.ndarray, tolerance: float) -> tuple[bool, float] | None:
    """(exceeds the tolerance, max abs difference); None when the values are equal."""
    if want.dtype.kind in "fc":
        both_nan = np.isnan(want) & np.isnan(got)
        diff = np.where(both_nan, 0.0, np.abs(want.astype(np.float64) - got))
        if not diff.size or not np.any(diff):
            return None
        worst = float(np.nanmax(diff)) if not np.isnan(diff).all() else float("inf")
        close = np.allclose(got, want, rtol=tolerance, atol=tolerance, equal_nan=True)
        return (not close, worst)
    if np.array_equal(want, got):
        return None
    return (True, float(np.max(np.abs(want.astype(np.float64) - got.astype(np.float64)))))
