"""The Python API: load, save, build, resize, optimize, quantize. Its arguments go through
the configuration's checks (``config``) like a section's keys, then to the stages."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .errors import ConfigError
from .formats import reader, writer
from .ir import Model
from .pipeline.run import run_plan
from .report.console import warn
from .stages.stage import StepResult


def load(path: str | os.PathLike[str], **tf_options: Any) -> Model:
    """Read a ``.tflite`` or ``.circle`` file (format from its identifier), or import an
    ``.onnx`` file with the default options of ``one-import-onnx``, a PyTorch
    ExportedProgram (``.pt2``, by content) as ``one-import-pytorch`` does, or a TensorFlow
    model (a SavedModel folder, a ``.pb``/``.pbtxt`` GraphDef, a ``.h5``/``.hdf5``/``.keras``
    Keras file) as ``one-import-tf`` does, into a Model.

    ``tf_options`` are ``[one-import-tf]`` keys for a TensorFlow model: a GraphDef needs
    ``input_arrays`` and ``output_arrays`` (``load("m.pb", input_arrays="x",
    output_arrays="y", input_shapes="1,4")``); ``model_format`` defaults to the path's kind.
    Origins and the source md5 are stamped as an import step does.
    """
    from .frontends.tensorflow import model_format_of

    path = os.fspath(path)
    model_format = model_format_of(path)
    if model_format is not None:
        return _load_tf(path, model_format, tf_options)
    if tf_options:
        raise ConfigError(f"options of one_cmds.load() apply to TensorFlow models: {path}")
    if reader.is_onnx(path):
        from .frontends.onnx import import_onnx

        return import_onnx(path, warn=warn)
    from .frontends.pytorch.kinds import Kind, input_kind

    if input_kind(path) is Kind.EXPORTED_PROGRAM:
        from .frontends.pytorch import import_pytorch

        return import_pytorch(path, warn=warn).model
    return reader.load(path, warn=warn)


def _load_tf(path: str, model_format: str, options: dict[str, Any]) -> Model:
    """A TensorFlow model imported with ``options`` checked as a ``[one-import-tf]``
    section."""
    from .config.resolve import build_options, convert_values
    from .config.source import Source
    from .frontends.tensorflow import import_tf

    source = Source(place="one_cmds.load()")
    raw = {"input_path": path, "output_path": "<memory>", "model_format": model_format}
    raw.update(options)
    settings = convert_values("one-import-tf", raw, source)
    step = build_options("one-import-tf", main=source, section=settings)
    return import_tf(path, step.tf_options()).model  # type: ignore[attr-defined]


def save(model: Model, path: str | os.PathLike[str], profile: bool = False) -> int:
    """Write ``model`` as circle, or TFLite when ``path`` ends in ``.tflite``; return the size.

    ``profile=True`` adds ``ONE_source_table``, ``ONE_op_table`` and ``ONE_source_md5``.
    """
    return writer.save(model, os.fspath(path), profile=profile)


def build(
    config_path: str | os.PathLike[str],
    *,
    optimization: str | None = None,
    verbose: bool = False,
    **overrides: dict[str, Any],
) -> list[StepResult]:
    """Run a configuration like ``onecc -C config_path`` and return the per-step results.

    Each keyword names a section (``one_optimize`` for ``[one-optimize]``) and maps option
    names to values that take precedence over the file, like command-line options;
    ``optimization`` is the ``-O`` group name. ``[Environment]`` values apply during the call
    only.
    """
    from .config.load import plan_from_config

    cli = {section.replace("_", "-"): dict(values) for section, values in overrides.items()}
    plan = plan_from_config(os.fspath(config_path), cli=cli, optimization=optimization)
    return run_plan(plan, verbose=verbose)


def optimize(model: Model, passes: Sequence[str] | str = (), **options: Any) -> Model:
    """Return an optimized copy of ``model`` (sharing its weights); ``model`` is untouched.

    ``passes`` names ``one-optimize`` passes (or is ``"O1"``, or holds ``"O1"`` among them);
    ``options`` are the step's other options and per-pass switches, as in a
    ``[one-optimize]`` section: ``change_outputs=["a", "b"]``, ``disable_validation=True``,
    ``verify=True``, ``fold_add_v2=False`` (an explicit switch overrides O1). Unknown names
    raise :class:`~one_cmds.errors.ConfigError` with the closest valid name.
    """
    from .config.resolve import OPTIMIZE, build_options, convert_values
    from .config.source import Source
    from .stages.optimize import optimize as run_passes

    names = [passes] if isinstance(passes, str) else list(passes)
    source = Source(place="one_cmds.optimize()")
    raw: dict[str, object] = {"input_path": "<memory>", "output_path": "<memory>"}
    raw.update(dict.fromkeys(names, True))
    raw.update(options)
    settings = convert_values(OPTIMIZE, raw, source)
    return run_passes(model, build_options(OPTIMIZE, main=source, section=settings), copy=True)


def quantize(model: Model, **options: Any) -> Model:
    """Return a quantized copy of ``model`` (``one-quantize``: the default pipeline, or the
    mode the keys select).

    ``options`` are ``[one-quantize]`` keys: ``quantized_dtype="uint8"`` (or ``"int16"``,
    ``"int8"``), ``granularity="layer"`` (or ``"channel"``), ``input_data``/
    ``input_data_format`` (random records when absent), ``mode``, ``min_percentile``,
    ``input_type="float32"``, ...; weights only: ``quantize_weights=True`` with
    ``quantized_dtype="int8"|"int16"|"int4"`` and ``granularity="channel"|"block"``
    (``block_size``), ``quantize_weights_chunk="q4_0"|"q8_0"`` (GGML blocks).
    """
    from .config.resolve import build_options, convert_values
    from .config.source import Source
    from .stages.quantize import IN_MEMORY, run_quantize_step

    source = Source(place="one_cmds.quantize()")
    raw: dict[str, object] = {"input_path": IN_MEMORY, "output_path": IN_MEMORY, **options}
    settings = convert_values("one-quantize", raw, source)
    step_options = build_options("one-quantize", main=source, section=settings)
    return run_quantize_step(model.copy(), step_options)


def resize(model: Model, shapes: str | Sequence[Sequence[int | None]]) -> Model:
    """Return a resized copy of ``model`` (prints nothing).

    ``shapes`` is the CLI string form (``"[1,3,4],[2]"``) or one sequence of ints per input,
    where ``-1`` or None marks an unknown dimension and ``()`` a scalar.
    """
    from .config.shapes import shapes_of
    from .stages.resize import resize as resize_model

    return resize_model(model, shapes_of(shapes))
