"""The issue-16 criteria checked per (model, mode), shared by the tests and ``run.py``.

* ``litert_default`` / ``litert_ref``: the quantized model written as .tflite loads and runs
  in LiteRT's default resolver (XNNPACK) / BUILTIN_REF resolver. Checked for uint8/layer and
  int8/channel, the modes meant for LiteRT (uint8 per-channel and int16 CONV_2D weights are
  not LiteRT kernel types).
* ``layer_gap``: for every float tensor, SQNR(fake-quantized simulation) − SQNR(integer run)
  ≤ ``MAX_GAP_DB`` (the integer kernels lose at most that much against what the qparams allow).
* ``file``: the model after each stage (import, resize, O1, the mode's quantization) is
  what a save and a load give back (tests/support/model_equality.py).
* ``mpeir``: the worst output's MPEIR against the float model ≤ ``MPEIR_BOUND[mode]``, for the
  project's integer run and for LiteRT's default resolver where it runs the model.

The bounds: 8-bit modes 0.1 (a tenth of the output's range at the worst element, averaged over
records: generous, it catches broken graphs rather than ranking rounding), int16 0.01.
"""

from __future__ import annotations

import os

from .download import Entry, select
from .run import ModeResult

MAX_GAP_DB = 3.0
MPEIR_BOUND = {"uint8/layer": 0.1, "uint8/channel": 0.1, "int8/channel": 0.1, "int16/channel": 0.01}
LITERT_MODES = ("uint8/layer", "int8/channel")
LITERT_CHECKS = ("litert_default", "litert_ref")
ALL_CHECKS = (*LITERT_CHECKS, "layer_gap", "mpeir", "file")


def enabled() -> bool:
    """False when ``ONE_CMDS_CORPUS=0``."""
    return os.environ.get("ONE_CMDS_CORPUS", "1") != "0"


def entries() -> list[Entry]:
    """The tested models: the manifest's non-large ones (all with ``ONE_CMDS_CORPUS_LARGE=1``;
    only the comma-separated ids of ``ONE_CMDS_CORPUS_MODELS`` when set)."""
    large = os.environ.get("ONE_CMDS_CORPUS_LARGE", "0") == "1"
    return select(os.environ.get("ONE_CMDS_CORPUS_MODELS") or None, include_large=large)


def checks_for(mode: str) -> tuple[str, ...]:
    """The checks that apply to ``mode``."""
    return ALL_CHECKS if mode in LITERT_MODES else ("layer_gap", "mpeir", "file")


def failure(r: ModeResult, check: str) -> str | None:
    """Why ``r`` fails ``check`` (a short, stable message), or None when it passes."""
    if r.error:
        return r.error
    if check == "file":
        return "; ".join(r.file_differences[:2]) or None
    if check in LITERT_CHECKS:
        status = r.litert.get(check.removeprefix("litert_"), "not run")
        return None if status == "ok" else f"LiteRT {check.removeprefix('litert_')}: {status}"
    if r.interp_error:
        return f"project interpreter: {r.interp_error}"
    if check == "layer_gap" and r.sim_error:
        return f"fake-quantized simulation: {r.sim_error}"
    if check == "layer_gap":
        gap = r.worst_gap_db
        if gap is None or gap <= MAX_GAP_DB:
            return None
        return f"layer gap {gap:.1f} dB > {MAX_GAP_DB} dB at {r.worst_gap_tensor}"
    if check == "mpeir":
        bound = MPEIR_BOUND[r.mode]
        worst = {"interpreter": r.mpeir_interp}
        if "default" in r.mpeir_litert:
            worst["LiteRT"] = r.mpeir_litert["default"]
        bad = [f"{k} {v:.3g}" for k, v in worst.items() if v is not None and v > bound]
        return f"MPEIR {', '.join(bad)} > {bound}" if bad else None
    raise KeyError(check)


def first_line(message: str, limit: int = 160) -> str:
    """A failure message shortened for an xfail reason."""
    return message if len(message) <= limit else message[: limit - 3] + "..."
