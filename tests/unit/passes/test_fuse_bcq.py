"""fuse_bcq (reference FuseBCQPass): BCQ information exported as graph outputs.

The un-fused graph is plain TFLite (run in LiteRT), the fused one has circle-only operators
(run in the interpreter). Its outputs lose the metadata and the information bundles: the
interface changes on purpose, and the step's validation (interface taken after the module
phase) accepts it; ``--verify`` matches the remaining outputs by name.
"""

import numpy as np
import pytest

from one_cmds.passes import load_passes
from support.bcq import CLUSTERS, encode
from support.litert import random_inputs
from support.passes import (
    Net,
    fc_options,
    kinds,
    new_options,
    optimized,
    origin_names,
    run_reference,
)

PASS = "fuse_bcq"
START, END = -1999999973, 1999999973


def bundle(net, prefix, code, weight, do_w_x, *, alpha_dtype=np.float32):
    """The seven information outputs of ``weight``, ``code`` from ``encode``."""
    scales, binary, packed, _ = code
    return [
        net.const(f"{prefix}/bcqinfo_do_w_x", [do_w_x], np.bool_),
        net.const(f"{prefix}/bcqinfo_alpha", scales, alpha_dtype),
        net.const(f"{prefix}/bcqinfo_packed_binary_code", binary, np.int32),
        net.const(f"{prefix}/bcqinfo_number_of_clusters", [len(packed)], np.int32),
        net.const(f"{prefix}/bcqinfo_size_of_clusters", packed[:, 1], np.int32),
        net.const(f"{prefix}/bcqinfo_qbits_of_clusters", packed[:, 0], np.int32),
        weight,
    ]


def bcq_model(build, *, version=1, magic=START, seed=0):
    """``build(net, rng) -> (original outputs, bundles)``; returns the exported model."""
    net = Net(seed)
    originals, bundles = build(net, np.random.default_rng(seed))
    metadata = [magic, version, len(originals), 7, END]
    net.outputs(
        net.const("one_compiler/bcqinfo_one_metadata", metadata, np.int32),
        *originals,
        *[t for b in bundles for t in b],
    )
    return net.model()


def fc(net, x, w, b=None, act=0, name="fc"):
    return net.op("FULLY_CONNECTED", [x, w, b], fc_options(act), name=name)


def fc_net(*, x_shape=None, hidden=40, act=1, einsum=False, **bcq):
    def build(net, rng):
        code = encode(rng, CLUSTERS, hidden)
        matrix = code[3]
        weight = matrix.T.reshape(hidden // 4, 4, 9) if einsum else matrix.T
        x = net.input("x", x_shape or (3, hidden))
        y = fc(net, x, net.const("w", matrix), net.random("b", [9]), act)
        return [y], [bundle(net, "w", code, net.const("w_tf", weight), False)]

    return bcq_model(build, **bcq)


def fused(model):
    return optimized(model, PASS, verify=True)


def assert_same_originals(before, after, count=1):
    inputs = random_inputs(before, seed=7)
    want = run_reference(before, inputs)[1 : 1 + count]  # LiteRT
    got = run_reference(after, inputs)  # the interpreter (circle-only operators)
    assert len(got) == count
    for w, g in zip(want, got, strict=True):
        assert w.shape == g.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"x_shape": (2, 3, 40)},
        {"x_shape": (40,)},
        {"act": 3},
        {"hidden": 32},
        {"einsum": True, "hidden": 36},
    ],
    ids=["rank2", "rank3", "rank1", "relu6", "hidden32", "einsum"],
)
def test_fully_connected_becomes_bcq_between_transposes(variant):
    model = fc_net(**variant)
    after = fused(model)
    reshape = ["RESHAPE"] if len(variant.get("x_shape", (3, 40))) != 2 else []
    assert kinds(after) == [*reshape, "TRANSPOSE", "BCQ_FULLY_CONNECTED", "TRANSPOSE"]
    assert all(origin_names(after, op) == {"fc"} for op in after.main.operators)
    assert [t.name for t in after.main.outputs] == ["fc"]
    assert_same_originals(model, after)


def test_weights_as_input_with_do_w_x():
    def build(net, rng):
        code = encode(rng, CLUSTERS, 40)
        w = net.const("w", code[3])
        y = fc(net, w, net.input("y", [4, 40]), act=1)
        return [y], [bundle(net, "w", code, w, True)]

    model = bcq_model(build)
    after = fused(model)
    assert kinds(after) == ["TRANSPOSE", "BCQ_FULLY_CONNECTED"]
    assert all(origin_names(after, op) == {"fc"} for op in after.main.operators)
    assert_same_originals(model, after)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("do_w_x", [True, False])
@pytest.mark.parametrize("indices", [[[1, 2, 0], [8, 3, 3]], [2, 1]])
def test_gather_becomes_bcq_gather(axis, do_w_x, indices):
    def build(net, rng):
        code = encode(rng, CLUSTERS, 45)
        matrix = code[3]
        params = net.const("emb", matrix if do_w_x else matrix.T)
        weight = params if do_w_x else net.const("emb_tf", matrix)
        idx = np.array(indices, np.int32)
        g = net.op(
            "GATHER",
            [params, net.const("idx", idx)],
            new_options("GatherOptions", axis=axis),
            name="gather",
        )
        return [net.op("RELU", [g], name="relu")], [bundle(net, "emb", code, weight, do_w_x)]

    model = bcq_model(build)
    after = fused(model)
    expected = ["BCQ_GATHER"] if do_w_x else ["BCQ_GATHER", "TRANSPOSE"]
    assert kinds(after) == [*expected, "RELU"]
    assert all(origin_names(after, op) == {"gather"} for op in after.main.operators[:-1])
    assert_same_originals(model, after)


def test_two_bundles_and_a_plain_fc():
    def build(net, rng):
        first, second = encode(rng, CLUSTERS, 32), encode(rng, [(2, 4)], 9)
        x = net.input("x", [2, 32])
        a = fc(net, x, net.const("w1", first[3]), name="a")
        b = fc(net, a, net.const("w2", second[3]), name="b")
        c = fc(net, b, net.random("w3", [3, 4]), name="c")
        infos = [
            bundle(net, "w1", first, net.const("w1_tf", first[3].T), False),
            bundle(net, "w2", second, net.const("w2_tf", second[3].T), False),
        ]
        return [c], infos

    model = bcq_model(build)
    after = fused(model)
    assert kinds(after).count("BCQ_FULLY_CONNECTED") == 2
    assert kinds(after)[-1] == "FULLY_CONNECTED"
    assert_same_originals(model, after)


def test_the_pass_counts_and_settles():
    model = fc_net()
    copy = model.copy()
    spec = load_passes()[PASS]
    assert spec.scope == "model"
    assert spec.run(copy, None) == 2  # one fusion, then the information outputs go
    assert spec.run(copy, None) == 0  # no metadata any more


def test_without_metadata_nothing_happens():
    model = fc_net(magic=0)
    after = fused(model)
    assert kinds(after) == ["FULLY_CONNECTED"]
    assert len(after.main.outputs) == len(model.main.outputs)


def test_unknown_version_only_drops_the_information():
    model = fc_net(version=2)
    after = fused(model)
    assert kinds(after) == ["FULLY_CONNECTED"]
    assert [t.name for t in after.main.outputs] == ["fc"]
    assert_same_originals(model, after)


def test_wrong_information_type_fuses_nothing():
    def build(net, rng):
        code = encode(rng, CLUSTERS, 40)
        y = fc(net, net.input("x", [3, 40]), net.const("w", code[3]))
        return [y], [
            bundle(net, "w", code, net.const("w_tf", code[3].T), False, alpha_dtype=np.int32)
        ]

    after = fused(bcq_model(build))
    assert kinds(after) == ["FULLY_CONNECTED"]
    assert [t.name for t in after.main.outputs] == ["fc"]


@pytest.mark.parametrize("problem", ["weight differs", "not transposed", "encodes other rows"])
def test_near_misses_stay(problem):
    def build(net, rng):
        code = encode(rng, CLUSTERS, 40)
        matrix = code[3]
        weight = {"weight differs": matrix.T + 1, "not transposed": matrix}.get(problem, matrix.T)
        if problem == "encodes other rows":
            code = encode(rng, [(1, 8)], 40)
        y = fc(net, net.input("x", [3, 40]), net.const("w", matrix))
        return [y], [bundle(net, "w", code, net.const("w_tf", weight), False)]

    model = bcq_model(build)
    after = fused(model)
    assert kinds(after) == ["FULLY_CONNECTED"]
    assert_same_originals(model, after)
