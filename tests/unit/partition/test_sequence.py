"""Parts of fixture models run one after the other equal the whole model, bit for bit; the
grouping equals a literal transcription of backends-and-packaging.md §5.3."""

from pathlib import Path

import numpy as np
import pytest

import one_cmds
from one_cmds.interp import Interpreter
from one_cmds.ir import Graph, Model, Operator
from one_cmds.partition.groups import Group, make_groups
from one_cmds.partition.partfile import read_part_config
from support.litert import random_inputs
from support.partition import partition_in, run_parts


def every_third_name(model: Model) -> str:
    """An [OPNAME] section sending every third operator to npu."""
    names = [op.outputs[0].name for op in model.main.operators[1::3]]
    return "".join(f"{n}=npu\n" for n in names)


CASES = {
    "mobilenet_dwconv": ("mobilenet_tiny.tflite", "[OPCODE]\nDEPTHWISE_CONV_2D=npu\n"),
    "mobilenet_names": ("mobilenet_tiny.tflite", "comply=opname\n[OPNAME]\n{names}"),
    "transformer_matmul": (
        "transformer_block.tflite",
        "[OPCODE]\nFULLY_CONNECTED=npu\nBATCH_MATMUL=npu\n",
    ),
    "transformer_default_npu": ("transformer_block.tflite", "[OPCODE]\n_=npu\nMEAN=cpu\nADD=cpu\n"),
    "gpt_names": ("gpt_decoder.tflite", "comply=opname\n[OPNAME]\n{names}"),
    "gpt_arith": ("gpt_decoder.tflite", "[OPCODE]\nADD=npu\nMUL=npu\nGATHER=npu\n"),
}


def part_text(model: Model, body: str) -> str:
    head, _, rest = body.partition("[")
    return (
        "[partition]\nbackends=cpu,npu\ndefault=cpu\n"
        + head
        + ("[" + rest if rest else "").format(names=every_third_name(model))
    )


@pytest.fixture(params=sorted(CASES))
def case(request, tmp_path: Path, fixture_path) -> tuple[Model, Path, str]:
    fixture, body = CASES[request.param]
    model = one_cmds.load(fixture_path(fixture))
    (tmp_path / "m.part").write_text(part_text(model, body))
    return model, tmp_path, fixture


def test_parts_in_sequence_equal_the_whole_model(case) -> None:
    model, tmp_path, fixture = case
    written = partition_in(tmp_path, model, fixture)
    assert len(written) > 3  # at least two parts: both backends are used
    inputs = random_inputs(model)
    expected = Interpreter(model).run(inputs)
    names = [t.name for t in model.main.inputs]
    got = run_parts(
        str(tmp_path / f"{Path(fixture).stem}.conn.json"), dict(zip(names, inputs, strict=True))
    )
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)


def test_parts_keep_origins_and_profiling_tables(case) -> None:
    model, tmp_path, fixture = case
    written = partition_in(tmp_path, model, fixture, profile=True)
    source = {op.outputs[0].name: op.origin for op in model.main.operators}
    seen: list[str] = []
    for path in written[:-2]:
        part = one_cmds.load(path)
        assert part.source_table == model.source_table
        assert part.source_md5 == model.source_md5
        for op in part.main.operators:
            assert op.origin == source[op.outputs[0].name]
            assert op.origin <= frozenset(model.source_table)
            seen.append(op.outputs[0].name)
    assert sorted(seen) == sorted(source)


def test_while_bodies_go_with_their_operator(fixture_path, tmp_path: Path) -> None:
    model = one_cmds.load(fixture_path("two_subgraphs.tflite"))
    (tmp_path / "m.part").write_text(part_text(model, "[OPCODE]\nWHILE=npu\n"))
    written = partition_in(tmp_path, model, "two_subgraphs.tflite")
    counts = {Path(p).name: len(one_cmds.load(p).graphs) for p in written[:-2]}
    assert counts == {"two_subgraphs.00001_npu.tflite": 3}
    inputs = random_inputs(model)
    got = run_parts(str(tmp_path / "two_subgraphs.conn.json"), {"input": inputs[0]})
    np.testing.assert_array_equal(got[0], Interpreter(model).run(inputs)[0])


def literal_groups(graph: Graph, backend_of, default: str) -> list[Group]:
    """§5.3 word for word: restart from the first group after every merge."""
    groups = [
        Group(
            backend_of(op),
            [op],
            list({id(t): t for t in op.inputs if t is not None}.values()),
            list(op.outputs),
        )
        for op in graph.operators
    ]
    producer = graph.producers()

    def owner(t) -> Group | None:
        op: Operator | None = producer.get(t)
        return next((g for g in groups if op is not None and op in g.ops), None)

    def group_of(t) -> str:
        return backend_of(producer[t]) if t in producer else default

    def joinable(gi: Group, g: Group) -> bool:
        live = [t for t in g.inputs if not t.is_constant]
        owners = {id(o) for t in live if (o := owner(t)) is not None}
        return (
            g.backend == gi.backend
            and any(t in g.inputs for t in gi.outputs)
            and len({group_of(t) for t in live}) <= 1
            and len(owners) <= 1
        )

    def merge_once() -> bool:
        for gi in groups:
            for g in groups:
                if g is not gi and joinable(gi, g):
                    gi.ops += g.ops
                    inside = [t for op in gi.ops for t in op.outputs]
                    gi.inputs += [t for t in g.inputs if t not in inside and t not in gi.inputs]
                    gi.outputs += [t for t in g.outputs if t not in gi.outputs]
                    groups.remove(g)
                    return True
        return False

    while merge_once():
        pass
    for g in groups:
        g.inputs = [t for t in g.inputs if not t.is_constant and owner(t) is not g]
    used = [*graph.outputs, *(t for g in groups for t in g.inputs)]
    for g in groups:
        g.outputs = [t for t in g.outputs if t in used]
    return groups


def summary(groups: list[Group]) -> list[tuple]:
    return [
        (
            g.backend,
            [id(op) for op in g.ops],
            [t.name for t in g.inputs],
            [t.name for t in g.outputs],
        )
        for g in groups
    ]


def test_grouping_equals_the_literal_algorithm(case) -> None:
    model, tmp_path, _ = case
    config = read_part_config(str(tmp_path / "m.part"), backends=None, default=None)
    fast = make_groups(model.main, config.backend_of, config.default)
    slow = literal_groups(model.main, config.backend_of, config.default)
    assert summary(fast) == summary(slow)
    assert len(fast) > 1


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fixture", ["transformer_block.tflite", "gpt_decoder.tflite"])
def test_grouping_equals_the_literal_algorithm_on_random_assignments(
    fixture_path, fixture: str, seed: int
) -> None:
    model = one_cmds.load(fixture_path(fixture))
    rng = np.random.default_rng(seed)
    chosen = {
        id(op): str(rng.choice(["a", "b", "c"], p=[0.6, 0.3, 0.1])) for op in model.main.operators
    }

    def backend_of(op: Operator) -> str:
        return chosen[id(op)]

    fast = make_groups(model.main, backend_of, "a")
    slow = literal_groups(model.main, backend_of, "a")
    assert summary(fast) == summary(slow)
