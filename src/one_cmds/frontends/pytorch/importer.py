"""``one-import-pytorch`` (tf-and-pytorch-import.md §5): a PyTorch model file loaded, exported
to ONNX and imported by the ONNX front end; the md5 is the model file's. The weights are
handed from torch to the front end as views (:mod:`.export`): the imported model's weights
are torch's own tensors until the circle is written."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import onnx

from ...errors import OneCmdsError
from ...extras import PYTORCH_EXTRA
from ...formats.files import open_model_bytes, source_md5
from ...ir import Model
from ...report.chatter import caught_output, cause_line, full_text, logged_exceptions
from ..onnx.importer import import_source
from ..onnx.loader import prepare_source
from ..onnx.options import OnnxOptions

# torch's text for a member its archive reader cannot find
_MISSING_MEMBER = re.compile(r"PytorchStreamReader failed locating file (\S+): file not found")
# and for a class a TorchScript archive names but does not define
_UNKNOWN_TYPE = re.compile(r"Unknown type name '(__torch__[\w.]*)'")


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
    from .export import described_inputs, export_onnx
    from .loading import PythonFile, load_model

    warn, note = warn or _ignore, note or _ignore
    data = open_model_bytes(path)  # `Failed to open file` before torch runs
    python_file = PythonFile.read(python_path) if python_path else None
    what, held = f"Failed to load the model ({path})", []
    try:
        with caught_output(note), logged_exceptions("torch.export") as logged:
            loaded = load_model(path, python_file)
            given = described_inputs(loaded.model, input_shapes, input_types)
            what = f"Failed to export the model ({path})" + (f" with {given}" if given else "")
            exported = export_onnx(loaded, input_shapes, input_types, held.append, keep_onnx)
    except OneCmdsError:
        raise
    except Exception as e:
        raise _failed(e, logged, note, path, what) from None
    finally:  # said once torch's output is no longer caught
        for line in held:
            warn(line)
    source = prepare_source(exported.model, path, source_md5(data), weights=exported.weights)
    model = import_source(source, onnx_options, warn=warn, note=note)
    return PytorchImport(model, exported.whole)


def _failed(
    error: Exception,
    logged: list[BaseException],
    note: Callable[[str], None],
    path: str,
    what: str,
) -> Exception:
    """torch's exception as one line, ``<what>: <its cause>`` (:func:`cause_line`), the cause
    being the exception torch logged when it points at "the warnings above"; a member missing
    from the archive is named as such. The full text and traceback go to the step log."""
    from .loading import PytorchImportError

    for line in full_text(error):
        note(line)
    cause = logged[-1] if logged and "warnings above" in str(error) else error
    if missing := _MISSING_MEMBER.search(str(cause)):
        reason = f"a damaged archive: no member {missing[1]}"
        return PytorchImportError(f"Invalid input file: {path} ({reason})")
    if unknown := _UNKNOWN_TYPE.search(str(cause)):
        reason = f"a TorchScript archive without its code: '{unknown[1]}' is not defined in it"
        return PytorchImportError(f"Invalid input file: {path} ({reason})")
    return PytorchImportError(f"{what}: {cause_line(cause)}")
