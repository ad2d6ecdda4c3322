import pytest

from support.tf_fixtures import tf_fixtures


@pytest.fixture(scope="session")
def tf_files():
    """The folder of the generated TensorFlow fixtures (skips without TensorFlow)."""
    return tf_fixtures()
