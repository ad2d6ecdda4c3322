"""Calibration ``mode=mse`` (quant/clip_search.py): each 8-bit range is the clip of least
squared error over the calibration data, found on a histogram of a second pass."""

import numpy as np
import pytest

import one_cmds
from one_cmds.quant.clip_search import BINS, best_clip
from one_cmds.quant.data import records
from one_cmds.quant.default_pipeline import calibrate, fake_quantize_weights
from one_cmds.quant.options import CalibrationOptions
from support.in_process import quantize_with_config
from support.litert import DEFAULT, run_model
from support.passes import Net


def _histogram(values: np.ndarray) -> tuple[np.ndarray, float, float]:
    lo, hi = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    return np.histogram(values, BINS, (lo, hi))[0], lo, hi


def _exact_error(values: np.ndarray, low: float, high: float) -> float:
    scale = (high - low) / 255
    zero = np.round(-low / scale)
    q = np.clip(np.round(values / scale) + zero, 0, 255)
    return float(np.sum(((q - zero) * scale - values) ** 2))


@pytest.mark.parametrize("kind", ["laplace", "lognormal", "uniform"])
def test_the_clip_is_the_least_error_of_a_fine_grid(kind):
    rng = np.random.default_rng(0)
    values = {
        "laplace": rng.laplace(0, 1, 50_000),
        "lognormal": rng.lognormal(0, 1.2, 50_000) - 0.5,
        "uniform": rng.uniform(-2, 6, 50_000),
    }[kind]
    counts, lo, hi = _histogram(values)
    low, high = best_clip(counts, lo, hi)
    assert lo <= low <= 0.0 <= high <= hi
    grid = np.linspace(0.05, 1.0, 40)
    brute = min(_exact_error(values, lo * a, hi * b) for a in grid for b in grid)
    assert _exact_error(values, low, high) <= 1.02 * brute
    assert _exact_error(values, low, high) <= _exact_error(values, lo, hi)


def _spiky_model():
    """FC -> ADD on a long-tailed input (lognormal values: most near 1, a few near 100)."""
    net = Net()
    x = net.input("x", [1, 64])
    w = np.random.default_rng(1).normal(0, 0.2, (64, 64)).astype(np.float32)
    y = net.op("FULLY_CONNECTED", [x, net.const("w", w), None], name="fc")
    net.outputs(net.op("ADD", [y, net.const("b", np.float32(0.5))], name="out"))
    return net.model()


def _records(rng, count: int) -> np.ndarray:
    return rng.lognormal(0, 1.3, (count, 1, 64)).astype(np.float32)


def _quantize(tmp_path, mode: str):
    np.savez(tmp_path / "r.npz", **{"0": _records(np.random.default_rng(2), 32)})
    return one_cmds.quantize(
        _spiky_model(), quantized_dtype="int8", granularity="channel", input_type="float32",
        output_type="float32", input_data=str(tmp_path / "r.npz"), input_data_format="npz",
        mode=mode,
    )  # fmt: skip


def test_mse_lowers_the_error_in_litert_on_a_long_tail(tmp_path):
    model = _spiky_model()
    test = [r for r in _records(np.random.default_rng(3), 16)]
    want = np.concatenate([one_cmds.Interpreter(model).run([r])[0] for r in test])

    def error(q) -> float:
        got = np.concatenate([run_model(q, [r], DEFAULT)[0] for r in test])
        return float(np.mean((got - want) ** 2))

    assert error(_quantize(tmp_path, "mse")) < 0.95 * error(_quantize(tmp_path, "percentile"))


def test_both_engines_find_the_same_clips(tmp_path):
    np.savez(tmp_path / "r.npz", **{"0": _records(np.random.default_rng(2), 8)})
    ranges = []
    for engine in ("litert", "reference"):
        model = _spiky_model()
        fake_quantize_weights(model, "int8", "channel", None)
        data = records(model.main.inputs, str(tmp_path / "r.npz"), "npz")
        calibrate(model, data, CalibrationOptions(mode="mse", engine=engine))
        ranges.append(
            [(float(t.quant.min[0]), float(t.quant.max[0])) for t in model.main.referenced_tensors()
             if t.quant is not None and t.quant.min is not None and not t.is_constant]
        )  # fmt: skip
    assert np.allclose(ranges[0], ranges[1], rtol=1e-5, atol=1e-6)


def test_a_config_takes_mode_mse_and_ignores_percentiles(fixture_path, tmp_path, capsys):
    assert (
        quantize_with_config(
            tmp_path,
            fixture_path("mobilenet_tiny.tflite"),
            "quantized_dtype=int8\ngranularity=channel\nmode=mse\nmax_percentile=99.9\n",
        )
        == 0
    )
    assert (
        "'max_percentile' has no effect with mode 'mse' and is ignored" in capsys.readouterr().err
    )
    assert (tmp_path / "q.circle").stat().st_size > 0


def _scales(q) -> list[float]:
    return [
        float(t.quant.scale[0])
        for t in q.main.referenced_tensors()
        if t.quant is not None and t.quant.scale is not None and not t.is_constant
    ]


def test_int8_calibrates_with_mse_unless_percentiles_are_given(tmp_path):
    np.savez(tmp_path / "r.npz", **{"0": _records(np.random.default_rng(2), 16)})
    common = {"quantized_dtype": "int8", "input_data": str(tmp_path / "r.npz")}
    common["input_data_format"] = "npz"
    default = one_cmds.quantize(_spiky_model(), **common)
    mse = one_cmds.quantize(_spiky_model(), **common, mode="mse")
    percentile = one_cmds.quantize(_spiky_model(), **common, mode="percentile")
    given = one_cmds.quantize(_spiky_model(), **common, max_percentile=99.0)
    assert _scales(default) == _scales(mse)
    assert _scales(given) == _scales(percentile) != _scales(mse)
    uint8 = {**common, "quantized_dtype": "uint8"}
    assert _scales(one_cmds.quantize(_spiky_model(), **uint8)) == _scales(
        one_cmds.quantize(_spiky_model(), **uint8, mode="percentile")
    )
