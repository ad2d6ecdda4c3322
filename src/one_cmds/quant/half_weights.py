"""16-bit weights widened before full quantization: an import keeps float16 and bfloat16
weights as FLOAT16 constants behind a DEQUANTIZE (onnx-import.md, as the TFLite converter
writes float16 models); the calibrated modes compute ranges and integer weights from float32
constants, so each such DEQUANTIZE becomes the FLOAT32 constant it computes (exact: every
float16 value is a float32 value). The reference asks for ``one-optimize --fold_dequantize``
first; a model that quantized before its import kept 16-bit weights must still quantize."""

from __future__ import annotations

import numpy as np

from ..ir import Model
from ..passes.toolkit import GraphEditor
from .weights_only import is_half_constant


def widen_half_weights(model: Model) -> int:
    """Fold every DEQUANTIZE of a FLOAT16 constant in ``model``; how many were folded."""
    folded = 0
    for index in range(len(model.graphs)):
        editor = GraphEditor(model, index)
        for op in editor.ops("DEQUANTIZE"):
            half, out = op.inputs[0], op.outputs[0]
            if not is_half_constant(half):
                continue
            editor.replace(out, editor.const(out.name, half.data.astype(np.float32), "FLOAT32"))
            folded += 1
        editor.commit()
    return folded
