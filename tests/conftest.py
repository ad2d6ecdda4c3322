import os
import sys
import zlib

import numpy as np
import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(TESTS, "fixtures")
sys.path.insert(0, TESTS)


@pytest.fixture
def fixture_path():
    """Path of a bundled fixture model by file name."""

    def path(name: str) -> str:
        return os.path.join(FIXTURES, name)

    return path


@pytest.fixture(autouse=True)
def _data_of_the_test_alone(request):
    """A test's random data depends on the test alone, not on which tests ran before it in
    its worker (pytest-xdist deals tests to workers differently from run to run): the shared
    ``RNG`` of its module, and of the helpers that keep one, starts anew for every test, seeded
    from the test's id."""
    from support import shape_helpers

    seed = zlib.crc32(request.node.nodeid.encode())
    for module in (request.module, shape_helpers):
        if isinstance(getattr(module, "RNG", None), np.random.Generator):
            module.RNG = np.random.default_rng(seed)
