"""Make ``tensorflow`` unimportable in this run (importlib.util.find_spec then finds nothing)."""

import sys

sys.modules["tensorflow"] = None  # type: ignore[assignment]
