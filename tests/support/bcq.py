"""BCQ constants for the BCQ kernel tests (tests/unit/interp/test_bcq.py) and the fuse_bcq pass
tests: ``encode`` builds them from random signs and scales and computes the matrix they stand
for directly, independently of the kernels' unpacking."""

from __future__ import annotations

import numpy as np

__all__ = ["CLUSTERS", "encode"]

CLUSTERS = [(2, 3), (1, 4), (3, 2)]  # (qbits, size): 9 rows


def encode(rng, clusters, hidden):
    """(scales, binary, clusters, matrix) for clusters [(qbits, size), ...]; the padding bits
    past ``hidden`` are random (they must be ignored)."""
    entries = sum(q * s for q, s in clusters)
    words = -(-hidden // 32)
    bits = rng.integers(0, 2, (entries, words * 32)).astype(np.uint8)
    scales = rng.uniform(0.1, 1.0, entries).astype(np.float32)
    binary = np.packbits(bits, axis=1, bitorder="little").view("<i4").astype(np.int32)
    terms = scales[:, None] * np.where(bits[:, :hidden] == 1, 1.0, -1.0)
    blocks, start = [], 0
    for q, s in clusters:  # bit planes of a cluster: entry start + b * s + r
        blocks.append(terms[start : start + q * s].reshape(q, s, hidden).sum(axis=0))
        start += q * s
    matrix = np.concatenate(blocks).astype(np.float32)
    return scales, binary, np.array(clusters, np.int32), matrix
