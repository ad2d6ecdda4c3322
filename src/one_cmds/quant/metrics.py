"""``evaluate_result`` metrics (quantization.md §17): per graph output, over the records,
float64 accumulation, printed with 6 significant digits."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Metric = Callable[[np.ndarray, np.ndarray], float]


def _mae(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean(np.abs(a - b)))


def _mape(a: np.ndarray, b: np.ndarray) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(100.0 * np.mean(np.abs((a - b) / a)))


def _peir(a: np.ndarray, b: np.ndarray) -> float:
    interval = float(np.max(a) - np.min(a)) or 1.0
    return float(np.max(np.abs(a - b))) / interval


def _mse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean((a - b) ** 2))


def _top(k: int) -> Metric:
    def match(a: np.ndarray, b: np.ndarray) -> float:
        def top(x: np.ndarray) -> set[int]:
            order = np.argsort(-x.reshape(-1), kind="stable")  # ties: the smaller index first
            return set(order[:k].tolist())

        return len(top(a) & top(b)) / k

    return match


# flag -> (header, line format, metric, top-k)
METRICS: dict[str, tuple[str, str, Metric, int]] = {
    "print_mae": ("Mean Absolute Error (MAE)", "MAE for {} is {}", _mae, 0),
    "print_mape": ("Mean Absolute Percentage Error (MAPE)", "MAPE for {} is {}%", _mape, 0),
    "print_mpeir": ("Mean Peak Error to Interval Ratio (MPEIR)", "MPEIR for {} is {}", _peir, 0),
    "print_top1_match": (
        "Ratio of Matched Indices between Top-1 results of the models",
        "Mean Top-1 match ratio for {} is {}",
        _top(1),
        1,
    ),
    "print_top5_match": (
        "Ratio of Matched Indices between Top-5 results of the models",
        "Mean Top-5 match ratio for {} is {}",
        _top(5),
        5,
    ),
    "print_mse": ("Mean Squared Error (MSE)", "MSE for {} is {}", _mse, 0),
}


def report(
    flags: Sequence[str],
    names: Sequence[str],
    pairs: Sequence[tuple[list[np.ndarray], list[np.ndarray]]],
) -> list[str]:
    """The printed lines for the enabled ``flags``: per record, (float outputs, fake-quantized
    outputs); ``names`` are the graph outputs'."""
    lines: list[str] = []
    for flag in flags:
        header, line, metric, k = METRICS[flag]
        lines.append(header)
        for i, name in enumerate(names):
            first = pairs[0][0][i] if pairs else np.zeros(0)
            if k and first.size < k:
                lines.append(
                    f"Top-{k} metric for {name} is ignored, because it has elements less than {k}"
                )
                continue
            values = [
                metric(np.asarray(a[i], np.float64), np.asarray(b[i], np.float64)) for a, b in pairs
            ]
            lines.append(line.format(name, format(float(np.mean(values)), ".6g")))
    return lines
