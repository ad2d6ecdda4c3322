"""Which engine runs a model (``engine=auto|litert|reference``): ``auto`` takes LiteRT when
LiteRT runs every operator, type and quantization of the model (the static table of
:mod:`.litert_coverage`, then LiteRT's own preparation of the model), else the reference
interpreter; the choice, and for a fallback its reason, go to ``note`` (the step log, and the
console with ``-V``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import StageError
from ..ir import Model, Tensor
from .litert import LiteRTError, LiteRTRunner
from .litert_coverage import litert_gaps

ENGINES = ("auto", "litert", "reference")


def _ignore(line: str) -> None:
    return None


def litert_runner(
    model: Model,
    engine: str,
    extra: Sequence[Tensor] = (),
    note: Callable[[str], None] | None = None,
    threads: int | None = None,
    slots: int = 1,
    owned: bool = False,
) -> LiteRTRunner | None:
    """A LiteRT runner of ``model`` when ``engine`` selects LiteRT, else None (the reference
    interpreter runs it). ``engine="litert"`` on a model LiteRT cannot run is an error.
    ``threads``, ``slots`` and ``owned``: as :class:`LiteRTRunner`'s."""
    note = note or _ignore
    if engine not in ENGINES:
        raise StageError(f"Unknown engine: {engine} (choose from {', '.join(ENGINES)})")
    if engine == "reference":
        note("engine: reference")
        return None
    gaps = litert_gaps(model)
    try:
        if gaps:
            raise LiteRTError(f"LiteRT cannot run the model: {gaps[0]}")
        runner = LiteRTRunner(model, extra, threads=threads, slots=slots, owned=owned)
    except LiteRTError as e:
        if engine == "litert":
            raise
        note(f"engine: reference ({e.message})")
        return None
    note("engine: litert")
    return runner
