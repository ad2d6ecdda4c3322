"""``--save_min_max`` keeps the min/max of every quantized activation and weight in its
quantparam; nothing else of the model changes."""

from pathlib import Path

import numpy as np

from one_cmds.cli.drivers import one_quantize
from one_cmds.formats.reader import load

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "mobilenet_tiny.tflite"


def _quantized(tmp_path, *extra):
    out = tmp_path / f"q{len(extra)}.circle"
    args = ["-i", str(FIXTURE), "-o", str(out), "--granularity", "channel", "--quantized_dtype"]
    assert one_quantize([*args, "int8", *extra]) == 0
    return {t.name: t for t in load(str(out)).main.referenced_tensors()}


def test_min_max_kept_beside_the_same_quantization(tmp_path):
    kept, plain = _quantized(tmp_path, "--save_min_max"), _quantized(tmp_path)
    assert kept.keys() == plain.keys()
    with_range = 0
    for name, t in kept.items():
        other = plain[name]
        assert (t.quant is None) == (other.quant is None), name
        if t.quant is None:
            continue
        assert other.quant.min is None and other.quant.max is None, name
        assert np.array_equal(t.quant.scale, other.quant.scale), name
        assert np.array_equal(t.quant.zero_point, other.quant.zero_point), name
        if t.data is not None:
            assert np.array_equal(t.data, other.data), name
        if t.quant.min is None:
            assert t.dtype == "INT32", f"{name}: only biases go without a range"
            continue
        with_range += 1
        lo, hi = np.asarray(t.quant.min), np.asarray(t.quant.max)
        assert lo.shape == hi.shape == np.shape(t.quant.scale) and np.all(lo <= hi), name
    assert with_range > 20
