import json

import pytest

from one_cmds.config.source import Source
from one_cmds.config.workflow import plans_from_workflow, run_order
from one_cmds.errors import ConfigError, UnsupportedError

SOURCE = Source(file="w.json")


def step(driver: str, **commands) -> dict:
    return {"one-cmd": driver, "commands": commands}


def test_run_order_listed_order_and_dependencies():
    names = ["A", "B", "C", "D"]
    after = {"A": [], "B": ["A"], "C": [], "D": ["C"]}
    assert run_order(names, after, SOURCE) == ["A", "B", "C", "D"]
    after = {"A": ["D"], "B": [], "C": ["B"], "D": []}
    assert run_order(names, after, SOURCE) == ["B", "C", "D", "A"]
    assert run_order(["W", "WO", "I"], {"W": [], "WO": [], "I": []}, SOURCE) == ["W", "WO", "I"]


def test_cycles():
    with pytest.raises(ConfigError, match="Workflows should not have a cycle"):
        run_order(["A", "B", "C"], {"A": ["C"], "B": ["A"], "C": ["B"]}, SOURCE)


def test_plans(write):
    write(
        "ref.cfg",
        "[onecc]\none-resize=True\n[one-resize]\ninput_path=a\noutput_path=b\ninput_shapes=[1,2]\n",
    )
    data = {
        "workflows": ["SECOND", "FIRST", "REF"],
        "FIRST": {
            "steps": ["IMPORT", "OPT"],
            "IMPORT": step("one-import-tflite", input_path="m.tflite", output_path="m.circle"),
            "OPT": step(
                "one-optimize",
                input_path="m.circle",
                output_path="o.circle",
                O1="True",
                fold_cast=False,
                change_outputs="a,b",
            ),
        },
        "SECOND": {
            "steps": ["Q"],
            "run-after": ["FIRST"],
            "Q": step(
                "one-quantize",
                input_path="o.circle",
                output_path="q.circle",
                min_percentile=2,
                zero_point=[1],
            ),
        },
        "REF": {"cfg-reference": {"path": "ref.cfg"}},
    }
    path = write("w.workflow.json", json.dumps(data))
    plans = plans_from_workflow(path)
    assert [[s.driver for s in p.steps] for p in plans] == [
        ["one-import-tflite", "one-optimize"],
        ["one-quantize"],
        ["one-resize"],
    ]
    optimize = plans[0].steps[1].options
    assert "fold_dwconv" in optimize.enabled_passes
    assert "fold_cast" not in optimize.enabled_passes
    assert optimize.change_outputs == ["a", "b"]
    assert plans[1].steps[0].options.min_percentile == 2.0
    assert plans[0].config_path == path
    assert plans[2].config_path == "ref.cfg"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], 'Not found "workflows" key in workflow file'),
        ({"workflows": "A"}, '"workflows" must be an array of names'),
        ({"workflows": ["A", "A"], "A": {"steps": []}}, "lists a name more than once"),
        ({"workflows": ["A"], "A": []}, "workflow 'A' must be an object"),
        ({"workflows": ["A"], "A": {"cfg-reference": {}}}, 'must have a "path" string'),
        ({"workflows": ["A"], "A": {"steps": ["S"], "S": []}}, 'should have "one-cmd"'),
        (
            {"workflows": ["A"], "A": {"steps": ["S"], "S": {"one-cmd": "x", "commands": []}}},
            "x is not supported",
        ),
        (
            {"workflows": ["A"], "A": {"steps": ["S"], "S": step("one-optimize", input_path="a")}},
            "the following arguments are required: -o/--output_path (file 'w.json', "
            "workflow 'A', step 'S')",
        ),
        (
            {
                "workflows": ["A"],
                "A": {"steps": ["S"], "S": {"one-cmd": "one-optimize", "commands": []}},
            },
            '"commands" must be an object',
        ),
    ],
)
def test_errors(write, data, message):
    path = write("w.json", json.dumps(data))
    with pytest.raises((ConfigError, UnsupportedError)) as error:
        plans_from_workflow(path)
    assert message in error.value.message
