"""The Ray cluster of ``onecc --ray`` (the ``ray`` extra): joined or started once per process,
then used by the workflow runner (a task per workflow) and by calibration (record shards on
actors). Without ``--ray`` nothing here runs and Ray is never imported."""

from __future__ import annotations

import os
import socket
import sys
from types import ModuleType

from ..errors import StageError
from ..extras import RAY

ADDRESS_VARIABLE = "ONECC_RAY_ADDRESS"
LOCAL = ""  # no address: start a local cluster
REACH_SECONDS = 3.0  # ray.init waits minutes for an address where nothing listens


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
    _check_reachable(address)
    try:
        ray.init(address=address or None, logging_level="ERROR", log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = address or "a local cluster"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ClusterError(f"Ray cluster {where} cannot be reached: {first}") from None
    return ray


def _check_reachable(address: str) -> None:
    """A ``host:port`` address (``ray://`` too) must accept a connection within
    ``REACH_SECONDS``."""
    host, _, port = address.rpartition("://")[2].rpartition(":")
    if not host or not port.isdigit():
        return  # "auto", "local" or no address: ray.init answers at once
    try:
        socket.create_connection((host.strip("[]"), int(port)), REACH_SECONDS).close()
    except OSError as e:
        reason = e.strerror or str(e) or type(e).__name__
        raise ClusterError(f"Ray cluster {address} cannot be reached: {reason}") from None


def active() -> ModuleType | None:
    """The ``ray`` module when this process is part of a cluster (``connect`` ran, or it is a
    Ray worker), else None; never imports Ray."""
    ray = sys.modules.get("ray")
    return ray if ray is not None and ray.is_initialized() else None


def actor_cpus(ray: ModuleType, wanted: int) -> int:
    """How many one-CPU actors to ask for: ``wanted`` from the driver (Ray starts them as
    CPUs come free); inside a Ray task, where this task holds a CPU, no more than the
    cluster's free CPUs, since actors beyond them would wait for ever."""
    if ray.get_runtime_context().get_task_id() is None:
        return wanted
    return min(wanted, int(ray.available_resources().get("CPU", 0)))
