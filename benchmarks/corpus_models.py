"""The corpus models a benchmark runs: those of one format, each in a work folder of its own."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from corpus.download import Entry, select_format


def model_folders(
    fmt: str, models: str | None, include_large: bool, root: Path
) -> Iterator[tuple[str, Entry, Path]]:
    """Each selected entry of format ``fmt`` with a new folder under ``root`` and its
    ``[i/n]`` progress label; first prints how many there are."""
    entries, skipped = select_format(fmt, models, include_large)
    print(f"{len(entries)} .{fmt} models ({skipped} others skipped)")
    for i, entry in enumerate(entries):
        (work := root / entry.id).mkdir()
        yield f"[{i + 1}/{len(entries)}]", entry, work
