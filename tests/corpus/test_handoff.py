"""The hand-off does not matter on real models (cli-and-config.md §10): import -> O1 ->
(resize) -> quantize (uint8, the corpus's 16 calibration records) of a MediaPipe TFLite detector, the
PaddleOCR classifier and Silero VAD (three inputs, an LSTM) from ONNX, as one ``onecc -C`` and
as one driver command per step, write the same bytes (tests/support/handoff.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corpus.checks import enabled
from corpus.download import CorpusUnavailable, model_path, select
from corpus.records import CALIBRATION, make_records, write_npz
from support.handoff import Flow, differing, run_both

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not enabled(), reason="ONE_CMDS_CORPUS=0"),
]

# How each gets its static shapes: it has them, a one-resize step, or the ONNX import's
# input_shapes (Silero's LSTM needs its dims known when it is lowered).
MODELS = {
    "mp_face_detection_short_range": None,
    "ppocr_cls_mobile_v2": "one-resize",
    "silero_vad_16k_sequence": "input_shapes",
}
IMPORTERS = {"tflite": "one-import-tflite", "onnx": "one-import-onnx"}


@pytest.mark.parametrize("model", MODELS)
def test_one_config_and_separate_commands_write_the_same_bytes(model: str, tmp_path: Path):
    (entry,) = select(model)
    try:
        source = model_path(entry)
    except CorpusUnavailable as e:
        pytest.skip(f"corpus model unavailable: {e}")
    dtypes = [np.dtype(np.float32)] * len(entry.inputs)  # the three models read floats
    records = make_records(entry.id, entry.inputs, dtypes, "calibration", CALIBRATION)
    data = write_npz(tmp_path / "records.npz", records)
    shapes = ",".join("[" + ",".join(map(str, i["shape"])) + "]" for i in entry.inputs)
    flow = Flow(
        IMPORTERS[entry.format],
        str(source),
        import_options={"input_shapes": shapes} if MODELS[model] == "input_shapes" else {},
        resize=shapes if MODELS[model] == "one-resize" else None,
        quantize_options={"input_data": str(data), "input_data_format": "npz"},
    )
    together, apart = run_both(flow, tmp_path)
    assert {"m.circle", "m.opt.circle", "m.q.circle"} <= set(together)
    assert differing(together, apart) == []
