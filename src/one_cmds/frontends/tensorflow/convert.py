"""TensorFlow's converter, in process, with the reference's API and settings
(tf-and-pytorch-import.md §1, §3.3): TFLite bytes in memory.

* graph_def: v1 ``tf.compat.v1.lite.TFLiteConverter(graph_def, inputs, outputs)`` as
  ``from_frozen_graph`` builds it (for ops unknown to TensorFlow its
  ``input_arrays_with_shape`` form); v2 ``wrap_function`` + ``prune`` and
  ``from_concrete_functions``;
* saved_model: ``from_saved_model`` of the version's converter;
* keras_model: ``tf.keras.models.load_model(path, compile=False)``, ``from_keras_model``.

Every converter allows custom ops; 2.x also takes ``supported_ops = [TFLITE_BUILTINS]`` and
``_experimental_disable_batchmatmul_unfold``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

from ...report.chatter import cause_line
from .bcq import with_bcq_outputs
from .errors import TfFileError, TfImportError
from .graphdef import parse_graph_def, prepare
from .options import TfOptions

Converter = Any  # tf.lite.TFLiteConverter or its 1.x counterpart
KERAS_VERSION = {"converter_version": "v2"}


@dataclass
class Loaded:
    """A model loaded into its converter, and the options it converts with."""

    converter: Converter
    options: TfOptions


def loaded(path: str, data: memoryview | bytes, options: TfOptions) -> Loaded:
    """The converter of the model at ``path`` (``data``: its GraphDef file's bytes)."""
    if options.model_format == "saved_model":
        return Loaded(saved_model_converter(path, options), options)
    if options.model_format == "keras_model":
        return Loaded(keras_converter(path), options.model_copy(update=KERAS_VERSION))
    return Loaded(graph_def_converter(parse_graph_def(data, path), options), options)


def bcq_loaded(
    path: str, data: memoryview | bytes, options: TfOptions, warn: Callable[[str], None]
) -> Loaded:
    """The converter of the GraphDef at ``path`` with its BCQ metadata and bundles."""
    graph_def = parse_graph_def(data, path, text=False)
    outputs = with_bcq_outputs(graph_def, options.output_arrays or [], path, warn)
    converting = options.model_copy(update={"output_arrays": outputs})
    return Loaded(graph_def_converter(graph_def, converting), converting)


def convert(loaded: Loaded) -> bytes:
    """Run the converter with the settings of its options' converter version."""
    converter, options = loaded.converter, loaded.options
    converter.allow_custom_ops = True
    if options.converter_version == "v2":
        converter.experimental_new_converter = True
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
        if options.experimental_disable_batchmatmul_unfold:
            converter._experimental_disable_batchmatmul_unfold = True
    return converter.convert()


def graph_def_converter(graph_def: tf.compat.v1.GraphDef, options: TfOptions) -> Converter:
    """The converter of a GraphDef with the options' arrays and shapes."""
    if options.converter_version == "v1":
        return _v1_graph_def(graph_def, options)
    return _v2_graph_def(graph_def, options)


def _v1_graph_def(graph_def: tf.compat.v1.GraphDef, options: TfOptions) -> Converter:
    graph = tf.Graph()
    with graph.as_default():
        try:
            tf.compat.v1.import_graph_def(graph_def, name="")
        except tf.errors.NotFoundError:
            return _v1_unknown_ops(graph_def, options)
        inputs, outputs = prepare(graph, *_arrays(options))
        _record_graph_def_model_type()
        return tf.compat.v1.lite.TFLiteConverter(graph.as_graph_def(), inputs, outputs)


def _record_graph_def_model_type() -> None:
    """Record the model type ``from_frozen_graph`` records (``TF_GRAPH_DEF``) for the next
    conversion's CONVERSION_METADATA, as it does."""
    from tensorflow.lite.python import conversion_metadata_schema_py_generated as metadata
    from tensorflow.lite.python.lite import TFLiteConverterBase

    TFLiteConverterBase._set_original_model_type(metadata.ModelType.TF_GRAPH_DEF)


def _v1_unknown_ops(graph_def: tf.compat.v1.GraphDef, options: TfOptions) -> Converter:
    """A GraphDef with ops TensorFlow does not know (custom ops): named arrays and shapes."""
    names, outputs, shapes = _arrays(options)
    if not shapes:
        raise TfImportError("ValueError: input_shapes must be defined for this model.")
    _record_graph_def_model_type()
    return tf.compat.v1.lite.TFLiteConverter(
        graph_def,
        None,
        None,
        input_arrays_with_shape=[(n, list(s)) for n, s in zip(names, shapes, strict=True)],
        output_arrays=list(outputs),
    )


def _v2_graph_def(graph_def: tf.compat.v1.GraphDef, options: TfOptions) -> Converter:
    def imports() -> None:
        tf.compat.v1.import_graph_def(graph_def, name="")

    wrapped = tf.compat.v1.wrap_function(imports, [])
    inputs, outputs = prepare(wrapped.graph, *_arrays(options))
    return tf.lite.TFLiteConverter.from_concrete_functions([wrapped.prune(inputs, outputs)])


def _arrays(options: TfOptions) -> tuple[list[str], list[str], Any]:
    return options.input_arrays or [], options.output_arrays or [], options.input_shapes


def saved_model_converter(path: str, options: TfOptions) -> Converter:
    if options.converter_version == "v1":
        return tf.compat.v1.lite.TFLiteConverter.from_saved_model(path)
    return tf.lite.TFLiteConverter.from_saved_model(path)


def keras_converter(path: str) -> Converter:
    """The 2.x converter of a Keras file (1.x ``from_keras_model_file`` fails on Keras 3)."""
    if path.lower().endswith(".keras") and not zipfile.is_zipfile(path):
        # Keras says "File not found" for a damaged archive
        raise TfFileError(f"Invalid input file: {path} (not a Keras model: not a zip archive)")
    try:
        model = tf.keras.models.load_model(path, compile=False)
    except Exception as e:
        reason = f"not a Keras model: {cause_line(e)}"
        raise TfFileError(f"Invalid input file: {path} ({reason})") from None
    return tf.lite.TFLiteConverter.from_keras_model(model)
