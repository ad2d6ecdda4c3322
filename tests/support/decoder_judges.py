"""The decoder judges of the LLM weight formats (quantization.md §23.3): each mode of §21-§22
applied to a decoder, the result run by the interpreter on fixed token records, its logits
compared with the float model's: top-1 agreement (positions whose float top-2 margin is under
1e-3·max|z| left out) and the relative logit error ``‖z_q − z_f‖₂ / ‖z_f‖₂`` per position
(mean, max)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

import one_cmds
from one_cmds.interp import Interpreter
from one_cmds.ir import numpy_dtype

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

MODES: dict[str, dict[str, object]] = {
    "q8_0": {"quantize_weights_chunk": "q8_0"},
    "q4_0": {"quantize_weights_chunk": "q4_0"},
    "int8 channel": {"quantize_weights": True, "quantized_dtype": "int8"},
    "int4 channel": {"quantize_weights": True, "quantized_dtype": "int4"},
    "int4 block 32": {
        "quantize_weights": True,
        "quantized_dtype": "int4",
        "granularity": "block",
        "block_size": 32,
    },
}
SEQUENCES, TOKENS = 4, 16  # 64 positions


@dataclass
class Judgement:
    agreement: float  # top-1 agreement over the positions with a clear float top-1
    positions: int  # how many positions that is
    error_mean: float
    error_max: float


def token_records(model: one_cmds.Model, vocab: int) -> list[list[np.ndarray]]:
    """``SEQUENCES`` seeded records of ``TOKENS`` token ids; a second input (an attention
    mask) is all ones."""
    rng = np.random.default_rng(23)
    records = []
    for _ in range(SEQUENCES):
        ids = rng.integers(0, vocab, (1, TOKENS))
        record = [ids.astype(numpy_dtype(model.main.inputs[0].dtype))]
        for t in model.main.inputs[1:]:
            record.append(np.ones((1, TOKENS), numpy_dtype(t.dtype)))
        records.append(record)
    return records


def logits(model: one_cmds.Model, records: list[list[np.ndarray]]) -> np.ndarray:
    """[positions, vocab] logits of the interpreter (the reference engine: the GGML and
    weights-only forms are run by its kernels)."""
    interpreter = Interpreter(model)
    rows = [interpreter.run(record)[0] for record in records]
    return np.concatenate([r.reshape(-1, r.shape[-1]) for r in rows])


def judge(float_logits: np.ndarray, quantized_logits: np.ndarray) -> Judgement:
    z_f = float_logits.astype(np.float64)
    z_q = quantized_logits.astype(np.float64)
    top2 = np.sort(z_f, axis=-1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0]) >= 1e-3 * np.abs(z_f).max()
    agree = np.argmax(z_f, axis=-1) == np.argmax(z_q, axis=-1)
    errors = np.linalg.norm(z_q - z_f, axis=-1) / np.linalg.norm(z_f, axis=-1)
    return Judgement(
        float(agree[clear].mean()), int(clear.sum()), float(errors.mean()), float(errors.max())
    )
