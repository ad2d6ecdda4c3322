"""Option tables of ``one-import-tf`` and ``one-import-bcq`` (tf-and-pytorch-import.md §3.1,
§4.2). The converter version and model format are keys (``converter_version``,
``model_format``, hidden flags as in the reference) and flags ``--v1``/``--v2``,
``--graph_def``/``--saved_model``/``--keras_model`` (also keys): the verification folds them
into the two keys."""

from __future__ import annotations

from one_cmds.config.import_tables import CONVERTER
from one_cmds.config.tables import Option, io_options, profile_options
from one_cmds.config.values import Kind

VERSIONS = ("v1", "v2")
FORMATS = ("graph_def", "saved_model", "keras_model")


def _flag(name: str, text: str, exclusive: str) -> Option:
    """A flag that selects the value ``name`` of the key ``exclusive``."""
    return Option(name, Kind.BOOL, help=text, group=CONVERTER, exclusive=exclusive, stored=False)


def _arrays(*, required: bool) -> tuple[Option, ...]:
    return (
        Option(
            "input_arrays",
            Kind.CSV,
            ("-I", "--input_arrays"),
            "names of the input arrays, comma-separated",
            CONVERTER,
            required,
        ),
        Option(
            "input_shapes",
            Kind.STR,
            ("-s", "--input_shapes"),
            'shapes corresponding to --input_arrays, colon-separated (ex:"1,4,4,3:1,20,20,3")',
            CONVERTER,
        ),
        Option(
            "output_arrays",
            Kind.CSV,
            ("-O", "--output_arrays"),
            "names of the output arrays, comma-separated",
            CONVERTER,
            required,
        ),
    )


_VERSION = (
    _flag("v1", "use TensorFlow Lite Converter 1.x", "converter_version"),
    _flag("v2", "use TensorFlow Lite Converter 2.x", "converter_version"),
    Option("converter_version", Kind.STR, hidden=True),
)
_FORMAT_KEY = Option("model_format", Kind.STR, hidden=True)
_COMMON = (
    Option("save_intermediate", Kind.BOOL, help="Save intermediate files to output folder"),
    Option(
        "experimental_disable_batchmatmul_unfold",
        Kind.BOOL,
        help="Experimental disable BatchMatMul unfold (2.x converter)",
    ),
    *profile_options(),
)

IMPORT_TF_OPTIONS = (
    *io_options("full filepath of the input file", "full filepath of the output file", CONVERTER),
    *_VERSION,
    _flag("graph_def", "use graph def file(default)", "model_format"),
    _flag("saved_model", "use saved model", "model_format"),
    _flag("keras_model", "use keras model", "model_format"),
    _FORMAT_KEY,
    *_arrays(required=False),
    *_COMMON,
)

IMPORT_BCQ_OPTIONS = (
    *io_options("full filepath of the input file", "full filepath of the output file", CONVERTER),
    *_VERSION,
    _FORMAT_KEY,
    *_arrays(required=True),
    *_COMMON,
)
