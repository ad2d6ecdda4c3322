"""Option tables of the drivers (cli-and-config.md §17): keys, flags, kinds, help texts.

A key of a step section is the ``dest`` of a driver option: the long option name without the
leading dashes (§14).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from one_cmds.config.passes import PASS_OPTIONS
from one_cmds.config.values import Kind


@dataclass(frozen=True)
class Option:
    """One driver option: configuration key, command-line flags and how values convert."""

    name: str
    kind: Kind
    flags: tuple[str, ...] = ()
    help: str = ""
    group: str | None = None
    required: bool = False
    choices: tuple[str, ...] = ()
    hidden: bool = False
    # Another option this one is a synonym of (``profile_info``, ``input_dtype``).
    alias_of: str | None = None
    # Accepted as a configuration key / as a command-line flag.
    config: bool = True
    cli: bool = True
    # Kept in the option model (False for ``O1`` and ``-O``, which expand into passes).
    stored: bool = True
    # A reference option without effect here: accepted, then dropped with a warning (§14.3).
    ignored: bool = False
    # Options sharing this label are mutually exclusive on the command line (argparse).
    exclusive: str | None = None

    @property
    def option_strings(self) -> tuple[str, ...]:
        return self.flags or (f"--{self.name}",)

    @property
    def display(self) -> str:
        """The name argparse shows in ``the following arguments are required: ...``."""
        return "/".join(self.option_strings)


UTILITY = "arguments for utility"


def io_options(input_help: str, output_help: str, group: str | None = None) -> tuple[Option, ...]:
    return (
        Option("input_path", Kind.STR, ("-i", "--input_path"), input_help, group, True),
        Option("output_path", Kind.STR, ("-o", "--output_path"), output_help, group, True),
    )


def profile_options(
    group: str | None = None, flags: tuple[str, ...] = ("-p", "--generate_profile_data")
) -> tuple[Option, ...]:
    """``generate_profile_data`` (``flags`` on the command line) and its alias."""
    return (
        Option(
            "generate_profile_data",
            Kind.BOOL,
            flags,
            "generate profiling data (ONE_source_table, ONE_op_table, ONE_source_md5)",
            group=group,
        ),
        Option("profile_info", Kind.BOOL, alias_of="generate_profile_data", cli=False),
    )


IMPORT_OPTIONS = (
    *io_options("full filepath of the input file", "full filepath of the output file"),
    *profile_options(),
)

RESIZE_OPTIONS = (
    *io_options(
        "The path to the input model (.circle)",
        "The path to the resized model (.circle)",
    ),
    Option(
        "input_shapes",
        Kind.SHAPES,
        ("-s", "--input_shapes"),
        "New inputs shapes in in comma separated format. An example for 2 inputs: [1,2],[3,4].",
        required=True,
    ),
    *profile_options(),
)

OPTIMIZATION = "arguments for optimization"

OPTIMIZE_OPTIONS = (
    *io_options("full filepath of the input file", "full filepath of the output file"),
    *profile_options(UTILITY),
    Option(
        "change_outputs",
        Kind.CSV,
        help="Experimental: Change first subgraph output nodes to CSV names",
        group=UTILITY,
    ),
    Option("O1", Kind.BOOL, help="enable O1 optimization pass", group=OPTIMIZATION, stored=False),
    Option("O", Kind.STR, ("-O",), hidden=True, config=False, stored=False),
    Option(
        "disable_validation",
        Kind.BOOL,
        help="turn validation failures after the passes into warnings",
        group=UTILITY,
    ),
    Option("mute_warnings", Kind.BOOL, help="mute warnings of the passes", group=UTILITY),
    Option(
        "verify",
        Kind.BOOL,
        help="(one-cmds addition) run the original and the optimized model on random inputs "
        "and fail when their outputs differ (rtol=atol=1e-5, 1e-4 for passes that reorder "
        "float arithmetic)",
        group=UTILITY,
    ),
    *(Option(name, Kind.BOOL, help=text, group=OPTIMIZATION) for name, text in PASS_OPTIONS),
)

QUANTIZATION = "arguments for quantization"
FORCE = "arguments for force_quantparam option"
COPY = "arguments for copy_quantparam option"
AMPQ = "arguments for ampq option"
WEIGHTS = "arguments for quantize_weights option"
CHUNK = "arguments for quantize_weights_chunk option"
_EVAL = "Print {} of inference results between quantized model and fp32 model."


def _q(
    name: str, kind: Kind, text: str, *flags: str, group: str = QUANTIZATION, **more: Any
) -> Option:
    """A one-quantize option, in the quantization help group unless another is given."""
    return Option(name, kind, flags, text, group=group, **more)


QUANTIZE_OPTIONS = (
    *io_options(
        "full filepath of the input circle model file",
        "full filepath of the output circle model file",
    ),
    _q(
        "input_data",
        Kind.STR,
        "full filepath of the input data used for post-training quantization. if not "
        "specified, run with random input data.",
        "-d",
        "--input_data",
    ),
    _q(
        "input_data_format",
        Kind.RAW,
        "file format of input data. h5/hdf5 (default), list/filelist (a text file where a file "
        "path of input data is written in each line), dir/directory (a directory where input "
        "data are saved), or (one-cmds additions) npz (one array per input, records on the "
        "first axis) and npy (the records of a single-input model)",
        "-f",
        "--input_data_format",
    ),
    *profile_options(UTILITY),
    Option("save_intermediate", Kind.BOOL, help="Save intermediate files to output folder"),
    _q(
        "input_model_dtype",
        Kind.RAW,
        "input model data type (supported: float32, default=float32)",
    ),
    _q(
        "input_dtype",
        Kind.RAW,
        "input model data type (supported: float32, default=float32). Deprecated (Use "
        "input_model_dtype)",
        alias_of="input_model_dtype",
    ),
    _q(
        "quantized_dtype",
        Kind.RAW,
        "data type of output quantized model (supported: uint8, int16, int8 (one-cmds "
        "addition, for LiteRT), default=uint8)",
    ),
    _q(
        "granularity",
        Kind.RAW,
        "quantization granularity (supported: layer, channel, default=layer)",
    ),
    _q(
        "input_type",
        Kind.CSV,
        "data type of inputs of quantized model (supported: uint8, int16, int8, float32, "
        "default=quantized_dtype). QUANTIZE Op will be inserted at the beginning of the quantized "
        "model if input_type is different from quantized_dtype.",
    ),
    _q(
        "output_type",
        Kind.CSV,
        "data type of outputs of quantized model (supported: uint8, int16, int8, float32, "
        "default=quantized_dtype). QUANTIZE Op will be inserted at the end of the quantized model "
        "if output_type is different from quantized_dtype.",
    ),
    _q(
        "min_percentile",
        Kind.RAW,
        "minimum percentile (0.0~100.0, default=1.0). Algorithm parameter for calibration. This "
        "is valid when calibration algorithm is percentile.",
    ),
    _q(
        "max_percentile",
        Kind.RAW,
        "maximum percentile (0.0~100.0, default=99.0). Algorithm parameter for calibration. This "
        "is valid when calibration algorithm is percentile.",
    ),
    _q(
        "moving_avg_batch",
        Kind.RAW,
        "batch size of moving average (default=16). This is valid when calibration algorithm is "
        "moving_average.",
    ),
    _q(
        "moving_avg_const",
        Kind.RAW,
        "hyperparameter (C) to compute moving average (default=0.1). Update equation: avg <- avg "
        "+ C * (curr_batch_avg - avg). This is valid when calibration algorithm is "
        "moving_average.",
    ),
    _q(
        "mode",
        Kind.RAW,
        "calibration algorithm for post-training quantization (supported: "
        "percentile/moving_average/mse, default=percentile; mse for quantized_dtype=int8 unless "
        "min_percentile or max_percentile is given). 'percentile' mode uses the n-th "
        "percentiles as min/max values. 'moving_average' mode records the moving average of "
        "min/max. 'mse' (one-cmds addition) clips each 8-bit range where the squared error over "
        "the calibration data is least (a second pass over the records).",
    ),
    _q(
        "engine",
        Kind.CHOICE,
        "(one-cmds addition) what runs the model for calibration: 'litert' (LiteRT in process, "
        "XNNPACK), 'reference' (the project's interpreter) or 'auto' (default: LiteRT when it "
        "runs every operator of the model)",
        choices=("auto", "litert", "reference"),
    ),
    _q(
        "calibration_workers",
        Kind.RAW,
        "(one-cmds addition) with onecc --ray, calibrate the records on this many Ray actors "
        "of one CPU each; the ranges are those of a run in one process (a positive integer, "
        "default=1)",
    ),
    _q(
        "TF-style_maxpool",
        Kind.BOOL,
        "Force MaxPool Op to have the same input/output quantparams. NOTE: This option can "
        "degrade accuracy of some models.)",
    ),
    _q(
        "save_min_max",
        Kind.BOOL,
        "keep each quantized tensor's recorded min/max (after the calibration algorithm, before "
        "nudging) in its quantparam beside scale and zero point",
    ),
    _q(
        "bias_correction",
        Kind.BOOL,
        "(one-cmds addition) add to the bias of each CONV_2D, DEPTHWISE_CONV_2D and "
        "FULLY_CONNECTED the mean shift its quantized weights cause on the calibration data (one "
        "pass over the records before stage 1; default=False)",
    ),
    _q(
        "cross_layer_equalization",
        Kind.BOOL,
        "(one-cmds addition) before quantizing, rescale the channels between two convolutions "
        "(a ReLU or PReLU between them) so that each channel's weight range is the same in "
        "both (default=False)",
    ),
    _q("quant_config", Kind.STR, "Path to the quantization configuration file."),
    _q(
        "evaluate_result",
        Kind.BOOL,
        "Evaluate accuracy of quantized model. Run inference for both fp32 model and the "
        "quantized model, and compare the inference results.",
    ),
    _q("test_data", Kind.STR, "Path to the test data used for evaluation."),
    _q("print_mae", Kind.BOOL, _EVAL.format("MAE (Mean Absolute Error)")),
    _q("print_mape", Kind.BOOL, _EVAL.format("MAPE (Mean Absolute Percentage Error)")),
    _q("print_mpeir", Kind.BOOL, _EVAL.format("MPEIR (Mean Peak Error to Interval Ratio)")),
    _q("print_top1_match", Kind.BOOL, _EVAL.format("Top-1 match ratio")),
    _q("print_top5_match", Kind.BOOL, _EVAL.format("Top-5 match ratio")),
    _q("print_mse", Kind.BOOL, _EVAL.format("MSE (Mean Squared Error)")),
    _q(
        "force_quantparam",
        Kind.BOOL,
        "overwrite quantparam (scale, zero_point) to the specified tensor in the quantized model.",
        group=FORCE,
    ),
    _q("tensor_name", Kind.STR_LIST, "tensor name (string)", group=FORCE),
    _q("scale", Kind.FLOAT_LIST, "scale (float)", group=FORCE),
    _q("zero_point", Kind.INT_LIST, "zero point (int)", group=FORCE),
    _q(
        "copy_quantparam",
        Kind.BOOL,
        "copy quantparam (scale, zero_point) of a tensor to another tensor.",
        group=COPY,
    ),
    _q("src_tensor_name", Kind.STR_LIST, "tensor name (string)", group=COPY),
    _q("dst_tensor_name", Kind.STR_LIST, "tensor name (string)", group=COPY),
    _q(
        "fake_quantize",
        Kind.BOOL,
        "convert quantized model to fake-quantized fp32 model.",
        group="arguments for fake_quantize option",
    ),
    _q(
        "requantize",
        Kind.BOOL,
        "convert quantized model to another-typed quantized model (ex: int8 -> uin8).",
        group="arguments for requantize option",
    ),
    _q("ampq", Kind.BOOL, "quantize model using ampq solver.", group=AMPQ),
    _q("ampq_qerror_ratio", Kind.FLOAT, "quantization error ratio ([0, 1])", group=AMPQ),
    _q(
        "ampq_algorithm",
        Kind.CHOICE,
        "type of algorithm (bisection, pattern)",
        choices=("bisection", "pattern"),
        group=AMPQ,
    ),
    _q(
        "bisection_type",
        Kind.CHOICE,
        "one of 'auto', 'i16_front', 'i16_back'",
        choices=("auto", "i16_front", "i16_back"),
        group=AMPQ,
    ),
    _q(
        "u8_layernorm_with_s16_variance",
        Kind.BOOL,
        "Use int16 for computing variance in uint8 layer normalization",
        group=AMPQ,
    ),
    _q(
        "u8_softmax_with_s16_sub_exp",
        Kind.BOOL,
        "Use int16 for computing Sub and Exp nodes in uint8 Softmax",
        group=AMPQ,
    ),
    _q(
        "ampq_bisection_visq",
        Kind.STR,
        "'.visq.json' file path with quantization errors",
        group=AMPQ,
    ),
    _q(
        "quantize_weights",
        Kind.BOOL,
        "(one-cmds addition) quantize only the constant weights of CONV_2D, DEPTHWISE_CONV_2D "
        "and FULLY_CONNECTED (symmetric, per channel, or per block for int4 FULLY_CONNECTED); "
        "activations stay float32. quantized_dtype: int8 (default), int16 or int4; "
        "granularity: channel (default) or block (int4 only).",
        group=WEIGHTS,
    ),
    _q(
        "block_size",
        Kind.RAW,
        "(one-cmds addition) elements per block of granularity=block: 32 (default), 64 or 128",
        group=WEIGHTS,
    ),
    _q(
        "quantize_weights_chunk",
        Kind.RAW,
        "(one-cmds addition) convert the float32 constant weights of FULLY_CONNECTED and the "
        "embeddings of GATHER to GGML blocks of 32 elements (supported: q4_0, q8_0); "
        "activations stay float32.",
        group=CHUNK,
    ),
    _q(
        "skip_chunkquant_size",
        Kind.RAW,
        "(one-cmds addition) keep weights with fewer elements than this float32 (a "
        "non-negative integer, default=0)",
        group=CHUNK,
    ),
)

PACK_OPTIONS = io_options(
    "full filepath of the input file",
    "full filepath of the output file",
    "arguments for packaging",
)

PARTITION_OPTIONS = (
    Option("backends", Kind.STR, help="backends in CSV to use for partitioning"),
    Option("default", Kind.STR, help="default backend to assign"),
    Option(
        "part_file",
        Kind.STR,
        help="partition file which provides backend to assign",
        required=True,
    ),
    Option("input_file", Kind.STR, help="input circle model filename", required=True),
    Option(
        "work_path",
        Kind.STR,
        help="work path of partition, input files exist and output files are produced",
    ),
)

INFER_OPTIONS = (
    Option(
        "driver",
        Kind.STR,
        ("-d", "--driver"),
        "backend inference driver name to execute",
        required=True,
    ),
    Option(
        "post_process",
        Kind.STR,
        ("--post-process",),
        "post processing python script and arguments which can be used to convert I/O data "
        "to standard format",
    ),
    Option("command", Kind.STR, cli=False),
)

# Keys of the reference drivers this project does not run as such (§17.7), and the legacy
# ``all`` of [one-optimize]: in a section of a step this project runs they have no effect.
REFERENCE_ONLY_KEYS = frozenset(
    {
        "backend",
        "backends",
        "command",
        "default",
        "part_file",
        "input_file",
        "work_path",
        "driver",
        "post_process",
        "post-process",
    }
)
LEGACY_OPTIMIZE_KEYS = frozenset({"all"})
