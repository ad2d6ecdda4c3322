"""Option tables of the import drivers that lower a foreign format: ``one-import-onnx``
(onnx-import.md §2) and ``one-import-pytorch`` (tf-and-pytorch-import.md §5.1)."""

from __future__ import annotations

from typing import Any

from one_cmds.config.tables import Option, io_options, profile_options
from one_cmds.config.values import Kind

CONVERTER = "converter arguments"
EXTENSION = "extension arguments"
_IGNORED = " (no effect in one-cmds: ignored with a warning)"


def _ignored(name: str, kind: Kind, text: str, *flags: str, **more: Any) -> Option:
    """A reference option of ``one-import-onnx`` that this importer has no use for."""
    return Option(name, kind, flags, text + _IGNORED, ignored=True, stored=False, **more)


_SHAPES_HELP = (
    "shapes of the graph {0}s: [d,...] per {0} in order, or name[d,...] for some of them, "
    "comma-separated; -1 keeps a dimension unknown"
)

# The reference's intermediate format and converter (fixed there, without use here).
_CONVERTER_FORMAT = (
    _ignored("model_format", Kind.STR, "format of the intermediate model", group=CONVERTER),
    _ignored("converter_version", Kind.STR, "version of the TFLite converter", group=CONVERTER),
)
_UNROLL = (
    Option("unroll_rnn", Kind.BOOL, help="Unroll RNN operators"),
    Option("unroll_lstm", Kind.BOOL, help="Unroll LSTM operators"),
)
_BATCHMATMUL = Option(
    "experimental_disable_batchmatmul_unfold",
    Kind.BOOL,
    help="Experimental disable BatchMatMul unfold",
)
_FLOAT32_WEIGHTS = Option(
    "float32_weights",
    Kind.BOOL,
    help="(one-cmds addition) write float16 and bfloat16 weights as FLOAT32 constants (by "
    "default they stay FLOAT16 behind a DEQUANTIZE; bfloat16 converted to float16)",
)
_NCHW_TO_NHWC = (
    Option(
        "nchw_to_nhwc_input_shape",
        Kind.BOOL,
        help="(one-cmds addition) convert the input shape of the model from NCHW to NHWC where "
        "the input is only "
        "read through the layout TRANSPOSE",
    ),
    Option(
        "nchw_to_nhwc_output_shape",
        Kind.BOOL,
        help="(one-cmds addition) convert the output shape of the model from NCHW to NHWC where "
        "the output is only "
        "written by the layout TRANSPOSE",
    ),
)

IMPORT_ONNX_OPTIONS = (
    *io_options("full filepath of the input file", "full filepath of the output file", CONVERTER),
    _ignored(
        "input_arrays",
        Kind.STR,
        "names of the input arrays, comma-separated",
        "-I",
        "--input_arrays",
        group=CONVERTER,
    ),
    _ignored(
        "output_arrays",
        Kind.STR,
        "names of the output arrays, comma-separated",
        "-O",
        "--output_arrays",
        group=CONVERTER,
    ),
    *_CONVERTER_FORMAT,
    *_UNROLL,
    Option(
        "keep_io_order",
        Kind.BOOL,
        help="Ensure generated circle model preserves the I/O order of the original onnx model.",
    ),
    Option(
        "disable_ext",
        Kind.BOOL,
        help="never run one-import-onnx-ext (installed beside this program), not even when "
        "the built-in import fails",
        group=EXTENSION,
        exclusive="ext",
    ),
    Option(
        "force_ext",
        Kind.BOOL,
        help="run one-import-onnx-ext (installed beside this program) instead of the built-in "
        "importer",
        group=EXTENSION,
        exclusive="ext",
    ),
    Option(
        "save_intermediate",
        Kind.BOOL,
        help="also write the imported model as <output base>.tflite beside the output",
    ),
    _BATCHMATMUL,
    _FLOAT32_WEIGHTS,
    Option("input_shapes", Kind.IO_SHAPES, help=_SHAPES_HELP.format("input")),
    Option("output_shapes", Kind.IO_SHAPES, help=_SHAPES_HELP.format("output")),
    Option(
        "dynamic_batch_to_single_batch",
        Kind.BOOL,
        help="convert dynamic batch size (first dimension) of inputs to 1",
    ),
    *_NCHW_TO_NHWC,
    Option(
        "disable_transpose_propagation",
        Kind.BOOL,
        help="(one-cmds addition) keep the TRANSPOSEs lowered around layout-sensitive "
        "operators (debugging; results unchanged)",
    ),
    *profile_options(),
)

# tf-and-pytorch-import.md §5.1: ``-p`` is ``python_path``, so profiling is a key only.
IMPORT_PYTORCH_OPTIONS = (
    *io_options("full filepath of the input file", "full filepath of the output file", CONVERTER),
    Option(
        "python_path",
        Kind.STR,
        ("-p", "--python_path"),
        "full filepath of the python model file (the class of a pickled model)",
        group=CONVERTER,
    ),
    Option(
        "input_shapes",
        Kind.TORCH_SHAPES,
        ("-s", "--input_shapes"),
        "shapes of the inputs: dims separated by ',', inputs by ':'; -1 or a name marks a "
        "dynamic dimension (batch,3,224,224:batch,10)",
        group=CONVERTER,
    ),
    Option(
        "input_types",
        Kind.TORCH_TYPES,
        ("-t", "--input_types"),
        "types of the inputs, separated by ',' (float32,int64)",
        group=CONVERTER,
    ),
    *_UNROLL,
    *_CONVERTER_FORMAT,
    Option("save_intermediate", Kind.BOOL, help="Save the exported ONNX model beside the output"),
    _BATCHMATMUL,
    _FLOAT32_WEIGHTS,
    *_NCHW_TO_NHWC,
    *profile_options(flags=("--generate_profile_data",)),  # -p is --python_path here
)
