"""The TensorFlow fixtures of one-import-tf and one-import-bcq (tests/fixtures/tf/gen_tf.py),
made at test time into a cache keyed by the TensorFlow version (tf-and-pytorch-import.md
§6.2): GraphDefs, SavedModels and Keras files are tied to the release that wrote them."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from support.generated import generated

TESTS = Path(__file__).resolve().parents[1]
GENERATOR = TESTS / "fixtures" / "tf" / "gen_tf.py"
MISSING = "TensorFlow is not installed: pip install 'one-cmds[tf]'"


def tf_version() -> str:
    """The installed TensorFlow's version, read without importing it; the calling test is
    skipped with the extras message when it is not installed."""
    for distribution in ("tensorflow", "tensorflow-cpu"):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    pytest.skip(MISSING)


def tf_fixtures() -> Path:
    """The folder of the generated files (made once per TensorFlow version and generator;
    the generator builds the BCQ constants with tests/support/bcq.py)."""
    return generated("tf", tf_version(), GENERATOR, [TESTS / "support" / "bcq.py"])
