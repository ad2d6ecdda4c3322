"""The ``corpus`` marker and the per-(model, mode) results shared by the corpus tests.

Each (model, mode) is quantized and measured once per test session: the first worker that
needs it computes it under a per-(model, mode) file lock and writes the result as JSON into
``corpus-results`` of the session's base temporary directory, where the other worker finds
it (``run.py --load DIR --expected`` reads them back). ``ONE_CMDS_CORPUS=0`` skips every
corpus test; ``ONE_CMDS_CORPUS_LARGE=1`` adds the models the manifest marks large;
``ONE_CMDS_CORPUS_MODELS=a,b`` runs only those.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from corpus.checks import enabled
from corpus.download import CorpusUnavailable, Entry
from corpus.run import ModeResult, Prepared, prepare, prepare_failed, run_mode


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "corpus: real third-party models through the quantizer (ONE_CMDS_CORPUS=0 skips)"
    )


def _session_dir(factory: pytest.TempPathFactory) -> Path:
    """``corpus-results`` in the session's base temporary directory: under xdist the parent
    of the worker's own (``.../popen-gwN``), shared by the workers and cleaned up by pytest's
    retention of old base directories."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    path = base / "corpus-results"
    path.mkdir(exist_ok=True)
    return path


class Results:
    """Per-(model, mode) results of this session, computed once across workers."""

    def __init__(self, workdir: Path, shared: Path) -> None:
        self.workdir = workdir
        self.shared = shared
        self._prepared: tuple[str, Prepared] | None = None  # the last model only (memory)

    def prepared(self, entry: Entry) -> Prepared:
        """``entry`` loaded, resized and optimized, with its records (the last one kept)."""
        if self._prepared is None or self._prepared[0] != entry.id:
            self._prepared = None
            self._prepared = (entry.id, prepare(entry, self.workdir))
        return self._prepared[1]

    def get(self, entry: Entry, mode: str) -> ModeResult:
        key = f"{entry.id}.{mode.replace('/', '_')}"
        target = self.shared / f"{key}.json"
        with (self.shared / f"{key}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if target.exists():
                return ModeResult(**json.loads(target.read_text()))
            failed = self.shared / f"{entry.id}.unavailable"
            if failed.exists():
                raise CorpusUnavailable(failed.read_text())
            try:
                result = run_mode(self.prepared(entry), mode, self.workdir)
            except CorpusUnavailable as e:
                failed.write_text(str(e))
                raise
            except Exception as e:  # the float model does not load, resize or optimize
                result = prepare_failed(entry, mode, e)
            tmp = target.with_suffix(".tmp")
            tmp.write_text(json.dumps(dataclasses.asdict(result)))
            os.replace(tmp, target)
            return result


@pytest.fixture(scope="session")
def corpus_results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Results]:
    yield Results(tmp_path_factory.mktemp("corpus"), _session_dir(tmp_path_factory))


@pytest.fixture
def corpus_result(corpus_results: Results) -> Callable[[Entry, str], ModeResult]:
    def get(entry: Entry, mode: str) -> ModeResult:
        if not enabled():
            pytest.skip("ONE_CMDS_CORPUS=0")
        try:
            return corpus_results.get(entry, mode)
        except CorpusUnavailable as e:
            pytest.skip(f"corpus model unavailable: {e}")

    return get
