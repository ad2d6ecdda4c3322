"""The front-door fuzz harness (issue 33): damaged copies of a model file or folder, and a
checker that runs a program in this process on each bad input and holds it to the rules a user
relies on: exit 0 with a model that loads, or exit 255 (2 for an option argparse refuses) with
one line naming the file or option at fault; never a traceback; nothing written but the step
log; the inputs unchanged."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from support.in_process import run_program


def damaged_bytes(data: bytes, seed: int = 0) -> dict[str, bytes]:
    """The usual damage to a file's bytes: empty, truncated to half and to 16 bytes, eight
    bit flips in its first half (where the headers are), random bytes of its length."""
    rng = np.random.default_rng(seed)
    flipped = bytearray(data)
    for at in rng.integers(0, max(1, len(data) // 2), 8):
        flipped[at] ^= 1 << int(rng.integers(0, 8))
    return {
        "empty": b"",
        "half": data[: len(data) // 2],
        "head": data[:16],
        "flipped": bytes(flipped),
        "random": rng.integers(0, 256, len(data), dtype=np.uint8).tobytes(),
    }


def damaged_files(source: os.PathLike[str] | str, folder: Path, seed: int = 0) -> dict[str, Path]:
    """``damaged_bytes`` of the file ``source`` written into ``folder`` under its name with the
    damage as a prefix (``half_model.pt2``); also ``missing_`` (no file) and ``dir_`` (a
    folder of that name)."""
    source, files = Path(source), {}
    for damage, data in damaged_bytes(source.read_bytes(), seed).items():
        files[damage] = folder / f"{damage}_{source.name}"
        files[damage].write_bytes(data)
    files["missing"] = folder / f"missing_{source.name}"
    files["dir"] = folder / f"dir_{source.name}"
    files["dir"].mkdir()
    return files


def without_member(archive: Path, member_suffix: str, out: Path) -> Path:
    """A copy of the zip ``archive`` without its members ending in ``member_suffix``."""
    with zipfile.ZipFile(archive) as zin, zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            if not item.filename.endswith(member_suffix):
                zout.writestr(item, zin.read(item))
    return out


def copied_tree(source: Path, out: Path, change: Callable[[Path], None]) -> Path:
    """A copy of the folder ``source`` at ``out``, then ``change(out)``."""
    shutil.copytree(source, out)
    change(out)
    return out


@dataclass(frozen=True)
class Case:
    """One bad input: the program's arguments and the text its error line must hold (a path
    or an option: what the user must fix). ``may_pass``: exit 0 is right too (a bit flip in a
    weight gives another valid model)."""

    name: str
    args: list[str]
    blame: str
    may_pass: bool = False
    code: int = 255


@dataclass
class Outcome:
    name: str
    code: int
    lines: list[str] = field(default_factory=list)


_NOT_FOUND = re.compile(r"No such file|[Ff]ile not found|Not found given")


def _digests(folder: Path) -> dict[str, str]:
    digests = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            digests[str(path.relative_to(folder))] = hashlib.md5(path.read_bytes()).hexdigest()
    return digests


def check_door(
    program: str,
    cases: Iterable[Case],
    folder: Path,
    capsys,
    loads: Callable[[Path], object],
) -> list[Outcome]:
    """Run ``program`` on each case in ``folder`` (the inputs live there, outputs go to
    ``out.*``) and return what went wrong, one entry per broken rule (empty: all held)."""
    wrong = []
    for case in cases:
        before = _digests(folder)
        code = run_program(program, case.args, folder, dict(os.environ))
        err = capsys.readouterr().err
        after = _digests(folder)
        lines = [line for line in err.splitlines() if line.strip()]
        errors = [line for line in lines if "WARNING" not in line]
        if code == 2 and errors and errors[0].startswith("usage:"):  # argparse's usage first
            errors = errors[next((k for k, e in enumerate(errors) if e.startswith(program)), 0) :]
        written = sorted(set(after) - set(before))
        changed = sorted(n for n in before if after.get(n, before[n]) != before[n])
        problems = []
        if "Traceback" in err:
            problems.append("traceback")
        if changed:
            problems.append(f"inputs changed: {changed}")
        if code == 0:
            if not case.may_pass:
                problems.append("exit 0")
            outputs = [folder / n for n in written if not n.endswith(".log")]
            for output in outputs:
                loads(output)
            for output in outputs:
                output.unlink()
        else:
            if code != case.code:
                problems.append(f"exit {code}, expected {case.code}")
            if len(errors) != 1 or not re.match(rf"({program}|one-[\w-]+): ", errors[0]):
                problems.append(f"{len(errors)} error lines")
            elif case.blame not in errors[0]:
                problems.append(f"does not name {case.blame!r}")
            elif (folder / case.blame).is_file() and _NOT_FOUND.search(errors[0]):
                problems.append("says an existing file is not found")
            left = [n for n in written if not n.endswith(".log")]
            if left:
                problems.append(f"left behind: {left}")
        for name in written:
            (folder / name).unlink(missing_ok=True)
        if problems:
            wrong.append(Outcome(case.name, code, [*problems, *errors[-3:]]))
    return wrong
