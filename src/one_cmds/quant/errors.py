"""The quantizer's errors."""

from __future__ import annotations

from ..errors import StageError


class QuantizeError(StageError):
    """A quantization step cannot go on (bad data, options or model)."""
