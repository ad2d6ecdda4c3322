"""Benchmark models written to files by a child process, so the measuring process never
imports the project (its start-up and peak memory stay its own)."""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def save_mobilenet_v2(path: str) -> None:
    """benchmarks/mobilenet_v2.py's model saved at ``path``."""
    code = (
        f"import sys; sys.path.insert(0, {HERE!r}); import one_cmds; "
        "from mobilenet_v2 import build_mobilenet_v2; "
        f"one_cmds.save(build_mobilenet_v2(), {path!r})"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
