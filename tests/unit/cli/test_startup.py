"""Fast start (issue 11): answering ``--version``, ``--help``, argument errors and
configuration errors imports none of numpy, the flatbuffers bindings, the interpreter, the
optimizer or the quantizer (checked in a fresh interpreter; no timing)."""

import json
import subprocess
import sys

import pytest

HEAVY = (
    "numpy",
    "flatbuffers",
    "circle_schema",
    "onnx",
    "tensorflow",
    "one_cmds.interp",
    "one_cmds.passes",
    "one_cmds.quant",
    "one_cmds.stages.optimize",
    "one_cmds.formats.reader",
)
PROBE = """
import json, sys
from one_cmds.cli.{module} import {function} as main
try:
    main({argv!r})
except SystemExit:
    pass
heavy = {heavy!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy or m in heavy
                        or any(m.startswith(h + ".") for h in heavy))))
"""


def imported(module: str, function: str, argv: list[str], cwd) -> list[str]:
    code = PROBE.format(module=module, function=function, argv=argv, heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("module", "function", "argv"),
    [
        ("onecc", "main", ["-v"]),
        ("onecc", "main", ["--help"]),
        ("onecc", "main", ["--no-such-option"]),
        ("onecc", "main", ["-C", "typo.cfg"]),
        ("drivers", "one_import_tflite", ["--help"]),
        ("drivers", "one_quantize", ["-i", "a.circle"]),
        ("drivers", "one_optimize", ["--version"]),
        ("drivers", "one_import_tf", ["--help"]),
        ("drivers", "one_import_bcq", ["-i", "a.pb", "-o", "a.circle", "-I", "x", "-O", "y",
                                       "-s", "1,0"]),
    ],
    ids=["version", "help", "bad-argument", "config-typo", "driver-help", "driver-missing",
         "driver-version", "tf-help", "bcq-bad-shape"],
)  # fmt: skip
def test_quick_answers_import_nothing_heavy(tmp_path, module, function, argv):
    (tmp_path / "typo.cfg").write_text(
        "[onecc]\none-import-tflite=True\n\n[one-import-tflite]\ninput_pat=a.tflite\n"
    )
    assert imported(module, function, argv, tmp_path) == []


def test_the_probe_sees_heavy_modules(tmp_path):
    """A real import does load them (the probe can fail)."""
    found = imported("drivers", "one_import_tflite", ["-i", "missing.tflite", "-o", "o.circle"],
                     tmp_path)  # fmt: skip
    assert "numpy" in found


def test_checking_a_tensorflow_step_imports_no_tensorflow(tmp_path):
    """[one-import-tf] is checked (TensorFlow found, not imported), then a typo stops the run."""
    (tmp_path / "tf.cfg").write_text(
        "[onecc]\none-import-tf=True\none-optimize=True\n\n[one-import-tf]\ninput_path=a.pb\n"
        "output_path=a.circle\ninput_arrays=x\ninput_shapes=1,4\noutput_arrays=y\nv2=True\n"
        "\n[one-optimize]\ninput_path=a.circle\noutput_pth=b.circle\n"
    )
    found = imported("onecc", "main", ["-C", "tf.cfg"], tmp_path)
    assert "one_cmds.quant.options" in found  # the step's options were built
    assert not [m for m in found if m.split(".")[0] == "tensorflow"]


def test_a_reader_that_goes_away_ends_the_program_quietly(tmp_path):
    """``onecc -W ... --dry-run | head``: the plan outgrows the pipe, the reader closes it;
    the program stops with the shell's SIGPIPE code and says nothing (it printed ``internal
    error: BrokenPipeError``)."""
    step = {"steps": ["S"], "S": {"one-cmd": "one-optimize",
            "commands": {"input_path": "m.circle", "output_path": "o.circle"}}}  # fmt: skip
    names = [f"W{k}" for k in range(200)]
    workflow = tmp_path / "big.workflow.json"
    workflow.write_text(json.dumps({"workflows": names, **dict.fromkeys(names, step)}))
    command = [
        sys.executable,
        "-c",
        "from one_cmds.cli.onecc import main; raise SystemExit(main())",
    ]
    process = subprocess.Popen(
        [*command, "-W", str(workflow), "--dry-run"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout.readline().startswith(b"plan: ")
    process.stdout.close()
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b""
