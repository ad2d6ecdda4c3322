import pytest

from one_cmds import pipeline
from one_cmds.pipeline import run


@pytest.fixture
def runs(monkeypatch, tmp_path):
    """Record the plans handed to ``pipeline.run_plan`` instead of running them."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ONECC_OPTIMIZATION_PATH", raising=False)
    calls: list[tuple[pipeline.Plan, bool]] = []

    def run_plan(plan, *, verbose=False):
        calls.append((plan, verbose))
        return []

    monkeypatch.setattr(run, "run_plan", run_plan)
    return calls
