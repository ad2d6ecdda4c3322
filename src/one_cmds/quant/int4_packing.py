"""INT4 tensor data (quantization.md §21.3): two elements per byte, element 2k in the low
nibble and 2k+1 in the high one, two's complement; a last odd high nibble is 0."""

from __future__ import annotations

import numpy as np


def pack_int4(values: np.ndarray) -> np.ndarray:
    """The ⌈n/2⌉ bytes of the n int4 ``values`` (in [-8, 7]) in C order."""
    nibbles = np.asarray(values, np.int8).reshape(-1).view(np.uint8) & 0x0F
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    pairs = nibbles.reshape(-1, 2)
    return (pairs[:, 0] | (pairs[:, 1] << 4)).astype(np.uint8)
