"""Fixtures made at test time by a committed generator script, cached per library version
and generator (tf-and-pytorch-import.md §6.2): ``<cache>/fixtures/<name>-<version>-<digest>``,
made once, in a temporary folder renamed into place (several test processes may race)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

CACHE = Path(os.environ.get("ONE_CMDS_CACHE", Path.home() / ".cache" / "one-cmds"))


def generated(name: str, version: str, generator: Path, sources: Sequence[Path] = ()) -> Path:
    """The folder ``generator <folder>`` fills; ``sources`` are other files it reads."""
    text = b"".join(p.read_bytes() for p in (generator, *sources))
    folder = CACHE / "fixtures" / f"{name}-{version}-{hashlib.md5(text).hexdigest()[:12]}"
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=folder.parent))
        subprocess.run([sys.executable, str(generator), str(work)], check=True)
        try:
            work.rename(folder)
        except OSError:  # another test process made it first
            shutil.rmtree(work)
    return folder
