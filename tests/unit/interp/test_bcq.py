"""BCQ_FULLY_CONNECTED and BCQ_GATHER (circle-only; no LiteRT kernel exists).

The constants come from ``support.bcq.encode``, which also computes the matrix they stand
for; the FC kernel is also checked against LiteRT's FULLY_CONNECTED on that matrix.
"""

import numpy as np
import pytest

from one_cmds.interp import InterpreterError
from support.bcq import CLUSTERS, encode
from support.litert import BUILTIN, run_model
from support.single_op import const, new_options, op_model, run_ours


def fc_options(hidden, act=0):
    return new_options(
        "BCQFullyConnectedOptions", weightsHiddenSize=hidden, fusedActivationFunction=act
    )


@pytest.mark.parametrize("hidden", [32, 40, 7, 70])
@pytest.mark.parametrize("act", [0, 1, 3])
def test_fully_connected_matches_litert_on_the_encoded_matrix(hidden, act):
    rng = np.random.default_rng(hidden)
    scales, binary, clusters, matrix = encode(rng, CLUSTERS, hidden)
    x = rng.standard_normal((3, hidden)).astype(np.float32)
    bias = rng.standard_normal(9).astype(np.float32)
    fc = op_model(
        "FULLY_CONNECTED",
        [x, const(matrix), const(bias)],
        new_options("FullyConnectedOptions", fusedActivationFunction=act),
    )
    (want,) = run_model(fc, [x], BUILTIN)
    operands = [x.T.copy(), const(scales), const(binary), const(bias), const(clusters)]
    (got,) = run_ours("BCQ_FULLY_CONNECTED", operands, fc_options(hidden, act))
    assert got.shape == (9, 3)
    np.testing.assert_allclose(got.T, want, rtol=1e-5, atol=1e-5)


def test_fully_connected_without_bias():
    rng = np.random.default_rng(1)
    scales, binary, clusters, matrix = encode(rng, [(1, 5)], 32)
    x = rng.standard_normal((32, 2)).astype(np.float32)
    operands = [x, const(scales), const(binary), None, const(clusters)]
    (got,) = run_ours("BCQ_FULLY_CONNECTED", operands, fc_options(32))
    np.testing.assert_allclose(got, matrix @ x, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("indices", [[3, 0, 3], [[1, 2], [0, 5]], 4])
def test_gather(axis, indices):
    rng = np.random.default_rng(2)
    scales, binary, clusters, matrix = encode(rng, CLUSTERS, 45)
    idx = np.array(indices, np.int32)
    options = new_options("BCQGatherOptions", inputHiddenSize=45, axis=axis)
    (got,) = run_ours("BCQ_GATHER", [const(scales), const(binary), idx, const(clusters)], options)
    np.testing.assert_allclose(got, np.take(matrix, idx, axis=axis), rtol=1e-6, atol=1e-6)


def test_gather_refuses_an_index_out_of_range():
    rng = np.random.default_rng(3)
    scales, binary, clusters, _ = encode(rng, CLUSTERS, 32)
    options = new_options("BCQGatherOptions", inputHiddenSize=32, axis=0)
    operands = [const(scales), const(binary), np.array([9], np.int32), const(clusters)]
    with pytest.raises(InterpreterError, match="out of range"):
        run_ours("BCQ_GATHER", operands, options)


def test_inconsistent_constants_are_refused():
    rng = np.random.default_rng(4)
    scales, binary, clusters, _ = encode(rng, CLUSTERS, 32)
    x = rng.standard_normal((64, 1)).astype(np.float32)
    operands = [x, const(scales), const(binary), None, const(clusters)]
    with pytest.raises(InterpreterError, match="binary codes of shape"):
        run_ours("BCQ_FULLY_CONNECTED", operands, fc_options(64))
