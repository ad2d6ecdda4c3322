import os
from pathlib import Path

import pytest

from one_cmds.config.groups import (
    available_groups,
    check_optimization_name,
    include_names,
    load_groups,
    o1_cfg_text,
)
from one_cmds.config.passes import O1_PASSES, PASS_NAMES
from one_cmds.config.source import Source
from one_cmds.errors import ConfigError, UsageError

REPO = Path(__file__).resolve().parents[3]
SOURCE = Source(file="a.cfg", section="onecc")


def test_pass_table_and_o1_list():
    assert len(PASS_NAMES) == 63
    assert PASS_NAMES[0] == "convert_nchw_to_nhwc"
    assert PASS_NAMES[-1] == "dynamic_batch_to_single_batch"
    assert len(O1_PASSES) == 46
    assert {"fuse_horizontal_fc_layers", "transform_min_max_to_relu6"} <= set(O1_PASSES)
    assert "make_batchnorm_gamma_positive" not in O1_PASSES
    assert list(O1_PASSES) == [name for name in PASS_NAMES if name in O1_PASSES]


def test_committed_o1_cfg_is_generated():
    assert (REPO / "configs" / "O1.cfg").read_text() == o1_cfg_text()


def test_search_path_order_and_filters(write, tmp_path, monkeypatch):
    write("first/OMINE.cfg", "[one-optimize]\nfold_cast=True\n")
    write("second/OMINE.cfg", "[one-optimize]\n")
    write("second/O1.cfg", "[one-optimize]\nfold_cast=True\n")
    write("second/OTHER.cfg", "[one-optimize]\n")
    write("with space/OSPACE.cfg", "[one-optimize]\n")
    write("first/notagroup.cfg", "")
    folders = [str(tmp_path / "first"), str(tmp_path / "with space"), str(tmp_path / "second")]
    monkeypatch.setenv("ONECC_OPTIMIZATION_PATH", os.pathsep.join(folders))
    assert available_groups() == {
        "OMINE": str(tmp_path / "first" / "OMINE.cfg"),
        "O1": str(tmp_path / "second" / "O1.cfg"),
        "OTHER": str(tmp_path / "second" / "OTHER.cfg"),
    }
    builtin, (group,) = load_groups(["O1"], SOURCE)
    assert not builtin and list(group) == ["fold_cast"]


def test_builtin_o1_is_the_o1_switch_not_a_file(write):
    assert available_groups() == {"O1": None}
    assert load_groups(["O1"], SOURCE) == (True, [])


@pytest.mark.parametrize(
    ("name", "message"),
    [("O2", "Invalid optimization option"), ("OA B", "Not allowed to have space")],
)
def test_optimization_name_checks(write, name, message):
    with pytest.raises(UsageError, match=message):
        check_optimization_name(name)


def test_include_names():
    assert include_names("O1  OMY_OPT", SOURCE) == ["O1", "OMY_OPT"]
    assert include_names(["O1"], SOURCE) == ["O1"]
    for bad in ("O", "A1", "O1 X"):
        with pytest.raises(ConfigError, match=r"^Invalid group option"):
            include_names(bad, SOURCE)
    with pytest.raises(ConfigError, match="include must be a string or an array"):
        include_names(1, SOURCE)


def test_group_o1_key_expands_before_its_other_keys(write, tmp_path, monkeypatch):
    write("OG.cfg", "[one-optimize]\nO1=True\nfold_cast=False\nfuse_bcq=yes\n")
    monkeypatch.setenv("ONECC_OPTIMIZATION_PATH", str(tmp_path))
    (group,) = load_groups(["OG"], SOURCE)[1]
    assert group["fold_cast"].value is False
    assert group["fuse_bcq"].value is True
    assert group["fold_add_v2"].value is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[one-optimize]\n[onecc]\n", "only allowed to have a 'one-optimize' section"),
        ("", "only allowed to have a 'one-optimize' section"),
        ("fold_cast=True\n", "Not found given optimization configuration file"),
        ("[one-optimize]\nfold_cst=1\n", "did you mean 'fold_cast'?"),
        ("[one-optimize]\nfold_cast=maybe\n", "Not a boolean: maybe"),
    ],
)
def test_group_file_errors(write, tmp_path, monkeypatch, text, message):
    write("OG.cfg", text)
    monkeypatch.setenv("ONECC_OPTIMIZATION_PATH", str(tmp_path))
    with pytest.raises(ConfigError, match=message):
        load_groups(["OG"], SOURCE)


def test_missing_group(write):
    with pytest.raises(ConfigError, match="Not found given optimization configuration file"):
        load_groups(["OMISSING"], SOURCE)
