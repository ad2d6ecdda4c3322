"""The ``one-quantize`` step (quantization.md §1): weights fake-quantization, calibration (in
LiteRT, or the reference interpreter), quantize-with-minmax, on the in-memory model.

Implemented: the default pipeline with uint8 (layer or channel) and int16 (channel),
``quant_config`` mixed precision, calibration data in every format, ``input_type``/
``output_type``, ``evaluate_result`` (with a per-layer error report), the modes
force_quantparam, copy_quantparam, fake_quantize and requantize, and the weights modes
(§21-§22): GGML blocks (``quantize_weights_chunk``), then weights-only int8/int16/int4
(``quantize_weights``), and ampq (automatic mixed precision, quant/ampq.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..engines import Interpreter as FastInterpreter
from ..engines import ray_cluster
from ..engines.litert_coverage import litert_gaps
from ..errors import UnsupportedError
from ..formats.writer import save
from ..interp import Interpreter, InterpreterError
from ..ir import Model
from ..quant.ampq import AmpqSettings, Keep, solve
from ..quant.bias_correction import correct_biases, input_means
from ..quant.checks import check_constant_operands, check_float_model, check_quantized
from ..quant.computed_constants import fold_computed_constants
from ..quant.data import Record, count, records
from ..quant.default_pipeline import calibrate, fake_quantize_weights, quantize_with_minmax
from ..quant.equalization import equalize
from ..quant.fake_quantize import fake_quantize
from ..quant.ggml_weights import quantize_weights_chunk
from ..quant.half_weights import widen_half_weights
from ..quant.layer_errors import (
    CSV_SUFFIX,
    TABLE_HEADER,
    WORST,
    layer_errors,
    table_rows,
    write_csv,
)
from ..quant.metrics import METRICS, report
from ..quant.modes import copy_quantparam, force_quantparam, requantize_int8_to_uint8
from ..quant.weights_only import (
    WEIGHTS_ONLY_AXIS,
    check_weights_only,
    quantize_weights_only,
    unchanged_reason,
)
from ..report.console import detail, out, progress, table, warn
from .options import QuantizeOptions
from .stage import Stage

IN_MEMORY = "<memory>"  # the output_path of one_cmds.quantize() unless the caller gives one
NO_CLUSTER = (
    "calibration_workers has no effect without onecc --ray; records are calibrated in this process"
)


def run_quantize_step(model: Model, options: QuantizeOptions) -> Model:
    """Quantize ``model`` in place as the step's options say."""
    action = options.action
    if action == "ampq":
        return _ampq(model, options)
    if action == "force_quantparam":
        force_quantparam(model, options.tensor_name, options.scale, options.zero_point)
        return model
    if action == "copy_quantparam":
        copy_quantparam(model, options.src_tensor_name, options.dst_tensor_name)
        return model
    if action == "requantize":
        requantize_int8_to_uint8(model)
        return model
    if action == "fake_quantize":
        fake_quantize(model)
        return model
    if action in ("quantize_weights_chunk", "quantize_weights"):
        return _quantize_weights(model, options)
    if action != "default":
        raise UnsupportedError(f"one-quantize: {action} is not implemented yet")
    original = model.copy() if options.evaluate_result else None
    check_float_model(model)
    _widen_half_weights(model)
    fold_computed_constants(model)
    check_constant_operands(model)

    def again() -> Iterator[Record]:
        return records(model.main.inputs, options.input_data, options.input_data_format)

    if options.cross_layer_equalization:
        detail(f"cross-layer equalization: {equalize(model)} pairs of convolutions")
    means = input_means(model, again(), options.engine, detail) if options.bias_correction else {}
    errors = fake_quantize_weights(
        model,
        options.quantized_dtype,
        options.granularity,
        options.quant_config,
        keep_errors=options.bias_correction,
    )
    if options.bias_correction:
        corrected = correct_biases(errors, means)
        detail(f"bias correction: {corrected} of {len(errors)} operators corrected")
    _intermediate(model, options, "weights_fake_quant")
    data = again()
    total = count(options.input_data, options.input_data_format)
    if options.calibration_workers > 1 and ray_cluster.active() is None:
        warn(NO_CLUSTER)
    with progress("calibration", total) as advance:
        recorded = calibrate(
            model,
            _counted(data, advance),
            options,
            note=detail,
            again=again,
        )
    out(f"Recording finished. Number of recorded data: {recorded}")  # record-minmax's line
    _intermediate(model, options, "minmax_recorded")
    for note in quantize_with_minmax(model, options):
        warn(note)
    check_quantized(model, options.quantized_dtype)
    for gap in litert_gaps(model):
        warn(f"{gap}: ONE's runtime and the interpreter run the model, LiteRT does not")
    if original is not None:
        _evaluate(original, model, options)
    return model


def _widen_half_weights(model: Model) -> None:
    widened = widen_half_weights(model)
    if widened:
        detail(f"{widened} float16 weights widened to float32 for quantization")


def _ampq(model: Model, options: QuantizeOptions) -> Model:
    """``ampq`` (quant/ampq.py): the float model is calibrated once (no weights
    fake-quantization, as in the reference), then the solver picks the int16 operators; with
    ``save_intermediate`` the files of cli-and-config.md §16."""
    settings = AmpqSettings.of(options)
    for line in settings.ignored():
        warn(line)
    check_float_model(model)
    _widen_half_weights(model)
    fold_computed_constants(model)
    check_constant_operands(model)
    original = model.copy()
    data = list(records(model.main.inputs, options.input_data, options.input_data_format))
    with progress("calibration", len(data)) as advance:
        recorded = calibrate(
            model, _counted(data, advance), options, note=detail, again=lambda: data
        )
    out(f"Recording finished. Number of recorded data: {recorded}")
    _intermediate(model, options, "minmax_recorded")
    outcome = solve(
        model,
        original,
        data,
        options,
        settings,
        say=out,
        note=detail,
        keep=Keep(
            lambda m, suffix: _intermediate(m, options, suffix),
            _intermediate_path(options, "tae.visq.json"),
            os.path.basename(options.input_path),
        ),
    )
    for note in outcome.warnings:
        warn(note)
    check_quantized(outcome.model, outcome.dtype)
    if options.evaluate_result:
        _evaluate(original, outcome.model, options)
    return outcome.model


def _quantize_weights(model: Model, options: QuantizeOptions) -> Model:
    """§21-§22: GGML blocks first, then weights-only; activations stay float32. With
    ``evaluate_result`` the output model itself is compared with the float model."""
    original = model.copy() if options.evaluate_result else None
    if options.quantize_weights_chunk is not None:
        chunk, skip = options.quantize_weights_chunk, options.skip_chunkquant_size
        if not quantize_weights_chunk(model, chunk, skip, warn):
            why = unchanged_reason(model, {"FULLY_CONNECTED": 1, "GATHER": 0}, skip)
            if why is not None:
                warn(f"quantize_weights_chunk {chunk} changed nothing: {why}")
    if options.quantize_weights:
        dtype = options.quantized_dtype
        if not quantize_weights_only(model, dtype, options.granularity, options.block_size, warn):
            why = unchanged_reason(model, {k: v[0] for k, v in WEIGHTS_ONLY_AXIS.items()})
            if why is not None:
                warn(f"quantize_weights ({dtype}) changed nothing: {why}")
    check_weights_only(model)
    if original is not None:
        _compare(original, model, options)
        _layer_error_report(original, model, options)
    return model


def _evaluate(original: Model, quantized: Model, options: QuantizeOptions) -> None:
    """§16: the fake-quantized output against the float input model on ``test_data``."""
    simulated = quantized.copy()
    fake_quantize(simulated)
    _intermediate(simulated, options, "fake_quant")
    _compare(original, simulated, options)
    _layer_error_report(original, quantized, options)


def _compare(original: Model, candidate: Model, options: QuantizeOptions) -> None:
    """§17: the selected metrics of ``candidate`` (run by the reference interpreter) against
    the float input model on ``test_data``."""
    flags = [flag for flag in METRICS if getattr(options, flag)]
    float_run = FastInterpreter(original, engine=options.engine)
    candidate_run = Interpreter(candidate)
    pairs = [
        (float_run.run(record), candidate_run.run(record))
        for record in records(original.main.inputs, options.test_data, options.input_data_format)
    ]
    for line in report(flags, [t.name for t in original.main.outputs], pairs):
        out(line)


def _layer_error_report(original: Model, quantized: Model, options: QuantizeOptions) -> None:
    """The per-layer errors (a one-cmds addition): the worst tensors as a table on stdout,
    every tensor in ``<output_path>.qerror.csv``."""
    data = records(original.main.inputs, options.test_data, options.input_data_format)
    try:
        rows = layer_errors(original, quantized, data, options.engine, detail)
    except InterpreterError as e:
        warn(f"no per-layer error report: the quantized model does not run ({e.message})")
        return
    title = f"Quantization error per tensor, the {min(WORST, len(rows))} worst of {len(rows)}"
    table(title, TABLE_HEADER, table_rows(rows[:WORST]))
    if options.output_path == IN_MEMORY:
        return  # one_cmds.quantize() without an output_path: no file
    path = os.path.realpath(os.path.expanduser(options.output_path)) + CSV_SUFFIX
    write_csv(path, rows)
    out(f"Every tensor's error: {path}")


def _counted(data: Iterable[Any], advance: Callable[[], None]) -> Iterator[Any]:
    for record in data:
        yield record
        advance()


def _intermediate(model: Model, options: QuantizeOptions, suffix: str) -> None:
    """``<b>.<suffix>.circle`` next to the output, with ``save_intermediate`` (cli §16)."""
    path = _intermediate_path(options, f"{suffix}.circle")
    if path is not None:
        save(model, path)


def _intermediate_path(options: QuantizeOptions, suffix: str) -> str | None:
    """``<b>.<suffix>`` next to the output with ``save_intermediate`` (cli §16), else None."""
    if not options.save_intermediate:
        return None
    base = os.path.splitext(os.path.basename(options.input_path))[0]
    folder = os.path.dirname(os.path.abspath(os.path.expanduser(options.output_path)))
    return os.path.join(folder, f"{base}.{suffix}")


class QuantizeStage(Stage[QuantizeOptions]):
    def run(self, model: Model | None, options: QuantizeOptions) -> Model:
        assert model is not None
        return run_quantize_step(model, options)


QUANTIZE = QuantizeStage()
