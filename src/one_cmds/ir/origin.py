"""Origin algebra: an operator's origin is an immutable set of source ids.

Rules follow shared/spec/circle-format-and-metadata.md §9: a fused operator gets the union of
the origins it replaces, a replacement copies the origin, a removed operator's origin vanishes.
"""

from __future__ import annotations

from collections.abc import Iterable

Origin = frozenset[int]

NO_ORIGIN: Origin = frozenset()


def composite(origins: Iterable[Origin]) -> Origin:
    """Union of the given origins (empty members ignored); an empty list is a programming error."""
    members = list(origins)
    if not members:
        raise ValueError("composite() needs at least one origin")
    return frozenset().union(*members)
