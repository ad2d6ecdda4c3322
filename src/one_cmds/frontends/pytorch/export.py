"""A loaded PyTorch model exported to ONNX with torch.onnx's dynamo exporter
(tf-and-pytorch-import.md §5.4): inputs ``torch.ones`` of the given shapes and types, dynamic
dimensions of size 2 with ``torch.export.Dim`` specs; TorchScript through an ExportedProgram,
or torch's TorchScript exporter when that conversion fails.

The weights are handed over, not serialized: the ``ModelProto`` holds each initializer's name,
type and dims only, and its values are numpy views of torch's own tensors, so no step holds a
second copy of a multi-GB model. torch's ONNX optimizer is skipped (the front end folds
constants itself, in a fraction of the time)."""

from __future__ import annotations

import inspect
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import onnx
import torch

from .kinds import Kind
from .loading import Loaded

Dims = tuple[int | str | None, ...]
# The size of a dynamic dimension in the example inputs (torch.export specializes 0 and 1).
DYNAMIC_SIZE = 2


def example_inputs(shapes: Sequence[Dims], types: Sequence[str]) -> tuple[torch.Tensor, ...]:
    """``torch.ones`` per input, dynamic dimensions of size 2."""
    return tuple(
        torch.ones(
            [d if isinstance(d, int) else DYNAMIC_SIZE for d in shape],
            dtype=getattr(torch, dtype),
        )
        for shape, dtype in zip(shapes, types, strict=True)
    )


def dynamic_shapes(shapes: Sequence[Dims]) -> tuple[dict[int, object] | None, ...]:
    """Per input ``{axis: Dim}`` for its dynamic axes (one ``Dim`` per name; ``Dim.DYNAMIC``
    for ``-1``), None for a static input."""
    named: dict[str, object] = {}
    specs: list[dict[int, object] | None] = []
    for shape in shapes:
        axes = {}
        for axis, d in enumerate(shape):
            if isinstance(d, str):
                axes[axis] = named.setdefault(d, torch.export.Dim(d))
            elif d is None:
                axes[axis] = torch.export.Dim.DYNAMIC
        specs.append(axes or None)
    return tuple(specs)


@dataclass
class Exported:
    """An exported model: ``model`` without initializer data, the values in ``weights`` (views
    of torch's tensors; empty when the TorchScript exporter wrote a whole model), and the
    whole model when it was asked for (``save_intermediate``)."""

    model: onnx.ModelProto
    weights: dict[str, np.ndarray]
    whole: onnx.ModelProto | None = None


def export_onnx(
    loaded: Loaded,
    shapes: Sequence[Dims],
    types: Sequence[str],
    warn: Callable[[str], None],
    whole: bool = False,
) -> Exported:
    """The ONNX model of ``loaded`` (``shapes``/``types`` unused for an ExportedProgram)."""
    if loaded.kind is Kind.EXPORTED_PROGRAM:
        program = torch.onnx.export(loaded.model, (), dynamo=True, optimize=False, verbose=False)
    else:
        check_input_count(loaded.model, len(shapes))
        args = example_inputs(shapes, types)
        if isinstance(loaded.model, torch.jit.ScriptModule):
            program = _torchscript(loaded.model, args, shapes, warn)
        else:
            program = _module(loaded.model.eval(), args, shapes)
    if isinstance(program, onnx.ModelProto):
        return Exported(program, {}, program if whole else None)
    return _handed_over(program, whole)


def forward_inputs(model: torch.nn.Module) -> tuple[list[str], list[str]] | None:
    """The names of ``forward``'s positional parameters and of the required ones (TorchScript
    schema or the module's signature); None when it takes ``*args``."""
    if isinstance(model, torch.jit.ScriptModule):
        arguments = model.forward.schema.arguments[1:]
        return [a.name for a in arguments], [a.name for a in arguments if a.default_value is None]
    parameters = list(inspect.signature(model.forward).parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return None
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [p.name for p in positional], [p.name for p in positional if p.default is p.empty]


def check_input_count(model: torch.nn.Module, given: int) -> None:
    """``-s``/``-t`` give as many inputs as ``forward`` takes (its required positional
    parameters at least, all of them at most), or the error names them."""
    inputs = forward_inputs(model)
    if inputs is None or len(inputs[1]) <= given <= len(inputs[0]):
        return
    from .loading import PytorchImportError

    names, required = inputs
    takes = len(names) if len(required) == len(names) else f"{len(required)} to {len(names)}"
    raise PytorchImportError(
        f"-s/--input_shapes and -t/--input_types give {given} inputs; the model's forward takes "
        f"{takes} ({', '.join(names)})"
    )


def described_inputs(model: object, shapes: Sequence[Dims], types: Sequence[str]) -> str:
    """The inputs as given, named by ``forward`` (``x: float32[1,?,8]``), for messages."""
    inputs = forward_inputs(model) if isinstance(model, torch.nn.Module) else None
    names = inputs[0] if inputs is not None else []
    return ", ".join(
        f"{names[k] if k < len(names) else f'input {k}'}: {dtype}"
        f"[{','.join('?' if d is None else str(d) for d in shape)}]"
        for k, (shape, dtype) in enumerate(zip(shapes, types, strict=False))
    )


def _handed_over(program: torch.onnx.ONNXProgram, whole: bool) -> Exported:
    """The model without initializer data and the initializers' values as numpy views."""
    full = program.model_proto if whole else None
    graph = program.model.graph
    headers, weights = [], {}
    for name, value in list(graph.initializers.items()):
        tensor = value.const_value
        if tensor is None:
            continue
        weights[name] = tensor.numpy()
        headers.append(onnx.TensorProto(name=name, data_type=int(tensor.dtype), dims=tensor.shape))
        graph.initializers.pop(name)
    model = program.model_proto
    model.graph.initializer.extend(headers)
    return Exported(model, weights, full)


def _module(
    model: torch.nn.Module,
    args: tuple[torch.Tensor, ...],
    shapes: Sequence[Dims],
    input_names: list[str] | None = None,
) -> torch.onnx.ONNXProgram:
    return torch.onnx.export(
        model,
        args,
        dynamo=True,
        dynamic_shapes=dynamic_shapes(shapes),
        input_names=input_names,
        optimize=False,
        verbose=False,
    )


def _torchscript(
    model: torch.jit.ScriptModule,
    args: tuple[torch.Tensor, ...],
    shapes: Sequence[Dims],
    warn: Callable[[str], None],
) -> torch.onnx.ONNXProgram | onnx.ModelProto:
    """TorchScript through ``TS2EPConverter`` (the dynamo exporter refuses ScriptModules);
    torch's TorchScript exporter when that fails and torch still has it."""
    names = [a.name for a in model.forward.schema.arguments[1:]]
    try:
        from torch._export.converter import TS2EPConverter

        program = TS2EPConverter(model, args).convert()
    except Exception as e:
        from ...report.chatter import cause_line

        warn(
            f"TorchScript conversion to ExportedProgram failed ({cause_line(e)}); using the "
            "TorchScript ONNX exporter"
        )
        return _torchscript_exporter(model, args, shapes, names)
    return _module(program.module(), args, shapes, names)


def _torchscript_exporter(
    model: torch.jit.ScriptModule,
    args: tuple[torch.Tensor, ...],
    shapes: Sequence[Dims],
    names: list[str],
) -> onnx.ModelProto:
    axes = {
        name: {axis: d if isinstance(d, str) else f"{name}_{axis}" for axis, d in enumerate(shape)
               if not isinstance(d, int)}
        for name, shape in zip(names, shapes, strict=True)
    }  # fmt: skip
    buffer = io.BytesIO()
    torch.onnx.export(
        model, args, buffer, dynamo=False, input_names=names, dynamic_axes=axes, verbose=False
    )
    return onnx.load_from_string(buffer.getvalue())
