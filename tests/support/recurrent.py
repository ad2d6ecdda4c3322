"""A one-LSTM model with the 24 inputs of the TFLite UNIDIRECTIONAL_SEQUENCE_LSTM, for the
kernel tests (tests/unit/interp/test_recurrent.py) and the unroll pass tests."""

from __future__ import annotations

from one_cmds.ir import Model, Tensor
from support.passes import Net, new_options

# fusedActivationFunction values (SIGN_BIT: the LSTM-only activation).
TANH, RELU, RELU_N1_TO_1, RELU6, SIGN_BIT = 4, 1, 2, 3, 5

__all__ = ["RELU", "RELU6", "RELU_N1_TO_1", "SIGN_BIT", "TANH", "lstm_model"]


def lstm_model(
    *,
    batch=2,
    steps=3,
    features=4,
    cells=5,
    time_major=False,
    activation=TANH,
    cell_clip=0.0,
    proj_clip=0.0,
    cifg=False,
    peephole=False,
    projection=0,
    projection_bias=True,
    layer_norm=False,
    seed=0,
) -> Model:
    """One LSTM (weights uniform in [-0.5, 0.5)); ``projection``: the output size, 0 = none."""
    net = Net(seed)
    outputs = projection or cells
    x = net.input("x", [steps, batch, features] if time_major else [batch, steps, features])

    def w(name, *shape, skip=False):
        return None if skip else net.random(name, list(shape), -0.5, 0.5)

    inputs = [
        x,
        *(w(f"w_{k}", cells, features, skip=cifg and k == "i") for k in "ifco"),
        *(w(f"r_{k}", cells, outputs, skip=cifg and k == "i") for k in "ifco"),
        *(w(f"p_{k}", cells, skip=not peephole or (cifg and k == "i")) for k in "ifo"),
        *(w(f"b_{k}", cells, skip=cifg and k == "i") for k in "ifco"),
        w("proj", outputs, cells, skip=not projection),
        w("proj_b", outputs, skip=not (projection and projection_bias)),
        Tensor("h_state", "FLOAT32", (batch, outputs), is_variable=True),
        Tensor("c_state", "FLOAT32", (batch, cells), is_variable=True),
        *(w(f"ln_{k}", cells, skip=not layer_norm or (cifg and k == "i")) for k in "ifco"),
    ]
    options = new_options(
        "UnidirectionalSequenceLSTMOptions",
        fusedActivationFunction=activation,
        cellClip=cell_clip,
        projClip=proj_clip,
        timeMajor=time_major,
    )
    net.outputs(net.op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, options, name="lstm"))
    return net.model()
