"""Matrix products (onnx-import.md §6.1): Gemm, MatMul, Einsum.

A constant right-hand matrix becomes FULLY_CONNECTED weights (``[units, depth]``, transposed
and scaled at import); anything else is one BATCH_MATMUL, whose batch dims broadcast (never
split per batch). ``experimental_disable_batchmatmul_unfold`` keeps MatMul as BATCH_MATMUL.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import Lowering, converter
from ..node import Node
from .common import options, reshape, transpose
from .reduce import reduced
from .shape_building import bind_sized, reshape_parts, squeeze
from .shape_values import Dim, Part, dims_of, ranked_dims


def fully_connected(lo: Lowering, x: Tensor, weights: np.ndarray, bias=None, keep=False) -> Tensor:
    """FULLY_CONNECTED with constant weights ``[units, depth]`` (and bias)."""
    w = lo.weight(weights, lo.helper_name("weights"))
    b = None if bias is None else lo.constant(bias.astype(np.float32), lo.helper_name("bias"))
    return lo.emit(
        "FULLY_CONNECTED", [x, w, b], options("FullyConnectedOptions", keepNumDims=keep),
        dtype=x.dtype,
    )  # fmt: skip


def batch_matmul(lo: Lowering, a: Tensor, b: Tensor, adj_a=False, adj_b=False) -> Tensor:
    return lo.emit(
        "BATCH_MATMUL", [a, b],
        options("BatchMatMulOptions", adjointLhs=adj_a, adjointRhs=adj_b), dtype=a.dtype,
    )  # fmt: skip


def _scaled(lo: Lowering, y: Tensor, factor: float) -> Tensor:
    if factor == 1:
        return y
    k = lo.constant(np.array(factor, np.float32), lo.helper_name("scale"))
    return lo.emit("MUL", [y, k], "MulOptions", dtype=y.dtype)


@converter("Gemm")
def gemm(node: Node, lo: Lowering) -> None:
    """Gemm (11: C optional): ``alpha·A'·B' + beta·C``."""
    a_name, b_name, c_name = node.input(0), node.input(1), node.input(2)
    alpha, beta = float(node.attr("alpha", 1.0)), float(node.attr("beta", 1.0))
    trans_a, trans_b = bool(node.attr("transA", 0)), bool(node.attr("transB", 0))
    a = lo.value(a_name)
    b = lo.const(b_name)
    c = lo.const(c_name) if c_name and beta else None
    added = bool(c_name and beta)
    if b is not None:
        weights = b if trans_b else b.T
        if alpha != 1:
            weights = weights.astype(np.float32) * np.float32(alpha)
        units = weights.shape[0]
        bias = None
        if c is not None and (c.ndim <= 1 or c.shape[0] == 1) and c.size in (1, units):
            bias, added = np.broadcast_to(c.reshape(-1) * np.float32(beta), (units,)), False
        if trans_a:
            a = transpose(lo, a, (1, 0), "transpose_a")
        y = fully_connected(lo, a, weights, bias)
    else:
        y = _scaled(lo, batch_matmul(lo, a, lo.value(b_name), trans_a, trans_b), alpha)
    if added:
        if c is not None:
            term = lo.constant((c * beta).astype(np.float32), lo.helper_name("c"))
        else:
            term = _scaled(lo, lo.value(c_name), beta)
        y = lo.emit("ADD", [y, term], "AddOptions", dtype=y.dtype)
    lo.bind(node.outputs[0], y)


@converter("MatMul")
def matmul(node: Node, lo: Lowering) -> None:
    """MatMul: FULLY_CONNECTED (``keep_num_dims``) with a constant rank-2 B, else
    BATCH_MATMUL; rank-1 operands as a row (A) or column (B) via RESHAPE."""
    a_name, b_name = node.input(0), node.input(1)
    rank_a, rank_b = lo.rank(a_name), lo.rank(b_name)
    a = lo.value(a_name)
    if rank_a == 1:
        a = reshape(lo, a, [1, _size(lo, a_name)], "row")
    b = lo.const(b_name)
    options_ = getattr(lo, "options", None)
    unfold = not getattr(options_, "experimental_disable_batchmatmul_unfold", False)
    if b is not None and rank_b <= 2 and unfold:
        y = fully_connected(lo, a, b.reshape(b.shape[0], -1).T, keep=True)
    else:
        b_t = lo.value(b_name)
        if rank_b == 1:
            b_t = reshape(lo, b_t, [_size(lo, b_name), 1], "column")
        y = batch_matmul(lo, a, b_t)
    out = _product_dims(ranked_dims(lo, a_name), ranked_dims(lo, b_name))
    rank = max(rank_a, rank_b, 2)
    dropped = [rank - 2] * (rank_a == 1) + [rank - 1] * (rank_b == 1)
    if dropped:
        y = squeeze(lo, y, dropped, out)
    bind_sized(lo, node.outputs[0], y, out)


def _size(lo: Lowering, name: str) -> int:
    """The length of a vector, −1 when unknown."""
    (n,) = lo.shape(name)  # type: ignore[misc]
    return -1 if n is None else n


def _product_dims(a: list[Dim], b: list[Dim]) -> list[Dim]:
    """The dims of ONNX MatMul's result: broadcast batch dims, rows of A, columns of B (none
    for a rank-1 operand)."""
    batch_a, batch_b = a[:-2], b[:-2]
    n = max(len(batch_a), len(batch_b))
    batch_a, batch_b = ([1] * (n - len(d)) + d for d in (batch_a, batch_b))
    batch = [y if x == 1 else x for x, y in zip(batch_a, batch_b, strict=True)]
    return batch + a[-2:-1] + (b[-1:] if len(b) > 1 else [])


# -- Einsum -------------------------------------------------------------------------------------
def _terms(eq: str, ranks: Sequence[int]) -> tuple[list[list[str]], list[str]]:
    """The letters of each operand and of the output, ``...`` expanded into ``...0``,
    ``...1``, … (right-aligned: the broadcast dims)."""
    bad = Unsupported(f"equation '{eq}' is not supported")
    lhs, arrow, rhs = eq.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks) or len(terms) > 2:
        raise bad
    widths = [
        r - len(t.replace("...", "")) if "..." in t else 0
        for t, r in zip(terms, ranks, strict=True)
    ]
    dots = [f"...{i}" for i in range(max(widths, default=0))]
    if min(widths, default=0) < 0:
        raise bad

    def expand(term: str, width: int) -> list[str]:
        head, sep, tail = term.partition("...")
        letters = [*head, *(dots[len(dots) - width :] if sep else []), *tail]
        if not all(c.isalpha() for c in head + tail) or len(set(letters)) != len(letters):
            raise bad
        return letters

    operands = [expand(t, w) for t, w in zip(terms, widths, strict=True)]
    if any(len(s) != r for s, r in zip(operands, ranks, strict=True)):
        raise bad
    if arrow:
        out = expand(rhs, len(dots))
    else:
        counts = Counter(c for s in operands for c in s if not c.startswith("..."))
        out = dots + sorted(c for c, n in counts.items() if n == 1)
    if any(all(c not in s for s in operands) for c in out):
        raise bad
    return operands, out


def _arrangement(seq: list[str], order: list[str]) -> tuple[list[int], list[int]]:
    """The axes of letters ``seq`` outside ``order`` (summed), and the permutation that puts
    the others in ``order``."""
    kept = [c for c in seq if c in order]
    return [i for i, c in enumerate(seq) if c not in order], [kept.index(c) for c in order]


def _arrange_array(value: np.ndarray, seq: list[str], order: list[str]) -> np.ndarray:
    """A constant operand with the letters outside ``order`` summed, the rest in ``order``."""
    summed, perm = _arrangement(seq, order)
    return np.sum(value, axis=tuple(summed)).transpose(perm)


def _arranged(lo: Lowering, name: str, seq: list[str], order: list[str], groups) -> Tensor:
    """Operand ``name`` (letters ``seq``) with the letters outside ``order`` summed, the rest
    in ``order``, then reshaped to one dim per group of letters (``groups`` None: no
    reshape). A constant is arranged at import."""
    value = lo.const(name)
    if value is not None:
        v = _arrange_array(value, seq, order)
        if groups is not None:
            v = v.reshape([int(np.prod([value.shape[seq.index(c)] for c in g])) for g in groups])
        return lo.constant(v, lo.helper_name("operand"))
    summed, perm = _arrangement(seq, order)
    x = lo.value(name)
    if summed:
        x = reduced(lo, "SUM", x, summed, False)
    if perm != sorted(perm):
        x = transpose(lo, x, tuple(perm), "arrange")
    if groups is None:
        return x
    return reshape_parts(lo, x, [(name, tuple(seq.index(c) for c in g)) for g in groups])


@converter("Einsum")
def einsum(node: Node, lo: Lowering) -> None:
    """Einsum (12) of one or two operands: each letter is a batch, contracted, free or
    summed-once index; a repeated letter in one operand is not supported."""
    names = [n for n in node.inputs if n]
    operands, out = _terms(node.attr("equation", ""), [lo.rank(n) for n in names])
    if len(names) == 1:
        y = _arranged(lo, names[0], operands[0], out, None)
    else:
        y = _contract(lo, names, operands, out)
    lo.bind(node.outputs[0], y)


def _contract(lo: Lowering, names: list[str], operands: list[list[str]], out: list[str]) -> Tensor:
    """Two operands: ``[batch, free A, contracted] × [batch, contracted, free B]``."""
    (a, b), (sa, sb) = names, operands
    batch = [c for c in out if c in sa and c in sb]
    contracted = [c for c in sa if c in sb and c not in out]
    free_a = [c for c in sa if c not in sb and c in out]
    free_b = [c for c in sb if c not in sa and c in out]
    if lo.const(b) is not None and not batch and free_a:
        groups = None if len(contracted) == 1 else [*([c] for c in free_a), contracted]
        x = _arranged(lo, a, sa, free_a + contracted, groups)
        w = _arrange_array(lo.const(b), sb, free_b + contracted)  # type: ignore[arg-type]
        units = int(np.prod(w.shape[: len(free_b)]))
        y = fully_connected(lo, x, w.reshape(units, -1), keep=True)
        merged = [free_b]
    else:
        single = len(free_a) == 1 and len(contracted) == 1
        groups_a = None if single else [*([c] for c in batch), free_a, contracted]
        x = _arranged(lo, a, sa, batch + free_a + contracted, groups_a)
        single = len(free_b) == 1 and len(contracted) == 1
        groups_b = None if single else [*([c] for c in batch), contracted, free_b]
        y = batch_matmul(lo, x, _arranged(lo, b, sb, batch + contracted + free_b, groups_b))
        merged = [free_a, free_b]
    if any(len(g) != 1 for g in merged):
        y = reshape_parts(lo, y, [_part(lo, names, operands, c) for c in batch + free_a + free_b])
    now = batch + free_a + free_b
    perm = [now.index(c) for c in out]
    return y if perm == sorted(perm) else transpose(lo, y, tuple(perm), "output")


def _part(lo: Lowering, names: list[str], operands: list[list[str]], letter: str) -> Part:
    """The size of a letter: from the operand where it is not a broadcast 1."""
    holders = [(n, s.index(letter)) for n, s in zip(names, operands, strict=True) if letter in s]
    for name, axis in holders:
        dims = dims_of(lo, name)
        if dims is None or dims[axis] != 1:
            return (name, (axis,))
    return holders[0][0], (holders[0][1],)
