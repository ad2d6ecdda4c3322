"""The converters, one module per family of ONNX operators (importing registers them)."""

from . import (  # noqa: F401
    activations,
    basic,
    conv,
    elementwise,
    indexing,
    matmul,
    norm,
    pool,
    recurrent,
    reduce,
    resize,
    sequences,
    shape_building,
    shape_ops,
    shape_values,
    space,
    trilu,
)
