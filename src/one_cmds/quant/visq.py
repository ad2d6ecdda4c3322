"""VISQ error maps (reference ``compiler/visq``): a JSON file naming, per tensor, the error a
quantized model makes against the float model. ``ampq``'s bisection (``bisection_type=auto``)
reads one to choose which half of the model gets int16 (ampq.py).

Format: ``{"meta": {"model": <float model file name>, "metric": <metric>, "colorscheme":
[{"b": begin, "e": end, "c": "#rrggbb"}, ...]}, "error": [{<tensor name>: <error>, ...}]}``;
``error`` holds one map per subgraph (the reference writes the main one only), floats are
rounded to 4 decimals. The colour scheme splits [min, max] of the per-record errors into the 9
equal slots of ColorBrewer's YlOrRd-9.

Metric written here: **TAE** (total absolute error), per operator output of the float model,
the mean over the records of ``Σ|float − dequantized|`` over the tensor's elements; the
quantized model runs with the interpreter's integer kernels (layer_errors.py), the reference
runs its fake-quantized form. Graph inputs are not listed (the reference dumps operator
outputs only).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..formats.files import write_atomically
from ..ir import Model
from .data import Record
from .errors import QuantizeError
from .layer_errors import layer_errors

METRIC = "TAE"
# ColorBrewer YlOrRd, 9 classes: low errors light yellow, high ones dark red.
YLORRD9 = (
    "#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c", "#bd0026",
    "#800026",
)  # fmt: skip
DIGITS = 4


def tae_map(
    original: Model,
    quantized: Model,
    data: Iterable[Record],
    engine: str = "auto",
    note: Callable[[str], None] | None = None,
) -> tuple[dict[str, float], float, float]:
    """The TAE of each operator output of ``original`` that ``quantized`` has, over ``data``;
    with the least and the largest TAE of one tensor on one record."""
    rows = [r for r in layer_errors(original, quantized, data, engine, note) if r.index is not None]
    rows.sort(key=lambda r: r.index)  # graph order
    errors = {r.name: sum(r.totals) / len(r.totals) for r in rows if r.totals}
    totals = [t for r in rows for t in r.totals]
    return errors, min(totals, default=0.0), max(totals, default=0.0)


def visq_json(model_name: str, errors: Mapping[str, float], low: float, high: float) -> dict:
    """The VISQ document of ``errors`` (metric TAE); ``low``/``high`` bound the colour scheme
    (an empty range is widened to one unit: the reference stops there)."""
    if not high > low:
        high = low + 1.0
    step = (high - low) / len(YLORRD9)
    scheme = [
        {"b": _round(low + i * step), "e": _round(low + (i + 1) * step), "c": color}
        for i, color in enumerate(YLORRD9)
    ]
    error = {name: _round(value) for name, value in errors.items()}
    return {
        "meta": {"model": model_name, "metric": METRIC, "colorscheme": scheme},
        "error": [error],
    }


def write_visq(path: str, document: dict) -> None:
    """Write a VISQ document to ``path`` atomically."""
    text = json.dumps(document).encode("utf-8")
    write_atomically(path, lambda output: output.write(text))


def read_visq(path: str) -> dict[str, float]:
    """The error of each tensor of the main subgraph in the VISQ file ``path``."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except OSError as e:
        raise QuantizeError(f"ampq_bisection_visq: cannot read {path} ({e.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise QuantizeError(f"ampq_bisection_visq: {path} is not a JSON file") from None
    maps = document.get("error") if isinstance(document, dict) else None
    if not isinstance(maps, list) or not maps or not isinstance(maps[0], dict):
        raise QuantizeError(f"ampq_bisection_visq: {path} has no 'error' section of VISQ data")
    errors = {}
    for name, value in maps[0].items():
        number = _number(value)
        if number is None:
            raise QuantizeError(
                f"ampq_bisection_visq: {path}: the error of '{name}' is not a number ({value!r})"
            )
        errors[str(name)] = number
    return errors


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _round(value: float) -> float:
    return round(float(value), DIGITS)
