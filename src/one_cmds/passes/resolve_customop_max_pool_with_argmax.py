"""``resolve_customop_max_pool_with_argmax`` (optimization.md §5.23): Custom(
MaxPoolWithArgmax)(x) becomes an equivalent net of builtin operators, each with the custom
operator's origin.

Conditions: x float32 NHWC of a fully known shape; ``ksize`` and ``strides`` ``[1, h, w, 1]``,
``padding`` SAME or VALID; the values result float32, the indices INT32 or INT64 and every
index below 2**31.

* values: ``MAX_POOL_2D(x)`` with the same window.
* indices (flat, ``(y·W + x)·C + c``, plus ``b·H·W·C`` with ``include_batch_in_index``):
  ``PADV2(x, SAME padding, lowest float32)`` (only when SAME pads; padded positions can
  never win) → ``DEPTHWISE_CONV_2D`` with a one-hot filter and multiplier kh·kw (channel
  ``c·kh·kw + m`` holds window tap m, taps in row-major order) → ``RESHAPE [N, OH, OW, C,
  kh·kw]`` → ``ARG_MAX`` over the taps (int32; the first maximum wins, as in TensorFlow) →
  ``FLOOR_DIV`` / ``FLOOR_MOD`` by kw (tap row and column) → ``row·W·C + column·C`` → ``+``
  the window corners ``((oy·sh − top)·W + ox·sw − left)·C`` → ``+ c (+ b·H·W·C)`` → ``CAST``
  to INT64 when the indices are INT64.

Reference: one branch per channel (Split, then per channel PadV2, Conv2D, ArgMax and float
index arithmetic with rounding adjustments meant for quantized backends), batch 1 only. Its
float arithmetic gives wrong indices: a window one column wide divides by
``kw − 1/(kw·kh) = 1 − 1/kh`` and lands on the next row, and the fractional adjustment
``1/(C+1)`` rounds up to a whole index once ``(y·W + x)·C`` nears 2**20 (e.g. C = 64 from
about 8192 positions on). Here the indices are computed in exact int32 arithmetic, all
channels at once, and any batch size is accepted. Both need finite inputs (the one-hot
filter multiplies every tap, 0·inf is NaN).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..interp.kernels.conv import SAME, VALID, Window
from ..interp.kernels.custom import pool_window
from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import NONE, GraphEditor, new_options
from .toolkit.custom import custom_ops

_LOWEST = np.finfo(np.float32).min
_INT32_TYPE, _INT64_TYPE = 2, 4  # TensorType
_INT32_LIMIT = 2**31


class _Builder:
    """New operators and constants named under ``base``, with the origin of ``op``."""

    def __init__(self, g: GraphEditor, op: Operator, base: str) -> None:
        self.g, self.op, self.base = g, op, base

    def const(self, name: str, value: Any, dtype: Any = np.int32) -> Tensor:
        return self.g.const(f"{self.base}/{name}", np.asarray(value, dtype))

    def __call__(
        self,
        opcode: str,
        inputs: list[Tensor],
        options: Any,
        name: str,
        like: Tensor | None = None,
        declared: tuple[str, tuple[int, ...]] | None = None,
    ) -> Tensor:
        """A new operator's result; ``declared``: the (dtype, shape) of a result whose dtype
        its shape rule leaves open."""
        full = f"{self.base}/{name}"
        outputs = None if declared is None else [self.g.tensor(full, *declared)]
        new = self.g.op(
            opcode, inputs, options, origin=self.op.origin, like=like, outputs=outputs, name=full
        )
        return new.outputs[0]


def _window_filter(kh: int, kw: int, channels: int) -> np.ndarray:
    """The depthwise filter [1, kh, kw, C·kh·kw] copying tap m of channel c to c·kh·kw + m."""
    taps = kh * kw
    one_hot = np.eye(taps, dtype=np.float32).reshape(kh, kw, 1, taps)
    return np.broadcast_to(one_hot, (kh, kw, channels, taps)).reshape(1, kh, kw, -1)


def _indices(
    build: _Builder, x: Tensor, win: Window, padding: int, with_batch: bool, like: Tensor
) -> Tensor:
    """The flat index of each window's maximum (see the module docstring)."""
    n, h, w, c = x.shape
    taps = win.kh * win.kw
    source = x
    pad_h = max((win.out_h - 1) * win.sh + win.kh - h, 0)
    pad_w = max((win.out_w - 1) * win.sw + win.kw - w, 0)
    if padding == SAME and (pad_h or pad_w):
        pads = [[0, 0], [win.top, pad_h - win.top], [win.left, pad_w - win.left], [0, 0]]
        value = build.const("Pad/value", _LOWEST, np.float32)
        source = build("PADV2", [x, build.const("Pad/paddings", pads), value], None, "Pad")
    conv_options = new_options(
        "DepthwiseConv2DOptions",
        padding=VALID,
        strideH=win.sh,
        strideW=win.sw,
        depthMultiplier=taps,
        fusedActivationFunction=NONE,
    )
    filter_ = build.const("Windows/filter", _window_filter(win.kh, win.kw, c), np.float32)
    bias = build.const("Windows/bias", np.zeros(c * taps), np.float32)
    windows = build("DEPTHWISE_CONV_2D", [source, filter_, bias], conv_options, "Windows")
    shape = [n, win.out_h, win.out_w, c, taps]
    grouped = build(
        "RESHAPE",
        [windows, build.const("Taps/shape", shape)],
        new_options("ReshapeOptions", newShape=shape),
        "Taps",
    )
    arg_options = new_options("ArgMaxOptions", outputType=_INT32_TYPE)
    axis = build.const("ArgMax/axis", 4)
    tap = build("ARG_MAX", [grouped, axis], arg_options, "ArgMax", declared=("INT32", shape[:4]))
    width = build.const("Tap/width", win.kw)
    row = build("FLOOR_DIV", [tap, width], None, "Tap/row")
    column = build("FLOOR_MOD", [tap, width], None, "Tap/column")
    mul, add = (new_options(k, fusedActivationFunction=NONE) for k in ("MulOptions", "AddOptions"))
    row_offset = build("MUL", [row, build.const("Tap/row_stride", w * c)], mul, "Tap/row_offset")
    column_offset = build(
        "MUL", [column, build.const("Tap/column_stride", c)], mul, "Tap/column_offset"
    )
    offset = build("ADD", [row_offset, column_offset], add, "Tap/offset")
    oy = np.arange(win.out_h).reshape(1, -1, 1, 1) * win.sh - win.top
    ox = np.arange(win.out_w).reshape(1, 1, -1, 1) * win.sw - win.left
    corners = build.const("Corners", (oy * w + ox) * c)
    plane = build("ADD", [offset, corners], add, "Plane")
    channel = np.arange(c).reshape(1, 1, 1, c)
    if with_batch and n > 1:
        channel = channel + np.arange(n).reshape(n, 1, 1, 1) * (h * w * c)
    index_like = like if like.dtype == "INT32" else None
    index = build("ADD", [plane, build.const("Channels", channel)], add, "Index", index_like)
    if like.dtype == "INT32":
        return index
    cast = new_options("CastOptions", inDataType=_INT32_TYPE, outDataType=_INT64_TYPE)
    return build("CAST", [index], cast, "Cast", like)


@graph_pass("resolve_customop_max_pool_with_argmax")
def resolve_customop_max_pool_with_argmax(g: GraphEditor) -> int:
    rewrites = 0
    for op, attributes in custom_ops(g, "MaxPoolWithArgmax", inputs=1, outputs=2):
        x: Tensor = op.inputs[0]
        values, indices = op.outputs
        window = pool_window(attributes)
        if window is None or x.dtype != "FLOAT32" or len(x.shape) != 4 or None in x.shape:
            continue
        if values.dtype != "FLOAT32" or indices.dtype not in ("INT32", "INT64"):
            continue
        if int(np.prod(x.shape)) >= _INT32_LIMIT:
            continue
        kh, kw, sh, sw, padding = window
        try:
            win = Window.over(x.shape, kh, kw, (sh, sw), padding)
        except ValueError:
            continue
        build = _Builder(g, op, f"{values.name}/Argmax")
        pool_options = new_options(
            "Pool2DOptions",
            padding=padding,
            strideH=sh,
            strideW=sw,
            filterHeight=kh,
            filterWidth=kw,
            fusedActivationFunction=NONE,
        )
        pool = build("MAX_POOL_2D", [x], pool_options, "MaxPool2D", values)
        with_batch = bool(attributes.get("include_batch_in_index", False))
        found = _indices(build, x, win, padding, with_batch, indices)
        g.replace(values, pool)
        g.replace(indices, found)
        rewrites += 1
    return rewrites
