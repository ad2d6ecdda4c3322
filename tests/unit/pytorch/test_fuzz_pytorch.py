"""The PyTorch door under bad inputs (issue 33): damaged ``.pt2``, TorchScript, pickle and
TorchServe files, archives missing a member, python_path files that fail, wrong ``-s``/``-t``;
each run by ``one-import-pytorch`` in process ends in a model that loads or in one line naming
the file or option at fault (:mod:`support.fuzz`)."""

from __future__ import annotations

import shutil
import zipfile

import pytest

pytest.importorskip("torch", reason="PyTorch is not installed: pip install 'one-cmds[pytorch]'")

import one_cmds
from support.fuzz import Case, check_door, damaged_files, without_member
from support.torch_fixtures import GENERATOR, torch_fixtures

SHAPES = ["-s", "1,2,3,3", "-t", "float32"]
OUT = ["-o", "out.circle"]
# the files of each kind and the options that import them
KINDS = {
    "test_pytorch_model.pt2": [],
    "torchscript_model.pth": SHAPES,
    "entire_model.pth": ["-p", "aux.py", *SHAPES],
    "state_dict_model.pth": ["-p", "aux.py", *SHAPES],
    "mar_torchscript_model.mar": SHAPES,
}
# archive members whose loss each kind must report
MEMBERS = {
    "test_pytorch_model.pt2": [
        "archive_format",
        "models/model.json",
        "weight_0",
        "model_weights_config.json",
    ],
    "torchscript_model.pth": ["constants.pkl", "data.pkl", "code/__torch__.py"],
    "state_dict_model.pth": ["data.pkl", "data/0"],
    "mar_torchscript_model.mar": ["MANIFEST.json", ".pth"],
}
PYTHON_FILES = {
    "raises.py": b"raise RuntimeError('no GPU here')\n",
    "syntax.py": b"class Net(torch.nn.Module:\n",
    "exits.py": b"import sys\nsys.exit(3)\n",
    "empty.py": b"",
    "binary.py": b"\xff\xfe\x00",
    "two.py": b"import torch\nclass A(torch.nn.Module): pass\nclass B(torch.nn.Module): pass\n",
}


@pytest.fixture(scope="module")
def files():
    return torch_fixtures()


def _damaged_file_cases(files, folder) -> list[Case]:
    cases = []
    for name, options in KINDS.items():
        damaged = damaged_files(shutil.copy(files / name, folder), folder)
        cases += [
            Case(f"{d} {name}", ["-i", f.name, *OUT, *options], f.name, may_pass=d == "flipped")
            for d, f in damaged.items()
        ]
        for member in MEMBERS.get(name, []):
            out = folder / f"no_{member.replace('/', '_')}_{name}"
            without_member(folder / name, member, out)
            cases.append(
                Case(f"{name} without {member}", ["-i", out.name, *OUT, *options], out.name)
            )
    return cases


def _option_cases(folder) -> list[Case]:
    state = ["-i", "state_dict_model.pth", *OUT]
    script = ["-i", "torchscript_model.pth", *OUT]
    for name, text in PYTHON_FILES.items():
        (folder / name).write_bytes(text)
    cases = [Case(f"python_path {n}", [*state, "-p", n, *SHAPES], n) for n in PYTHON_FILES]
    wrong = {
        "two inputs for one": (["-s", "1,2,3,3:1,2,3,3", "-t", "float32,float32"], "forward"),
        "rank": (["-s", "1,2,3", "-t", "float32"], "1,2,3"),
        "channels": (["-s", "1,5,3,3", "-t", "float32"], "1,5,3,3"),
        "dtype": (["-s", "1,2,3,3", "-t", "int64"], "int64"),
        "type name": (["-s", "1,2,3,3", "-t", "float33"], "float33"),
        "shape text": (["-s", "1,2,x-y,3", "-t", "float32"], "x-y"),
        "counts differ": (["-s", "1,2,3,3:1", "-t", "float32"], "number of input shapes"),
    }
    cases += [Case(n, [*script, *a], blame) for n, (a, blame) in wrong.items()]
    cases.append(Case("no types", [*script, "-s", "1,2,3,3"], "-t/--input_types", code=2))
    # hints only where true: a python file without the class, a pickle naming a garbled class
    entire = ["-i", "entire_model.pth", *OUT, *SHAPES]
    cases.append(Case("python_path without the class", [*entire, "-p", "two.py"], "two.py"))
    _renamed_class(folder / "entire_model.pth", folder / "garbled.pth")
    cases.append(
        Case("garbled class", ["-i", "garbled.pth", *OUT, *SHAPES, "-p", "aux.py"], "damaged")
    )
    return cases


def _renamed_class(source, out) -> None:
    """``source`` with its pickle naming ``collections.OrdereeDict``, a class of a module
    that is there but lacks it (a flipped byte)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename.endswith("data.pkl"):
                data = data.replace(b"OrderedDict", b"OrdereeDict")
            zout.writestr(item, data)


def test_bad_files_get_one_line_naming_the_fault(files, tmp_path, capsys):
    shutil.copy(GENERATOR, tmp_path / "aux.py")
    cases = _damaged_file_cases(files, tmp_path)
    assert check_door("one-import-pytorch", cases, tmp_path, capsys, one_cmds.load) == []


def test_bad_options_get_one_line_naming_the_fault(files, tmp_path, capsys):
    shutil.copy(GENERATOR, tmp_path / "aux.py")
    shutil.copy(files / "torchscript_model.pth", tmp_path)
    shutil.copy(files / "state_dict_model.pth", tmp_path)
    shutil.copy(files / "entire_model.pth", tmp_path)
    cases = _option_cases(tmp_path)
    assert check_door("one-import-pytorch", cases, tmp_path, capsys, one_cmds.load) == []
