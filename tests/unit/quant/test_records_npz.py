"""Calibration records from .npz files: arrays named ``0``, ``1``, ... (the documented form)
or ``arr_0``, ``arr_1``, ... (``np.savez(path, *arrays)``), and what a wrong file is told."""

import numpy as np
import pytest

from one_cmds.ir import Tensor
from one_cmds.quant.data import records
from one_cmds.quant.errors import QuantizeError

INPUTS = [Tensor("a", "FLOAT32", (1, 2)), Tensor("b", "INT32", (1, 3))]


def _arrays(count: int = 4) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [
        rng.standard_normal((count, 1, 2)).astype(np.float32),
        rng.integers(0, 9, (count, 1, 3)).astype(np.int32),
    ]


def _read(path) -> list[list[np.ndarray]]:
    return list(records(INPUTS, str(path), "npz"))


def test_named_and_positional_arrays_give_the_same_records(tmp_path):
    a, b = _arrays()
    np.savez(tmp_path / "named.npz", **{"0": a, "1": b})
    np.savez(tmp_path / "positional.npz", a, b)
    named, positional = _read(tmp_path / "named.npz"), _read(tmp_path / "positional.npz")
    assert len(named) == len(positional) == 4
    for x, y in zip(named, positional, strict=True):
        assert [v.tobytes() for v in x] == [v.tobytes() for v in y]
    assert positional[2][1].tolist() == b[2].tolist()  # arr_1 feeds input 1


def test_one_positional_array_too_many_is_named(tmp_path):
    a, b = _arrays()
    np.savez(tmp_path / "three.npz", a, b, b)
    with pytest.raises(QuantizeError) as e:
        _read(tmp_path / "three.npz")
    assert "has arrays the model has no input for: 'arr_2'" in str(e.value)
    assert "the model's 2 inputs read arrays 'arr_0'..'arr_1'" in str(e.value)


def test_other_names_say_which_are_expected(tmp_path):
    a, b = _arrays()
    np.savez(tmp_path / "other.npz", x=a, y=b)
    with pytest.raises(QuantizeError) as e:
        _read(tmp_path / "other.npz")
    assert "has no array '0'; the model's 2 inputs read arrays '0'..'1'" in str(e.value)


def test_a_missing_positional_array(tmp_path):
    a, _ = _arrays()
    np.savez(tmp_path / "short.npz", a)
    with pytest.raises(QuantizeError) as e:
        _read(tmp_path / "short.npz")
    assert "has no array 'arr_1'" in str(e.value)
