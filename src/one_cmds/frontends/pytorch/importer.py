"""``one-import-pytorch`` (tf-and-pytorch-import.md §5): a PyTorch model file loaded, exported
to ONNX and imported by the ONNX front end; the md5 is the model file's.

The export goes to a temporary folder (beside the output when the step has one) that is gone
when the import returns: torch's objects are freed before the ONNX front end runs, and the
weights the circle model keeps are views of the mapped (then unlinked) external data file,
so the largest model in memory at any time is torch's own."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import onnx

from ...errors import OneCmdsError
from ...extras import PYTORCH_EXTRA
from ...formats.files import open_model_bytes, source_md5
from ...ir import Model
from ...report.chatter import caught_output, full_text, one_line
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
    workdir: str | None = None,
    keep_onnx: bool = False,
) -> PytorchImport:
    """Import the PyTorch model file ``path``; ``note`` hears torch's output and the ``-V``
    listing; the exported ONNX files are made in a temporary folder inside ``workdir``."""
    for requirement in PYTORCH_EXTRA:
        requirement.load()
    from .export import export_onnx
    from .loading import PythonFile, load_model

    warn, note = warn or _ignore, note or _ignore
    data = open_model_bytes(path)  # `Failed to open file` before torch runs
    python_file = PythonFile.read(python_path) if python_path else None
    with tempfile.TemporaryDirectory(prefix=".one-import-pytorch-", dir=workdir) as folder:
        exported = os.path.join(folder, "model.onnx")
        try:
            with caught_output(note):
                export_onnx(load_model(path, python_file), input_shapes, input_types, warn,
                            exported)  # fmt: skip
        except OneCmdsError:
            raise
        except Exception as e:
            raise _failed(e, note) from None
        release_freed_memory()
        proto = onnx.load(exported, load_external_data=False)
        source = prepare_source(proto, path, source_md5(data), data_folder=folder)
        kept = onnx.load(exported) if keep_onnx else None
    return PytorchImport(import_source(source, onnx_options, warn=warn, note=note), kept)


def release_freed_memory() -> None:
    """Collect torch's objects and hand the freed heap back to the system (glibc keeps it
    otherwise), so the import after the export starts from torch's baseline."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _failed(error: Exception, note: Callable[[str], None]) -> Exception:
    """torch's exception as one line (its full text and traceback to the step log)."""
    from .loading import PytorchImportError

    for line in full_text(error):
        note(line)
    return PytorchImportError(one_line(error))
