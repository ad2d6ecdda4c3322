"""A MobileNetV2-sized float model with random weights, built with the project's graph API.

The real MobileNetV2 layer structure (batch norms folded into the convolutions, or with
``unfused=True`` left as MUL + ADD + RELU6 after each convolution, as exporters other than
the TFLite converter write them): a 3x3
stride-2 convolution, 17 inverted residual blocks (1x1 expand + RELU6, 3x3 depthwise + RELU6,
1x1 project, ADD skip where shapes match), a 1x1 convolution to 1280 channels, a global MEAN,
FULLY_CONNECTED to the classes and SOFTMAX. About 3.5M parameters at width 1.0.
"""

from __future__ import annotations

import numpy as np

from one_cmds.ir import Graph, Model, Operator, Tensor
from one_cmds.ir.schema import new_options

RELU6 = 3
SAME = 0
# (expansion, output channels, repeats, first stride) of the inverted residual stages.
STAGES = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]


def _window_options(name: str, stride: int, activation: int, **fields):
    return new_options(
        name,
        padding=SAME,
        strideH=stride,
        strideW=stride,
        fusedActivationFunction=activation,
        **fields,
    )


class _Builder:
    """Appends operators to a graph, creating weights and output tensors as it goes."""

    def __init__(self, rng: np.random.Generator, unfused: bool) -> None:
        self.rng = rng
        self.unfused = unfused
        self.operators: list[Operator] = []

    def weights(self, name: str, shape: tuple[int, ...], fan_in: int) -> Tensor:
        """He-scaled random weights, so activations keep their range through the network."""
        data = self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        return Tensor.constant(name, data.astype(np.float32))

    def bias(self, name: str, size: int) -> Tensor:
        return Tensor.constant(name, (self.rng.standard_normal(size) * 0.01).astype(np.float32))

    def add_op(self, opcode, inputs, shape, options, name) -> Tensor:
        out = Tensor(name, "FLOAT32", shape)
        self.operators.append(Operator(opcode, inputs, [out], options))
        return out

    def window_op(self, opcode, options_name, x, weights, channels, stride, relu6, name, **more):
        """A convolution of ``x`` with ``weights`` and a new bias (SAME padding), followed by
        RELU6 (fused, or a batch norm MUL + ADD and a RELU6 operator when unfused)."""
        n, h, w, _ = x.shape
        inputs = [x, weights, self.bias(f"{name}/b", channels)]
        shape = (n, -(-h // stride), -(-w // stride), channels)
        fused = RELU6 if relu6 and not self.unfused else 0
        options = _window_options(options_name, stride, fused, **more)
        y = self.add_op(opcode, inputs, shape, options, name)
        if not self.unfused:
            return y
        scale = Tensor.constant(f"{name}/bn_scale", self._channel_values(channels, 1.0))
        shift = Tensor.constant(f"{name}/bn_shift", self._channel_values(channels, 0.0))
        y = self.add_op("MUL", [y, scale], shape, new_options("MulOptions"), f"{name}/bn_mul")
        y = self.add_op("ADD", [y, shift], shape, new_options("AddOptions"), f"{name}/bn_add")
        return self.add_op("RELU6", [y], shape, None, f"{name}/relu6") if relu6 else y

    def _channel_values(self, channels: int, mean: float) -> np.ndarray:
        values = mean + 0.1 * self.rng.standard_normal((1, 1, 1, channels))
        return values.astype(np.float32)

    def conv(self, x: Tensor, channels: int, k: int, stride: int, relu6: bool, name: str):
        c = x.shape[3]
        weights = self.weights(f"{name}/w", (channels, k, k, c), k * k * c)
        return self.window_op("CONV_2D", "Conv2DOptions", x, weights, channels, stride, relu6, name)

    def depthwise(self, x: Tensor, stride: int, name: str) -> Tensor:
        c = x.shape[3]
        weights = self.weights(f"{name}/w", (1, 3, 3, c), 9)
        return self.window_op(
            "DEPTHWISE_CONV_2D",
            "DepthwiseConv2DOptions",
            x,
            weights,
            c,
            stride,
            True,
            name,
            depthMultiplier=1,
        )

    def block(self, x: Tensor, expansion: int, channels: int, stride: int, name: str):
        """Inverted residual block."""
        y = x
        if expansion != 1:
            y = self.conv(y, x.shape[3] * expansion, 1, 1, True, f"{name}/expand")
        y = self.depthwise(y, stride, f"{name}/depthwise")
        y = self.conv(y, channels, 1, 1, False, f"{name}/project")
        if stride == 1 and x.shape[3] == channels:
            y = self.add_op("ADD", [x, y], y.shape, new_options("AddOptions"), f"{name}/add")
        return y


def build_mobilenet_v2(
    size: int = 224, batch: int = 1, classes: int = 1000, seed: int = 0, unfused: bool = False
) -> Model:
    """MobileNetV2 (width 1.0) on ``batch`` x ``size`` x ``size`` x 3 float inputs."""
    b = _Builder(np.random.default_rng(seed), unfused)
    image = Tensor("input", "FLOAT32", (batch, size, size, 3))
    x = b.conv(image, 32, 3, 2, True, "stem")
    index = 0
    for expansion, channels, repeats, stride in STAGES:
        for i in range(repeats):
            index += 1
            x = b.block(x, expansion, channels, stride if i == 0 else 1, f"block{index}")
    x = b.conv(x, 1280, 1, 1, True, "head")
    axes = Tensor.constant("pool/axes", np.array([1, 2], np.int32))
    x = b.add_op(
        "MEAN", [x, axes], (batch, 1280), new_options("ReducerOptions", keepDims=False), "pool"
    )
    fc = [x, b.weights("logits/w", (classes, 1280), 1280), b.bias("logits/b", classes)]
    x = b.add_op(
        "FULLY_CONNECTED", fc, (batch, classes), new_options("FullyConnectedOptions"), "logits"
    )
    probs = b.add_op(
        "SOFTMAX", [x], (batch, classes), new_options("SoftmaxOptions", beta=1.0), "probs"
    )
    return Model(graphs=[Graph("main", [image], [probs], b.operators)])


def parameter_count(model: Model) -> int:
    """Number of constant float elements (weights and biases)."""
    seen = {id(t): t for op in model.main.operators for t in op.inputs if t is not None}
    return sum(t.data.size for t in seen.values() if t.is_constant and t.dtype == "FLOAT32")
