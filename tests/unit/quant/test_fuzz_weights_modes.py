"""The weights modes under bad inputs (issue 33): damaged circle and TFLite files and wrong
mode options given to ``one-quantize --quantize_weights`` and ``--quantize_weights_chunk``, run
in process; every case ends in a model that loads or in one line naming the file or option at
fault (:mod:`support.fuzz`)."""

from __future__ import annotations

import shutil

import one_cmds
from support.fuzz import Case, check_door, damaged_files
from support.passes import Net, fc_options

CHUNK = ["--quantize_weights_chunk", "q4_0"]
WEIGHTS = ["--quantize_weights", "--quantized_dtype", "int8", "--granularity", "channel"]


def _fc_model(path) -> None:
    net = Net()
    x = net.input("x", [1, 64])
    y = net.op("FULLY_CONNECTED", [x, net.random("w", [32, 64]), None], fc_options(), name="y")
    net.outputs(y)
    one_cmds.save(net.model(), str(path))


def test_damaged_models(tmp_path, capsys, fixture_path):
    _fc_model(tmp_path / "fc.circle")
    tflite = shutil.copy(fixture_path("mobilenet_tiny.tflite"), tmp_path / "m.tflite")
    cases = []
    for source, mode in ((tmp_path / "fc.circle", CHUNK), (tflite, WEIGHTS)):
        for damage, path in damaged_files(source, tmp_path).items():
            args = ["-i", path.name, "-o", "out.circle", *mode]
            cases.append(
                Case(f"{damage} {path.name}", args, path.name, may_pass=damage == "flipped")
            )
    assert check_door("one-quantize", cases, tmp_path, capsys, one_cmds.load) == []


def test_wrong_mode_options(tmp_path, capsys):
    _fc_model(tmp_path / "fc.circle")
    io = ["-i", "fc.circle", "-o", "out.circle"]
    wrong = {
        "unknown chunk format": (["--quantize_weights_chunk", "q5_0"], "q5_0"),
        "negative skip size": ([*CHUNK, "--skip_chunkquant_size", "-1"], "skip_chunkquant_size"),
        "skip size text": ([*CHUNK, "--skip_chunkquant_size", "big"], "skip_chunkquant_size"),
        "weights dtype": (["--quantize_weights", "--quantized_dtype", "int3"], "int3"),
        "weights granularity": (["--quantize_weights", "--granularity", "tensor"], "tensor"),
        "block for int8": (["--quantize_weights", "--granularity", "block"], "block"),
        "block size": (
            [
                "--quantize_weights",
                "--quantized_dtype",
                "int4",
                "--granularity",
                "block",
                "--block_size",
                "48",
            ],
            "block_size",
        ),
    }
    cases = [Case(name, [*io, *args], blame, code=2) for name, (args, blame) in wrong.items()]
    # both modes run (quantization.md §21.1), calibration keys are ignored with a warning
    cases += [
        Case("two modes", [*io, *CHUNK, "--quantize_weights"], "", may_pass=True),
        Case("calibration keys", [*io, *CHUNK, "--input_data", "no.h5"], "", may_pass=True),
    ]
    assert check_door("one-quantize", cases, tmp_path, capsys, one_cmds.load) == []
