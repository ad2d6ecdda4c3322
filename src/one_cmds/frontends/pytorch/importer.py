"""``one-import-pytorch`` (tf-and-pytorch-import.md §5): a PyTorch model file loaded, exported
to ONNX and imported by the ONNX front end; the md5 is the model file's. The weights are
handed from torch to the front end as views (:mod:`.export`): the imported model's weights
are torch's own tensors until the circle is written."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import onnx

from ...errors import OneCmdsError
from ...extras import PYTORCH_EXTRA
from ...formats.files import open_model_bytes, source_md5
from ...ir import Model
from ...report.chatter import LIMIT, caught_output, full_text
from ..onnx.importer import import_source
from ..onnx.loader import prepare_source
from ..onnx.options import OnnxOptions


@dataclass
class PytorchImport:
    """The imported model and (when asked for) the ONNX model it was imported from, with its
    weights inside."""

    model: Model
    onnx_model: onnx.ModelProto | None = None


def _ignore(line: str) -> None:
    return None


def import_pytorch(
    path: str,
    *,
    python_path: str | None = None,
    input_shapes: Sequence[tuple[int | str | None, ...]] = (),
    input_types: Sequence[str] = (),
    onnx_options: OnnxOptions | None = None,
    warn: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
    keep_onnx: bool = False,
) -> PytorchImport:
    """Import the PyTorch model file ``path``; ``note`` hears torch's output and the ``-V``
    listing; ``keep_onnx`` keeps the whole exported ONNX model (``save_intermediate``)."""
    for requirement in PYTORCH_EXTRA:
        requirement.load()
    from .export import export_onnx
    from .loading import PythonFile, load_model

    warn, note = warn or _ignore, note or _ignore
    data = open_model_bytes(path)  # `Failed to open file` before torch runs
    python_file = PythonFile.read(python_path) if python_path else None
    what = "Failed to load the model"
    try:
        with caught_output(note):
            loaded = load_model(path, python_file)
            what = "Failed to export the model"
            exported = export_onnx(loaded, input_shapes, input_types, warn, keep_onnx)
    except OneCmdsError:
        raise
    except Exception as e:
        raise _failed(e, note, f"{what} ({path})") from None
    source = prepare_source(exported.model, path, source_md5(data), weights=exported.weights)
    model = import_source(source, onnx_options, warn=warn, note=note)
    return PytorchImport(model, exported.whole)


def _failed(error: Exception, note: Callable[[str], None], what: str) -> Exception:
    """torch's exception as one line, ``<what>: <the innermost cause's type>: <its message's
    last line>`` (where torch puts the reason); its full text and traceback to the step
    log."""
    from .loading import PytorchImportError

    for line in full_text(error):
        note(line)
    cause = error
    while cause.__cause__ is not None:
        cause = cause.__cause__
    lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
    reason = f"{type(cause).__name__}: {lines[-1]}" if lines else type(cause).__name__
    return PytorchImportError(f"{what}: {reason[:LIMIT]}")
