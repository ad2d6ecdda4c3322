"""Calibration on a Ray cluster (``onecc --ray`` with ``calibration_workers=N``): N actors of
one CPU each prepare the model once (``prepare(payload)``, the payload shipped once with
``ray.put``); the driver reads the records once and deals them out in chunks, round-robin,
each chunk shipped with ``ray.put``; an actor runs its chunks in the order given
(``work(state, first, records)``, ``first`` the number of the chunk's first record) and the
results come back in record order.

What runs a record is the caller's (:mod:`one_cmds.quant.calibration` passes its own
functions, which Ray pickles by name): this module knows Ray, not calibration. Ray is never
imported here: the caller passes the module of a connected process
(:func:`one_cmds.engines.ray_cluster.active`).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any, TypeVar

from ..errors import OneCmdsError
from .ray_cluster import ClusterError

CHUNK = 16  # records per actor call: the reference interpreter's batch
DRAIN_SECONDS = 10.0  # a killed actor's pending task fails at once
AHEAD = 2  # chunks queued per actor, so reading stays just ahead of the actors

State = TypeVar("State")
Result = TypeVar("Result")


class _Shard:
    """An actor: the state ``prepare`` makes of the payload, and ``work`` run on it."""

    def __init__(
        self,
        prepare: Callable[[Any], Any],
        work: Callable[[Any, int, list[Any]], Any],
        payload: Any,
    ) -> None:
        self._work = work
        self._state: Any = None
        self._error: OneCmdsError | None = None
        try:
            self._state = prepare(payload)
        except OneCmdsError as e:  # reported by the first call, as the caller's own error
            self._error = e

    def run(self, first: int, records: list[Any]) -> Any:
        if self._error is not None:
            raise self._error
        return self._work(self._state, first, records)


def sharded(
    ray: ModuleType,
    prepare: Callable[[Any], State],
    work: Callable[[State, int, list[Any]], Result],
    payload: Any,
    records: Iterable[Any],
    workers: int,
) -> list[Result]:
    """``work``'s results for the chunks of ``records``, in record order, from ``workers``
    actors holding ``prepare(payload)``; an error of the project's hierarchy in an actor is
    raised here as it is."""
    actor = ray.remote(num_cpus=1)(_Shard)
    shipped = ray.put(payload)
    actors = [actor.remote(prepare, work, shipped) for _ in range(workers)]
    pending: deque[Any] = deque()
    results: list[Result] = []
    records = iter(records)
    first = 0
    try:
        for n in itertools.count():
            chunk = list(itertools.islice(records, CHUNK))
            if not chunk:
                break
            pending.append(actors[n % workers].run.remote(first, ray.put(chunk)))
            first += len(chunk)
            if len(pending) > AHEAD * workers:
                results.append(_result(ray, pending.popleft()))
        results.extend(_result(ray, ref) for ref in pending)
    except BaseException:
        _stop(ray, actors)
        _fetch_quietly(ray, pending)
        raise
    _stop(ray, actors)
    return results


def _stop(ray: ModuleType, actors: list[Any]) -> None:
    for each in actors:
        ray.kill(each)


def _fetch_quietly(ray: ModuleType, pending: deque[Any]) -> None:
    """After a failure (the actors stopped), the tasks still pending are fetched: an error
    Ray holds for a result nobody fetched is printed later as an "Unhandled error", in the
    middle of whatever the process does next."""
    for ref in pending:
        try:
            ray.get(ref, timeout=DRAIN_SECONDS)
        except Exception:  # the failure being raised already says what went wrong
            continue


def _result(ray: ModuleType, ref: Any) -> Any:
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as e:
        if isinstance(e.cause, OneCmdsError):
            raise e.cause from None
        raise
    except ray.exceptions.RayActorError as e:
        lines = [line for line in str(e).splitlines() if line.strip()]
        raise ClusterError(f"a calibration actor stopped: {lines[0] if lines else e}") from None
