"""The optimize stage: phase order, the restart strategy, validation, --verify, the rewrite
report and the Python call one_cmds.optimize (optimization.md §1, §4, §6)."""

import numpy as np
import pytest

import one_cmds
from one_cmds.errors import ConfigError, StageError
from one_cmds.passes import PASSES, PassSpec, load_passes
from one_cmds.passes.toolkit import GraphEditor
from one_cmds.report import console
from support.passes import Net, kinds, new_options


def relu_chain(n=3):
    net = Net()
    t = net.input("x", [1, 4])
    for i in range(n):
        t = net.op("RELU", [t], name=f"r{i}")
    net.outputs(t)
    return net.model()


@pytest.fixture
def fake_passes(monkeypatch):
    """Replace registered passes by test doubles: ``install(name, fn, **flags)``."""
    load_passes()

    def install(name, fn, **flags):
        monkeypatch.setitem(PASSES, name, PassSpec(name, fn, "graph", **flags))

    return install


def test_passes_run_in_the_fixed_order_and_restart_after_a_change(fake_passes):
    calls = []
    changed = {"n": 0}

    def early(g):
        calls.append("fold_cast")
        return 0

    def late(g):
        calls.append("remove_redundant_reshape")
        if changed["n"] == 0:
            changed["n"] = 1
            return 1
        return 0

    fake_passes("fold_cast", early)
    fake_passes("remove_redundant_reshape", late)
    # given in the opposite order: the fixed order of §4.1 decides
    one_cmds.optimize(relu_chain(), ["remove_redundant_reshape", "fold_cast"])
    assert calls == ["fold_cast", "remove_redundant_reshape"] * 2


def test_a_pass_that_never_settles_is_reported(fake_passes):
    fake_passes("fold_cast", lambda g: 1)
    with pytest.raises(StageError, match=r"optimization did not settle.*fold_cast"):
        one_cmds.optimize(relu_chain(), ["fold_cast"])


def test_rewrites_are_counted_and_reported(fake_passes):
    def drop_relus(g: GraphEditor):
        n = 0
        for op in g.ops("RELU"):
            g.replace(op.outputs[0], op.inputs[0])
            n += 1
        return n

    fake_passes("fold_cast", drop_relus)
    with console.capture() as lines:
        after = one_cmds.optimize(relu_chain(3), ["fold_cast"])
    assert kinds(after) == []
    assert "fold_cast: 3 rewrites" in lines


def break_structure(g: GraphEditor):
    """Makes the first operator read a tensor nobody produces."""
    if g.graph.operators[0].inputs[0].name == "ghost":
        return 0
    g.set_input(g.graph.operators[0], 0, g.tensor("ghost", "FLOAT32", (1, 4)))
    return 1


def test_an_invalid_graph_stops_the_step(fake_passes):
    fake_passes("fold_cast", break_structure)
    with pytest.raises(StageError) as e:
        one_cmds.optimize(relu_chain(), ["fold_cast"])
    assert str(e.value).startswith("Optimized graph is invalid (graph 0: operator 0 (RELU)")


def test_disable_validation_turns_it_into_a_warning(fake_passes, capsys):
    fake_passes("fold_cast", break_structure)
    one_cmds.optimize(relu_chain(), ["fold_cast"], disable_validation=True)
    assert "WARNING: Optimized graph is invalid (graph 0:" in capsys.readouterr().err
    one_cmds.optimize(relu_chain(), ["fold_cast"], disable_validation=True, mute_warnings=True)
    assert "WARNING" not in capsys.readouterr().err


def test_an_interface_change_is_invalid(fake_passes):
    def cast_output(g: GraphEditor):
        out = g.graph.outputs[0]
        if out.dtype == "INT32":
            return 0
        cast = g.op("CAST", [out], origin=frozenset(), like=g.tensor("y", "INT32", out.shape))
        g.replace(out, cast.outputs[0], keep=[cast])
        return 1

    fake_passes("fold_cast", cast_output)
    with pytest.raises(StageError, match="is INT32, FLOAT32 before optimization"):
        one_cmds.optimize(relu_chain(), ["fold_cast"])


def scale_constant(factor):
    def rewrite(g: GraphEditor):
        for op in g.ops("MUL"):
            c = op.inputs[1]
            if c.name.startswith("scaled"):
                return 0
            g.set_input(op, 1, g.const("scaled", c.data * factor))
            return 1
        return 0

    return rewrite


def mul_model():
    net = Net()
    x = net.input("x", [2, 8])
    net.outputs(net.op("MUL", [x, net.const("c", np.full(8, 3.0))], new_options("MulOptions")))
    return net.model()


@pytest.mark.parametrize(
    ("factor", "exact", "fails"),
    [(1.0, True, False), (1 + 3e-5, True, True), (1 + 3e-5, False, False), (1.01, False, True)],
)
def test_verify_compares_the_outputs(fake_passes, factor, exact, fails):
    fake_passes("fold_cast", scale_constant(factor), exact=exact)
    if fails:
        with pytest.raises(StageError, match=r"Optimized model differs from the original"):
            one_cmds.optimize(mul_model(), ["fold_cast"], verify=True)
    else:
        with console.capture() as lines:
            one_cmds.optimize(mul_model(), ["fold_cast"], verify=True)
        assert any(line.startswith("verify: outputs match") for line in lines)


def test_verify_names_passes_that_change_results(fake_passes):
    fake_passes("fold_cast", scale_constant(2.0), changes_results=True)
    with pytest.raises(StageError, match="fold_cast change results on purpose"):
        one_cmds.optimize(mul_model(), ["fold_cast"], verify=True)


def test_api_returns_a_copy_and_checks_names():
    model = relu_chain()
    after = one_cmds.optimize(model, "O1")
    assert after is not model and model.main.operators[0].outputs[0].name == "r0"
    with pytest.raises(ConfigError, match="did you mean 'fold_cast'"):
        one_cmds.optimize(model, ["fold_cats"])


def test_operators_without_a_shape_rule_keep_their_declared_shapes():
    net = Net()
    x = net.input("x", [1, 4, 4])
    update = net.input("u", [1, 2, 4])
    start = net.const("start", [0, 1, 0], np.int32)
    y = net.op("DYNAMIC_UPDATE_SLICE", [x, update, start], name="dus")
    net.outputs(net.op("RELU", [y], name="relu"))
    model = net.model(infer=False)
    y.shape = (1, 4, 4)
    model.main.operators[1].outputs[0].shape = (1, 4, 4)
    after = one_cmds.optimize(model, "O1")
    assert kinds(after) == ["DYNAMIC_UPDATE_SLICE", "RELU"]
    assert after.main.outputs[0].shape == (1, 4, 4)


def test_an_unimplemented_pass_is_an_error_never_a_skip(monkeypatch):
    monkeypatch.delitem(load_passes(), "fuse_bcq")
    with pytest.raises(StageError) as e:
        one_cmds.optimize(relu_chain(), ["fuse_bcq", "fold_cast"])
    assert str(e.value) == "the following passes are not implemented: fuse_bcq"
