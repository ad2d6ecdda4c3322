"""Driver verification after merging: required options and the one-quantize checks, in the
order and with the messages of cli-and-config.md §14.5, §17.4 and quantization.md §18."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from one_cmds.config.passes import PASS_NAMES
from one_cmds.config.source import Source
from one_cmds.config.tables import Option
from one_cmds.config.values import Settings
from one_cmds.errors import StageError
from one_cmds.report.console import warn

Verify = Callable[[Settings, Source], dict[str, object]]

QUANTIZED_DTYPES = ("uint8", "int16", "int8")
GRANULARITIES = ("layer", "channel")
IO_TYPES = ("uint8", "int16", "int8", "float32", "int32", "int64", "bool")
# Project addition (quantization.md §24): int8 models default to per-channel weights and
# float I/O, as LiteRT users deploy them.
INT8_DEFAULTS = {"granularity": "channel", "input_type": ["float32"], "output_type": ["float32"]}
# int8's calibration: the clip search (mode=mse, quant/clip_search.py) measured 1-5 dB above
# percentile on real images (benchmarks/quant_peers.py); percentile keys keep percentile.
PERCENTILE_KEYS = ("min_percentile", "max_percentile")
DATA_FORMATS = {
    "h5": "h5",
    "hdf5": "h5",
    "list": "list",
    "filelist": "list",
    "dir": "dir",
    "directory": "dir",
    # project additions (quantization.md §3.4): arrays with a leading record axis
    "npz": "npz",
    "npy": "npy",
}
# The mode flags in dispatch precedence (quantization.md §2); "default" when none is set.
# With both weights flags, GGML blocks (§22) run first, then weights-only (§21).
WEIGHTS_ACTIONS = ("quantize_weights_chunk", "quantize_weights")
QUANTIZE_ACTIONS = (
    "ampq",
    "force_quantparam",
    "copy_quantparam",
    "fake_quantize",
    "requantize",
    *WEIGHTS_ACTIONS,
)
# Weights-only (quantization.md §21.1): values and the defaults of the mode.
WEIGHTS_DTYPES = ("int8", "int16", "int4")
WEIGHTS_GRANULARITIES = ("channel", "block")
BLOCK_SIZES = (32, 64, 128)
WEIGHTS_KEYS = ("quantize_weights_chunk", "skip_chunkquant_size", "block_size")
CHUNK_TYPES = ("q4_0", "q8_0")
# Keys without effect in the weights modes (§21.1): calibration, I/O types, quant_config.
CALIBRATION_KEYS = (
    "input_data",
    "mode",
    "min_percentile",
    "max_percentile",
    "moving_avg_batch",
    "moving_avg_const",
    "calibration_workers",
    "bias_correction",
)
WEIGHTS_IGNORED = (
    *CALIBRATION_KEYS,
    "input_type",
    "output_type",
    "quant_config",
    "TF-style_maxpool",
    "save_min_max",
    "cross_layer_equalization",
)
# Options that act only together with another one.
_DEPENDENT = {
    "evaluate_result": (
        "test_data",
        "print_mae",
        "print_mape",
        "print_mpeir",
        "print_top1_match",
        "print_top5_match",
        "print_mse",
    ),
    "force_quantparam": ("tensor_name", "scale", "zero_point"),
    "copy_quantparam": ("src_tensor_name", "dst_tensor_name"),
    "quantize_weights": ("block_size",),
    "quantize_weights_chunk": ("skip_chunkquant_size",),
}


def values(settings: Settings) -> dict[str, object]:
    """The plain values of the settings."""
    return {key: setting.value for key, setting in settings.items()}


def _raise_missing(labels: list[str], main: Source, lead: str = "the") -> None:
    """``the following arguments are required: <labels>`` when any is missing (``lead``:
    ``The`` as the C++ drivers print it)."""
    if labels:
        raise main.error(f"{lead} following arguments are required: " + " ".join(labels))


def _missing_flags(settings: Settings, names: tuple[str, ...], main: Source) -> None:
    _raise_missing([f"--{name}" for name in names if name not in settings], main)


def verify_required(options: tuple[Option, ...], *, bare: bool = False) -> Verify:
    """Check the required options of a table; ``bare`` lists names as ``one-resize`` and
    ``one-partition`` do, in the C++ tools' message (``The following ...``, one-resize_neg_001)."""

    def verify(settings: Settings, main: Source) -> dict[str, object]:
        missing = [o for o in options if o.required and o.name not in settings]
        labels = [o.name if bare else o.display for o in missing]
        _raise_missing(labels, main, "The" if bare else "the")
        return values(settings)

    return verify


def verify_onnx(options: tuple[Option, ...]) -> Verify:
    """``one-import-onnx`` (onnx-import.md §2): required paths; ``force_ext`` and
    ``disable_ext`` exclude each other in a section too (argparse does it on the command
    line)."""
    required = verify_required(options)

    def verify(settings: Settings, main: Source) -> dict[str, object]:
        fields = required(settings, main)
        if fields.get("force_ext") and fields.get("disable_ext"):
            message = "'force_ext' is not allowed with 'disable_ext'"
            raise _where(settings, "force_ext", main).error(message, key="force_ext")
        return fields

    return verify


def verify_pytorch(options: tuple[Option, ...]) -> Verify:
    """``one-import-pytorch`` (tf-and-pytorch-import.md §2.2, §5.1, §5.3): required paths,
    the extra installed, then shapes and types: required unless the input is an
    ExportedProgram (ignored for one, with a warning), and as many of each; when they are
    missing, a file that is no model is reported first (its path, why)."""
    required = verify_required(options)

    def verify(settings: Settings, main: Source) -> dict[str, object]:
        from one_cmds.extras import PYTORCH_EXTRA
        from one_cmds.frontends.pytorch.kinds import Kind, checked_input_kind, input_kind

        fields = required(settings, main)
        for requirement in PYTORCH_EXTRA:
            requirement.check_installed()
        keys = ("input_shapes", "input_types")
        if input_kind(str(fields["input_path"])) is Kind.EXPORTED_PROGRAM:
            for key in keys:
                if fields.pop(key, None) is not None:
                    warn(f"'{key}' has no effect for an ExportedProgram and is ignored (use "
                         "one-resize)")  # fmt: skip
            return fields
        by_key = {o.name: o for o in options}
        missing = [by_key[k].display for k in keys if fields.get(k) is None]
        if missing:  # a bad file is the first thing to say, whatever options are missing
            checked_input_kind(str(fields["input_path"]))
        _raise_missing(missing, main)
        if len(fields["input_shapes"]) != len(fields["input_types"]):  # type: ignore[arg-type]
            message = "ValueError: number of input shapes and input types must be equal"
            raise StageError(message + main.context())
        return fields

    return verify


def verify_optimize(options: tuple[Option, ...]) -> Verify:
    """Required options, then the pass switches gathered into ``passes``."""
    required = verify_required(options)

    def verify(settings: Settings, main: Source) -> dict[str, object]:
        fields = required(settings, main)
        fields["passes"] = {name: bool(fields.pop(name, False)) for name in PASS_NAMES}
        return fields

    return verify


def _where(settings: Settings, key: str, main: Source) -> Source:
    return settings[key].source if key in settings else main


def _read_quant_config(path: str, source: Source) -> dict[str, object]:
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except OSError:
        raise source.error(f"Not found given quantization configuration file: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict):
        raise source.error(f"Failed to decode {path}. Please check it is a json file.")
    return data


def _float(settings: Settings, key: str, main: Source, default: float) -> float:
    value = settings[key].value if key in settings else default
    if not isinstance(value, bool):
        try:
            return float(value)  # type: ignore[arg-type]
        except ValueError:
            pass
    raise _where(settings, key, main).error(f"{key} must be float", key=key)


def _int(settings: Settings, key: str, main: Source, default: int) -> int:
    value = settings[key].value if key in settings else default
    if not isinstance(value, bool | float):
        try:
            return int(value)  # type: ignore[arg-type]
        except ValueError:
            pass
    raise _where(settings, key, main).error(f"{key} must be integer", key=key)


def _ignore(
    fields: dict[str, object], settings: Settings, keys: tuple[str, ...], mode: object
) -> None:
    """Drop options of the other calibration mode, with a warning when they were given."""
    for key in keys:
        if fields.pop(key, None) is not None and key in settings:
            warn(f"'{key}' has no effect with mode '{mode}' and is ignored")


def _check_mode(fields: dict[str, object], settings: Settings, main: Source) -> None:
    """Step 6: calibration mode and its numeric options."""
    mode = fields.setdefault("mode", "percentile")
    if mode == "percentile":
        for key, default in (("min_percentile", 1.0), ("max_percentile", 99.0)):
            fields[key] = _float(settings, key, main, default)
        for key in ("min_percentile", "max_percentile"):
            if not 0.0 <= fields[key] <= 100.0:  # type: ignore[operator]
                where = _where(settings, key, main)
                raise where.error("Percentile must be ranged from 0 to 100", key=key)
        _ignore(fields, settings, ("moving_avg_batch", "moving_avg_const"), mode)
    elif mode == "moving_average":
        batch = _int(settings, "moving_avg_batch", main, 16)
        if batch < 1:
            where = _where(settings, "moving_avg_batch", main)
            raise where.error("moving_avg_batch must be a positive integer", key="moving_avg_batch")
        const = _float(settings, "moving_avg_const", main, 0.1)
        if not 0.0 <= const <= 1.0:
            where = _where(settings, "moving_avg_const", main)
            raise where.error("moving_avg_const must be in [0, 1]", key="moving_avg_const")
        fields["moving_avg_batch"], fields["moving_avg_const"] = batch, const
        _ignore(fields, settings, ("min_percentile", "max_percentile"), mode)
    elif mode == "mse":
        keys = ("min_percentile", "max_percentile", "moving_avg_batch", "moving_avg_const")
        _ignore(fields, settings, keys, mode)
    else:
        raise _where(settings, "mode", main).error("Unsupported mode", key="mode")


def _count(
    fields: dict[str, object], settings: Settings, main: Source, key: str, least: int, what: str
) -> None:
    """``fields[key]`` as an integer of at least ``least`` (written in digits), else
    ``<key> must be <what>``."""
    value = fields.get(key, least)
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, bool | float) or not str(text).isdecimal() or int(str(text)) < least:
        raise _where(settings, key, main).error(f"{key} must be {what}", key=key)
    fields[key] = int(str(text))


def _check_workers(fields: dict[str, object], settings: Settings, main: Source) -> None:
    """``calibration_workers``: a positive integer (a project addition)."""
    _count(fields, settings, main, "calibration_workers", 1, "a positive integer")


def _choice(
    fields: dict[str, object],
    settings: Settings,
    main: Source,
    key: str,
    allowed: tuple[str, ...],
    message: str,
) -> str:
    text = str(fields[key]).lower()
    if text not in allowed:
        raise _where(settings, key, main).error(
            _unsupported(message, key, fields[key], allowed), key=key
        )
    fields[key] = text
    return text


def _unsupported(message: str, key: str, given: object, allowed: Iterable[str]) -> str:
    """``<message> (<key>: <given>; supported: <allowed>)``: the reference's text, then what
    was given and what would do."""
    return f"{message} ({key}: {given}; supported: {', '.join(allowed)})"


def _check_values(fields: dict[str, object], settings: Settings, main: Source) -> None:
    """Step 7: dtype, granularity, I/O types and data format (quantization.md §18)."""
    action = fields["action"]
    dtypes = ("uint8",) if action == "requantize" else QUANTIZED_DTYPES
    dtype = _choice(fields, settings, main, "quantized_dtype", dtypes, "Unsupported output type")
    granularity = _choice(
        fields, settings, main, "granularity", GRANULARITIES, "Unsupported granularity"
    )
    model_dtypes = {"default": ("float32",), "ampq": ("float32",), "requantize": ("int8",)}
    if action in model_dtypes:
        message = "Unsupported input type"
        _choice(fields, settings, main, "input_model_dtype", model_dtypes[action], message)
    for key, message in (
        ("input_type", "Unsupported input type"),
        ("output_type", "Unsupported output type"),
    ):
        types = [str(t).lower() for t in fields.get(key) or [dtype]]  # type: ignore[attr-defined]
        wrong = [t for t in types if t not in IO_TYPES]
        if wrong:
            message = _unsupported(message, key, ",".join(wrong), IO_TYPES)
            raise _where(settings, key, main).error(message, key=key)
        fields[key] = types
    data_format = str(fields["input_data_format"]).lower()
    if data_format not in DATA_FORMATS:
        where = _where(settings, "input_data_format", main)
        message = _unsupported("Unsupported input data format", "input_data_format",
                               fields["input_data_format"], DATA_FORMATS)  # fmt: skip
        raise where.error(message, key="input_data_format")
    fields["input_data_format"] = DATA_FORMATS[data_format]
    if action == "default" and dtype == "int16" and granularity == "layer":
        raise main.error("Layer-wise quantization only supports uint8 dtype.")


def _ignored(fields: dict[str, object], settings: Settings, keys: tuple[str, ...]) -> None:
    """Drop keys without effect in this mode, one warning each when given (§14.3 form)."""
    for key in keys:
        if fields.pop(key, None) is not None and key in settings:
            section = settings[key].source.section or "one-quantize"
            warn(f"'{key}' has no effect in [{section}] and is ignored")


def _block_size(fields: dict[str, object], settings: Settings, main: Source) -> None:
    """``block_size``: 32, 64 or 128 (quantization.md §21.1)."""
    value = fields.get("block_size", BLOCK_SIZES[0])
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, bool) or str(text) not in {str(size) for size in BLOCK_SIZES}:
        message = "block_size must be one of 32, 64, 128"
        raise _where(settings, "block_size", main).error(message, key="block_size")
    fields["block_size"] = int(str(text))


def _check_weights_only(fields: dict[str, object], settings: Settings, main: Source) -> None:
    """§21.1: dtype int8/int16/int4, granularity channel or block (int4 only), block size."""
    dtype = _choice(
        fields, settings, main, "quantized_dtype", WEIGHTS_DTYPES, "Unsupported output type"
    )
    message = "Unsupported granularity"
    granularity = _choice(fields, settings, main, "granularity", WEIGHTS_GRANULARITIES, message)
    if granularity != "block":
        _ignored(fields, settings, ("block_size",))
        return
    if dtype != "int4":
        message = "Unsupported granularity (block needs quantized_dtype int4)"
        raise _where(settings, "granularity", main).error(message, key="granularity")
    _block_size(fields, settings, main)


def _check_chunks(fields: dict[str, object], settings: Settings, main: Source) -> None:
    """§22.1: ``quantize_weights_chunk`` q4_0/q8_0 and ``skip_chunkquant_size`` >= 0."""
    given = fields["quantize_weights_chunk"]
    if str(given).lower() not in CHUNK_TYPES:
        message = _unsupported("Unsupported output type", "quantize_weights_chunk", given,
                               CHUNK_TYPES)  # fmt: skip
        where = _where(settings, "quantize_weights_chunk", main)
        raise where.error(message, key="quantize_weights_chunk")
    fields["quantize_weights_chunk"] = str(given).lower()
    _count(fields, settings, main, "skip_chunkquant_size", 0, "a non-negative integer")


def _check_weights_modes(fields: dict[str, object], settings: Settings, main: Source) -> None:
    """§21.1, §22.1: the weights modes' keys; calibration and I/O keys have no effect."""
    ignored = WEIGHTS_IGNORED if fields.get("evaluate_result") else (
        *WEIGHTS_IGNORED, "input_data_format"
    )  # fmt: skip
    if not fields.get("quantize_weights"):
        ignored = (*ignored, "quantized_dtype", "granularity", "block_size")
    _ignored(fields, settings, ignored)
    message = "Unsupported input type"
    _choice(fields, settings, main, "input_model_dtype", ("float32",), message)
    if fields.get("quantize_weights"):
        fields.setdefault("quantized_dtype", "int8")
        fields.setdefault("granularity", "channel")
        _check_weights_only(fields, settings, main)
    if fields.get("quantize_weights_chunk") is not None:
        _check_chunks(fields, settings, main)
    data_format = str(fields.get("input_data_format", "h5")).lower()
    if data_format not in DATA_FORMATS:
        where = _where(settings, "input_data_format", main)
        message = _unsupported("Unsupported input data format", "input_data_format",
                               fields["input_data_format"], DATA_FORMATS)  # fmt: skip
        raise where.error(message, key="input_data_format")
    fields["input_data_format"] = DATA_FORMATS[data_format]


def _check_lists(settings: Settings, main: Source, flag: str, names: tuple[str, ...]) -> None:
    """Steps 4 and 5: the lists that go with ``force_quantparam``/``copy_quantparam``."""
    _missing_flags(settings, names, main)
    if len({len(settings[name].value) for name in names}) != 1:  # type: ignore[arg-type]
        message = (
            "The same number of tensor_name, scale, and zero_point should be given."
            if flag == "force_quantparam"
            else "The same number of src_tensor_name and dst_tensor_name should be given."
        )
        raise main.error(message)


def verify_quantize(options: tuple[Option, ...]) -> Verify:
    """The one-quantize verification order of cli-and-config.md §17.4."""
    required = verify_required(options)

    def verify(settings: Settings, main: Source) -> dict[str, object]:
        fields = values(settings)
        enabled = [flag for flag in QUANTIZE_ACTIONS if fields.get(flag)]
        if enabled and enabled[0] in WEIGHTS_ACTIONS:
            fields["action"] = enabled[0]
            fields.setdefault("input_model_dtype", "float32")
            required(settings, main)
            _check_weights_modes(fields, settings, main)
            _dependent(fields)
            if fields.get("quantize_weights_chunk") is None:
                fields.pop("skip_chunkquant_size", None)
            return fields
        if "requantize" in enabled:
            _missing_flags(settings, ("input_model_dtype", "quantized_dtype"), main)
        if "quant_config" in settings:
            from one_cmds.quant.options import QuantConfig

            path = str(fields["quant_config"])
            config = _read_quant_config(path, settings["quant_config"].source)
            fields["quant_config"] = QuantConfig(path, config)
            fields.setdefault("quantized_dtype", config.get("default_quantization_dtype", "uint8"))
            fields.setdefault("granularity", config.get("default_granularity", "layer"))
        fields.setdefault("quantized_dtype", "uint8")
        if str(fields["quantized_dtype"]).lower() == "int8":
            for key, value in INT8_DEFAULTS.items():
                if fields.get(key) is None:
                    fields[key] = value
            if fields.get("mode") is None and not any(k in settings for k in PERCENTILE_KEYS):
                fields["mode"] = "mse"
        fields.setdefault("granularity", "layer")
        fields.setdefault("input_model_dtype", "float32")
        fields.setdefault("input_data_format", "h5")
        required(settings, main)
        for flag in ("force_quantparam", "copy_quantparam"):
            if fields.get(flag):
                _check_lists(settings, main, flag, _DEPENDENT[flag])
        fields["action"] = enabled[0] if enabled else "default"
        _check_mode(fields, settings, main)
        _check_workers(fields, settings, main)
        _check_values(fields, settings, main)
        ratio = fields.get("ampq_qerror_ratio")
        if fields["action"] == "ampq" and isinstance(ratio, float) and not 0.0 <= ratio <= 1.0:
            where = _where(settings, "ampq_qerror_ratio", main)
            raise where.error("ampq_qerror_ratio must be in [0, 1]", key="ampq_qerror_ratio")
        _dependent(fields)
        for key in WEIGHTS_KEYS:  # not a weights mode: unchecked, dropped
            fields.pop(key, None)
        return fields

    return verify


def _dependent(fields: dict[str, object]) -> None:
    """A warning for each option given without the flag it acts with."""
    for flag, names in _DEPENDENT.items():
        for name in names:
            if not fields.get(flag) and fields.get(name) not in (None, False):
                warn(f"'{name}' has no effect without '{flag}' and is ignored")
