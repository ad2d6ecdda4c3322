"""``one-import-tf`` and ``one-import-bcq`` (tf-and-pytorch-import.md §3, §4): the model
converted in process by TensorFlow into TFLite bytes, read by the TFLite reader; origins from
the TensorFlow node names the converter records, the md5 of the source file (§2.4).

TensorFlow loads here, after the input is checked, with its C++ log level set first (2, or 0
with ``-V``, unless already set); what it prints goes to ``note`` (the step log)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ...errors import OneCmdsError
from ...extras import TENSORFLOW
from ...formats.files import source_md5
from ...formats.reader import load_bytes
from ...ir import Model
from ...report.chatter import caught_output, cause_line, full_text, one_line
from .errors import TfImportError
from .inputs import source_bytes
from .options import TfOptions

Note = Callable[[str], None]
_PORT = re.compile(r":\d+$")
CONVERTER_ERROR = "ConverterError"


@dataclass
class TfImport:
    """The imported model and TensorFlow's TFLite conversion it was read from."""

    model: Model
    tflite: bytes


def _ignore(line: str) -> None:
    return None


def import_tf(
    path: str,
    options: TfOptions | None = None,
    *,
    note: Note | None = None,
    verbose: bool = False,
) -> TfImport:
    """Import the TensorFlow model at ``path`` (a GraphDef, SavedModel folder or Keras file,
    as ``options.model_format`` says)."""
    options = options or TfOptions()
    data = source_bytes(path, options.model_format)
    return _imported(path, data, lambda c, _: c.loaded(path, data, options), None, note, verbose)


def import_bcq(
    path: str,
    options: TfOptions,
    *,
    warn: Note | None = None,
    note: Note | None = None,
    verbose: bool = False,
) -> TfImport:
    """Import the GraphDef at ``path`` with its BCQ information (§4.3): output 0 the
    metadata, then the user's outputs, then the bundles for ``fuse_bcq``."""
    data = source_bytes(path, "graph_def")
    return _imported(
        path, data, lambda c, w: c.bcq_loaded(path, data, options, w), warn, note, verbose
    )


def _imported(
    path: str,
    data: memoryview | bytes,
    load: Callable[[ModuleType, Note], Any],
    warn: Note | None,
    note: Note | None,
    verbose: bool,
) -> TfImport:
    """Load TensorFlow, then the model (``load(<the convert module>, <warn>)``), then convert
    it: TensorFlow's output goes to ``note``, the warnings to ``warn`` once it is done. Its
    errors become one line: the converter's as the reference prints them (*E*, §3.2 row 12),
    the others ``Failed to load|convert the model (<path>): <cause>``. The result is read and
    stamped."""
    warn, note, held = warn or _ignore, note or _ignore, []
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "0" if verbose else "2")
    what = "Failed to load the model"
    try:
        with caught_output(note):
            TENSORFLOW.load()
            from . import convert as module

            loaded = load(module, held.append)
            what = "Failed to convert the model"
            tflite = module.convert(loaded)
    except OneCmdsError:
        raise
    except Exception as e:
        for line in full_text(e):
            note(line)
        if type(e).__name__ == CONVERTER_ERROR:
            raise TfImportError(one_line(e)) from None
        raise TfImportError(f"{what} ({path}): {cause_line(e)}") from None
    finally:
        for line in held:
            warn(line)
    model = load_bytes(tflite, path)
    stamp_origins(model)
    model.defer_source_md5(lambda: source_md5(data))
    return TfImport(model, tflite)


def stamp_origins(model: Model) -> None:
    """Per operator of subgraph 0, a source per TensorFlow node named in its first output's
    name (split at ``;``, ports removed, empty parts dropped; the whole name when none is
    left), ids by first appearance."""
    sources: dict[str, int] = {}
    for op in model.main.operators:
        name = op.outputs[0].name if op.outputs else ""
        parts = [p for p in (_PORT.sub("", part) for part in name.split(";")) if p] or [name]
        op.origin = frozenset(sources.setdefault(part, len(sources)) for part in parts)
    model.source_table = {index: name for name, index in sources.items()}
