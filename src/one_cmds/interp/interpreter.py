"""The numpy reference interpreter: runs a Model's graphs operator by operator."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..ir import Graph, Model, Operator, Tensor, numpy_dtype
from .context import InterpreterError
from .registry import QuantizedOperandError, kernel_for

Observer = Callable[[Tensor, np.ndarray], None]
"""Called with every tensor an operator of graph 0 produces, right after it is computed."""


def load_kernels() -> None:
    """Register every kernel (importing the kernel modules does it)."""
    from . import kernels  # noqa: F401


class RunContext:
    """The :class:`~one_cmds.interp.context.KernelContext` of a run: the model, a way to run
    subgraphs, and whether the first axis of the activations holds independent records
    (``records``)."""

    def __init__(self, model: Model, records: bool = False) -> None:
        self.model = model
        self.records = records

    def by_record(self, fn: Callable[..., np.ndarray], *arrays: np.ndarray) -> np.ndarray:
        """``fn(*arrays)``, or, when the run stacks records on the first axis, ``fn`` on each
        record's slice of ``arrays`` (their first axes are the records), results stacked.

        Kernels whose arithmetic depends on how many rows they are given (BLAS products
        choose blockings and sum orders by size) use it, so that a record's result in a
        batched run is bit for bit the result of running it alone.
        """
        count = arrays[0].shape[0] if arrays[0].ndim else 1
        if not self.records or count <= 1:
            return fn(*arrays)
        return np.concatenate([fn(*(a[i : i + 1] for a in arrays)) for i in range(count)])

    def run_graph(self, index: int, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run subgraph ``index`` on ``args`` (one per graph input); return its outputs."""
        return _GraphRun(self, self.model.graphs[index], index).run(list(args), None)


class Interpreter:
    """Run a model on numpy inputs.

    ``Interpreter(model).run(inputs)`` takes a list in graph-input order or a dict by
    input name and returns the outputs of subgraph 0 as numpy arrays; ``run_all`` also returns
    every intermediate tensor by name; ``run(..., observer=fn)`` streams them instead.
    ``records=True`` says the inputs stack independent records on their first axis: every
    record's results are then exactly those of a run on that record alone. It takes a
    :class:`~one_cmds.ir.Model`; ``one_cmds.Interpreter`` (:mod:`one_cmds.engines`) also
    loads one from a file.
    """

    def __init__(self, model: Model, *, records: bool = False) -> None:
        if not isinstance(model, Model):
            raise TypeError(
                f"the reference interpreter runs a Model, not {type(model).__name__} "
                "(one_cmds.Interpreter loads model files)"
            )
        load_kernels()
        self.model = model
        self._context = RunContext(model, records)

    @property
    def input_tensors(self) -> list[Tensor]:
        return list(self.model.main.inputs)

    @property
    def output_tensors(self) -> list[Tensor]:
        return list(self.model.main.outputs)

    def run(
        self,
        inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray],
        *,
        observer: Observer | None = None,
    ) -> list[np.ndarray]:
        graph = self.model.main
        args = arrange_inputs(graph, inputs)
        return _GraphRun(self._context, graph, 0).run(args, observer)

    def run_all(
        self, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray]
    ) -> dict[str, np.ndarray]:
        """Run and return every tensor of graph 0 (inputs, intermediates, outputs) by name."""
        graph = self.model.main
        args = arrange_inputs(graph, inputs)
        seen: dict[str, np.ndarray] = {t.name: a for t, a in zip(graph.inputs, args, strict=True)}

        def keep(tensor: Tensor, value: np.ndarray) -> None:
            seen[tensor.name] = value

        _GraphRun(self._context, graph, 0).run(args, keep)
        return seen


def arrange_inputs(
    graph: Graph, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray]
) -> list[np.ndarray]:
    """Order, check and convert the caller's inputs to the graph inputs' dtypes."""
    if isinstance(inputs, Mapping):
        names = [t.name for t in graph.inputs]
        unknown = [k for k in inputs if k not in names]
        if unknown:
            raise InterpreterError(f"unknown input name(s): {', '.join(unknown)}")
        missing = [n for n in names if n not in inputs]
        if missing:
            raise InterpreterError(f"missing input(s): {', '.join(missing)}")
        values = [inputs[n] for n in names]
    else:
        values = list(inputs)
        if len(values) != len(graph.inputs):
            raise InterpreterError(
                f"the model has {len(graph.inputs)} input(s) but {len(values)} were given"
            )
    out = []
    for t, v in zip(graph.inputs, values, strict=True):
        arr = np.asarray(v)
        if len(arr.shape) != len(t.shape) or any(
            d is not None and d != a for d, a in zip(t.shape, arr.shape, strict=True)
        ):
            shape = [-1 if d is None else d for d in t.shape]
            raise InterpreterError(
                f"input {t.name!r} has shape {list(arr.shape)}, the model expects {shape}"
            )
        dtype = numpy_dtype(t.dtype)
        out.append(arr if dtype is None else arr.astype(dtype, copy=False))
    return out


class _GraphRun:
    """One execution of one graph: a value per tensor, freed after its last use."""

    def __init__(self, context: RunContext, graph: Graph, index: int) -> None:
        self.context = context
        self.graph = graph
        self.index = index

    def run(self, args: list[np.ndarray], observer: Observer | None) -> list[np.ndarray]:
        graph = self.graph
        values: dict[int, np.ndarray] = {id(t): a for t, a in zip(graph.inputs, args, strict=True)}
        last_use = _last_uses(graph)
        keep = {id(t) for t in graph.outputs}
        for position, op in enumerate(graph.operators):
            operands = [None if t is None else self._value(t, values) for t in op.inputs]
            results = self._call(op, position, operands)
            for t, r in zip(op.outputs, results, strict=True):
                values[id(t)] = r
                if observer is not None:
                    observer(t, r)
            for t in op.inputs:
                if t is not None and last_use.get(id(t)) == position and id(t) not in keep:
                    values.pop(id(t), None)
        return [self._value(t, values) for t in graph.outputs]

    def _value(self, tensor: Tensor, values: dict[int, np.ndarray]) -> np.ndarray:
        value = values.get(id(tensor))
        if value is not None:
            return value
        data = tensor.data
        if data is None and tensor.is_static and (tensor.is_variable or 0 in tensor.shape):
            dtype = numpy_dtype(tensor.dtype)
            if dtype is not None:
                # variables start at zero, as in LiteRT; a constant with no elements (the
                # shape of a reshape to a scalar) is written with an empty buffer
                return np.zeros(tensor.shape, dtype)
        if data is None:
            raise InterpreterError(
                f"tensor {tensor.name!r} of graph {self.index} has no value "
                "(not a graph input, not a constant, not produced before it is used)"
            )
        return data

    def _call(self, op: Operator, position: int, operands: list[Any]) -> list[np.ndarray]:
        try:
            return evaluate(op, operands, self.context)
        except InterpreterError as e:
            where = f"{op.kind} (graph {self.index}, operator {position})"
            raise InterpreterError(f"{where}: {e.message}") from e


def evaluate(op: Operator, operands: list[Any], context: RunContext) -> list[np.ndarray]:
    """Run the kernel of ``op`` on ``operands``: one array per output, in the declared dtypes.

    Kernel failures (and an operator without kernel) raise :class:`InterpreterError`.
    """
    fn = kernel_for(op)
    if fn is None:
        raise InterpreterError("no kernel for this operator")
    try:
        with np.errstate(all="ignore"):  # inf and NaN are the IEEE results LiteRT gives too
            result = fn(op, operands, context)
    except InterpreterError:
        raise
    except (ValueError, IndexError, TypeError, ArithmeticError, QuantizedOperandError) as e:
        raise InterpreterError(str(e)) from e
    if isinstance(result, np.ndarray | np.generic):
        results = [np.asarray(result)]
    else:
        results = [np.asarray(r) for r in result]
    if len(results) != len(op.outputs):
        raise InterpreterError(
            f"kernel produced {len(results)} outputs, the operator has {len(op.outputs)}"
        )
    return [_as_dtype(r, t) for r, t in zip(results, op.outputs, strict=True)]


def _as_dtype(value: np.ndarray, tensor: Tensor) -> np.ndarray:
    dtype = numpy_dtype(tensor.dtype)
    arr = np.asarray(value)
    return arr if dtype is None or arr.dtype == dtype else arr.astype(dtype)


def _last_uses(graph: Graph) -> dict[int, int]:
    last: dict[int, int] = {}
    for position, op in enumerate(graph.operators):
        for t in op.inputs:
            if t is not None:
                last[id(t)] = position
    return last
