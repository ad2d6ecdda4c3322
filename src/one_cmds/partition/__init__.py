"""The one-partition engine: split subgraph 0 of a model into parts by backend
(backends-and-packaging.md §5).

``partfile`` reads the ``.part`` file, ``groups`` forms the parts (seed, merge, cleanup),
``models`` turns a part into a model, ``connection`` writes ``conn.json``/``conn.ini`` and
``partitioner`` ties them together.
"""

from .partitioner import partition

__all__ = ["partition"]
