"""The Ray cluster of ``onecc --ray`` (the ``ray`` extra): joined or started once per process,
then used by the workflow runner (a task per workflow) and by calibration (record shards on
actors). Without ``--ray`` nothing here runs and Ray is never imported."""

from __future__ import annotations

import os
import sys
from types import ModuleType

from ..errors import StageError
from ..extras import RAY

ADDRESS_VARIABLE = "ONECC_RAY_ADDRESS"
LOCAL = ""  # no address: start a local cluster


class ClusterError(StageError):
    """The cluster named by ``--ray`` or ``ONECC_RAY_ADDRESS`` cannot be reached."""


def requested_address(flag: str | None) -> str | None:
    """The address ``onecc`` was asked to use: ``--ray [ADDRESS]`` (``LOCAL`` without one),
    else ``ONECC_RAY_ADDRESS``; None when Ray is not asked for."""
    if flag is not None:
        return flag
    return os.environ.get(ADDRESS_VARIABLE)


def connect(address: str) -> ModuleType:
    """Join the cluster at ``address`` (``auto``: the running one; ``host:port``), or start a
    local one for ``LOCAL``; Ray missing or the cluster unreachable is one line."""
    ray = RAY.load()
    if ray.is_initialized():
        return ray
    try:
        ray.init(address=address or None, logging_level="ERROR", log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = address or "a local cluster"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ClusterError(f"Ray cluster {where} cannot be reached: {first}") from None
    return ray


def active() -> ModuleType | None:
    """The ``ray`` module when this process is part of a cluster (``connect`` ran, or it is a
    Ray worker), else None; never imports Ray."""
    ray = sys.modules.get("ray")
    return ray if ray is not None and ray.is_initialized() else None
