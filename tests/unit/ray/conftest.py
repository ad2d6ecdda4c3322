"""One local Ray cluster (2 CPUs) for the tests of ``onecc --ray``, started once by the test
process that runs them: every Ray test carries ``pytest.mark.xdist_group("ray")`` (the suite
runs with ``--dist loadgroup``), so one xdist worker runs them all."""

from __future__ import annotations

import pytest

RAY_GROUP = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="session")
def ray_cluster():
    """The ``ray`` module, connected to a local cluster of 2 CPUs for the session."""
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'one-cmds[ray]'")
    if not ray.is_initialized():
        ray.init(num_cpus=2, logging_level="ERROR", log_to_driver=False, include_dashboard=False)
    yield ray
    ray.shutdown()
