import os
import sys

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
