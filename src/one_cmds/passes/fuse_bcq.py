"""``fuse_bcq``: Gather and FullyConnected operators whose constant weights carry
binary-coded-quantization (BCQ) information become the circle-only BCQ_GATHER and
BCQ_FULLY_CONNECTED (reference FuseBCQPass, version 1 of the BCQ information).

The information travels in the outputs of graph 0, as ONE's BCQ tools export it:

* output 0, the metadata ``one_compiler/bcqinfo_one_metadata``: a constant INT32 vector
  ``[-2e9+27, version, original output count N, bundle size, ..., 2e9-27]``;
* outputs 1..N: the model's own outputs;
* then one bundle per weight ``<prefix>``, ``bundle size`` outputs each, in this order:
  ``<prefix>/bcqinfo_do_w_x`` (BOOL), ``_alpha`` (FLOAT32), ``_packed_binary_code``
  (INT32 [entries, words]), ``_number_of_clusters``, ``_size_of_clusters``,
  ``_qbits_of_clusters`` (INT32), the weight ``<prefix>`` itself as TensorFlow holds it
  (FLOAT32), and optionally ``_dequant_weight`` (unused). An entry may be a Reshape of the
  constant (TensorFlow 1 converters). Only the positions matter, not the names.

A constant operand matches a bundle when it equals the bundle's weight (``do_w_x``) or its
transpose (rank 3 weights, from Einsum: the transpose of the weight flattened to the
constant's [a0, a1] as [a1, a0]). In every subgraph:

* ``Gather(params, indices)`` → ``BCQ_GATHER(alpha, binary, indices, clusters)`` on the
  encoded table M: with ``do_w_x`` M = params and the same axis; otherwise M = paramsᵀ, the
  other axis, and a Transpose moves the gathered axis back into place;
* ``FullyConnected(x, W, b)`` with W matching → ``Transpose(BCQ_FULLY_CONNECTED(Transpose(
  x2), alpha, binary, b, clusters))``, M = W, x2 = x reshaped to [-1, W.shape[1]] when x is
  not of rank 2;
* ``FullyConnected(W, y)`` with the constant W as input and ``do_w_x`` →
  ``BCQ_FULLY_CONNECTED(Transpose(y), ...)``, M = W (no bias allowed).

The bits of alpha/binary/clusters are read by the BCQ kernels (interp/kernels/bcq.py).
Afterwards the metadata and the information outputs are removed from graph 0 (also when
nothing matched or the version is not 1); the model's interface becomes outputs 1..N.
Every new operator copies the origin of the operator it replaces. Registered ``exact=False``:
the BCQ kernels sum the decoded weights in their own order.

Reference: fuses one operator per graph per run and drops the information outputs in the
first run that fuses nothing; here one run fuses every match and then drops them (same
result). Also here: the Transpose after a BCQ_GATHER in the transposed case moves the
gathered axis correctly for indices of rank ≥ 2 (the reference's fixed permutation does
not when the original axis is 1); a rank-3 weight whose dimensions fit neither flattening
does not match (the reference accepts it unchecked); a bundle whose constants do not encode
a matrix of the matched constant's shape, a Gather with batch dimensions and a
FullyConnected with ``keep_num_dims`` or shuffled weights are left alone; a non-constant
information entry invalidates its bundle instead of aborting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..interp.kernels.bcq import bcq_layout
from ..ir import Graph, Model, Operator, Tensor
from . import PassOptions, model_pass
from .toolkit import GraphEditor, activation, const_value, new_options

START_MAGIC, END_MAGIC = -1999999973, 1999999973  # int32(-2e9 + 27), int32(2e9 - 27)
DO_W_X, ALPHA, BINARY, CLUSTER_COUNT, CLUSTER_SIZES, CLUSTER_QBITS, WEIGHT = range(7)
_ENTRY_DTYPES = ("BOOL", "FLOAT32", "INT32", "INT32", "INT32", "INT32", "FLOAT32")


@dataclass
class _Bundle:
    """The BCQ information of one weight."""

    name: str
    do_w_x: bool
    alpha: np.ndarray
    binary: np.ndarray
    clusters: np.ndarray  # [n, 2]: (qbits, size) per cluster
    weight: np.ndarray  # the weight as exported (before conversion)

    def encodes(self, rows: int, hidden: int) -> bool:
        """Whether the constants describe a matrix [rows, hidden] (as the kernels read them)."""
        try:
            encoded_rows, entries, words = bcq_layout(self.clusters, hidden)
        except ValueError:
            return False
        return (
            encoded_rows == rows
            and self.alpha.size == entries
            and self.binary.shape == (entries, words)
        )


@model_pass("fuse_bcq", exact=False)
def fuse_bcq(model: Model, options: PassOptions) -> int:
    graph = model.main
    metadata = _metadata(graph.outputs)
    if metadata is None:
        return 0
    version, originals = metadata[1], metadata[2]
    bundles = _bundles(graph, originals, metadata[3]) if version == 1 else []
    fused = 0
    for index in range(len(model.graphs)):
        g = GraphEditor(model, index)
        fused += _fuse(g, bundles)
        g.commit()
    _drop_information(model, originals)
    return fused + 1


def _metadata(outputs: list[Tensor]) -> list[int] | None:
    value = const_value(outputs[0]) if outputs else None
    if value is None or outputs[0].dtype != "INT32" or value.size < 4:
        return None
    flat = [int(v) for v in value.reshape(-1)]
    return flat if flat[0] == START_MAGIC and flat[-1] == END_MAGIC else None


def _bundles(graph: Graph, originals: int, size: int) -> list[_Bundle]:
    """The complete bundles in prefix order; none when an entry has the wrong dtype."""
    if size <= 0 or originals < 0:
        return []
    producers = {id(t): op for op in graph.operators for t in op.outputs}
    entries: dict[int, dict[int, Tensor | None]] = {}
    for position, t in enumerate(graph.outputs[originals + 1 :]):
        prefix, kind = divmod(position, size)
        if kind < len(_ENTRY_DTYPES):
            reshape = producers.get(id(t))
            if reshape is not None and reshape.opcode == "RESHAPE":
                t = reshape.inputs[0]
            entries.setdefault(prefix, {})[kind] = t if const_value(t) is not None else None
    for entry in entries.values():
        if any(t is not None and t.dtype != _ENTRY_DTYPES[k] for k, t in entry.items()):
            return []
    return [b for b in (_bundle(entries[p]) for p in sorted(entries)) if b is not None]


def _bundle(entry: dict[int, Tensor | None]) -> _Bundle | None:
    tensors = [t for t in (entry.get(k) for k in range(len(_ENTRY_DTYPES))) if t is not None]
    if len(tensors) < len(_ENTRY_DTYPES):
        return None
    value = [t.data for t in tensors]
    count = int(value[CLUSTER_COUNT].reshape(-1)[0])
    qbits, sizes = value[CLUSTER_QBITS].reshape(-1), value[CLUSTER_SIZES].reshape(-1)
    if not 0 <= count <= min(qbits.size, sizes.size) or value[BINARY].ndim != 2:
        return None
    return _Bundle(
        name=tensors[WEIGHT].name,
        do_w_x=bool(value[DO_W_X].reshape(-1)[0]),
        alpha=value[ALPHA].reshape(-1),
        binary=value[BINARY],
        clusters=np.stack([qbits[:count], sizes[:count]], axis=1).astype(np.int32),
        weight=value[WEIGHT],
    )


def _matches(weight: np.ndarray, const: np.ndarray, do_w_x: bool) -> bool:
    """Whether the graph constant ``const`` is the exported ``weight`` (reference
    is_fusable_const)."""
    if const.dtype != np.float32 or const.ndim != 2 or const.size != weight.size:
        return False
    a0, a1 = const.shape
    if weight.ndim == 2:
        return np.array_equal(const, weight if do_w_x else weight.T)
    if weight.ndim == 3 and not do_w_x:
        b0, b1, b2 = weight.shape
        if (a0, a1) in ((b1 * b2, b0), (b2, b0 * b1)):
            return np.array_equal(const, weight.reshape(a1, a0).T)
    return False


def _bundle_of(bundles: list[_Bundle], t: Tensor | None) -> _Bundle | None:
    value = const_value(t)
    if value is None:
        return None
    return next((b for b in bundles if _matches(b.weight, value, b.do_w_x)), None)


class _Fuser:
    """Rewrites of one graph; the BCQ constants of a bundle are made once per graph."""

    def __init__(self, g: GraphEditor) -> None:
        self.g = g
        self.made: dict[int, tuple[Tensor, Tensor, Tensor]] = {}

    def constants(self, bundle: _Bundle) -> tuple[Tensor, Tensor, Tensor]:
        if id(bundle) not in self.made:
            g, name = self.g, bundle.name
            self.made[id(bundle)] = (
                g.const(f"{name}/bcq_scales", bundle.alpha, "FLOAT32"),
                g.const(f"{name}/bcq_binary", bundle.binary, "INT32"),
                g.const(f"{name}/bcq_clusters", bundle.clusters, "INT32"),
            )
        return self.made[id(bundle)]

    def transpose(self, op: Operator, x: Tensor, perm: list[int], **like: Any) -> Tensor:
        perm_t = self.g.const(f"{x.name}/perm", np.array(perm, np.int32))
        return self.g.op("TRANSPOSE", [x, perm_t], origin=op.origin, **like).outputs[0]

    def gather(self, gather: Operator, bundle: _Bundle) -> bool:
        params, indices = gather.inputs[0], gather.inputs[1]
        out, options = gather.outputs[0], gather.options
        if getattr(options, "batchDims", 0) or indices is None:
            return False
        axis = int(getattr(options, "axis", 0))
        axis = axis + 2 if axis < 0 else axis
        rows, hidden = params.shape if bundle.do_w_x else params.shape[::-1]
        if axis not in (0, 1) or not bundle.encodes(rows, hidden):
            return False
        scales, binary, clusters = self.constants(bundle)
        bcq_axis = axis if bundle.do_w_x else 1 - axis
        bcq_options = new_options("BCQGatherOptions", inputHiddenSize=hidden, axis=bcq_axis)
        inputs = [scales, binary, indices, clusters]
        if bundle.do_w_x:
            self.g.replace_with(gather, "BCQ_GATHER", inputs, bcq_options, origin=gather.origin)
            return True
        name = f"{out.name}/BCQGather"
        table = self.g.op("BCQ_GATHER", inputs, bcq_options, origin=gather.origin, name=name)
        r = len(indices.shape)
        perm = [*range(1, r + 1), 0] if bcq_axis == 1 else [r, *range(r)]
        self.g.replace(out, self.transpose(gather, table.outputs[0], perm, like=out))
        return True

    def fully_connected(self, fc: Operator, bundle: _Bundle) -> bool:
        x, weights, bias = fc.inputs[0], fc.inputs[1], _bias(fc)
        options, out = fc.options, fc.outputs[0]
        rows, hidden = weights.shape
        keep = getattr(options, "keepNumDims", False) and len(x.shape) != 2
        if keep or getattr(options, "weightsFormat", 0) or not bundle.encodes(rows, hidden):
            return False
        if len(x.shape) != 2:
            shape = self.g.const(f"{x.name}/shape", np.array([-1, hidden], np.int32))
            reshape = new_options("ReshapeOptions", newShape=[-1, hidden])
            x = self.g.op("RESHAPE", [x, shape], reshape, origin=fc.origin).outputs[0]
        columns = self.transpose(fc, x, [1, 0])
        bcq = self.bcq_fully_connected(fc, bundle, columns, bias, hidden)
        self.g.replace(out, self.transpose(fc, bcq, [1, 0], like=out))
        return True

    def weights_as_input(self, fc: Operator, bundle: _Bundle) -> bool:
        matrix, y = fc.inputs[0], fc.inputs[1]
        rows, hidden = matrix.shape
        if not bundle.do_w_x or _bias(fc) is not None or len(y.shape) != 2:
            return False
        if not bundle.encodes(rows, hidden):
            return False
        bcq = self.bcq_fully_connected(fc, bundle, self.transpose(fc, y, [1, 0]), None, hidden)
        self.g.replace(fc.outputs[0], bcq)
        return True

    def bcq_fully_connected(
        self, fc: Operator, bundle: _Bundle, columns: Tensor, bias: Tensor | None, hidden: int
    ) -> Tensor:
        scales, binary, clusters = self.constants(bundle)
        options = new_options(
            "BCQFullyConnectedOptions",
            weightsHiddenSize=hidden,
            fusedActivationFunction=activation(fc),
        )
        inputs = [columns, scales, binary, bias, clusters]
        name = f"{fc.outputs[0].name}/BCQFullyConnected"
        return self.g.op(
            "BCQ_FULLY_CONNECTED", inputs, options, origin=fc.origin, name=name
        ).outputs[0]


def _bias(fc: Operator) -> Tensor | None:
    return fc.inputs[2] if len(fc.inputs) > 2 else None


def _fuse(g: GraphEditor, bundles: list[_Bundle]) -> int:
    fuser, fused = _Fuser(g), 0
    for op in g.ops("GATHER", "FULLY_CONNECTED"):
        if op.outputs[0].dtype != "FLOAT32":
            continue
        if op.opcode == "GATHER":
            operand, rewrite = op.inputs[0], fuser.gather
        elif const_value(op.inputs[1]) is not None:
            operand, rewrite = op.inputs[1], fuser.fully_connected
        else:
            operand, rewrite = op.inputs[0], fuser.weights_as_input
        bundle = _bundle_of(bundles, operand)
        if bundle is not None and rewrite(op, bundle):
            fused += 1
    return fused


def _drop_information(model: Model, originals: int) -> None:
    """Graph 0 keeps outputs 1..N only (the metadata and the information go)."""
    graph = model.main
    kept = graph.outputs[1 : originals + 1]
    dropped = {id(t) for t in graph.outputs} - {id(t) for t in kept}
    graph.outputs = kept
    for signature in model.signature_defs:
        if signature.graph_index == 0:
            signature.outputs = [(k, t) for k, t in signature.outputs if id(t) not in dropped]
