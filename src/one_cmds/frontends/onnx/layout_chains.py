"""Rules 3 and 4 of the layout pass (onnx-import.md §5.3).

Rule 3: a maximal chain of RESHAPE/TRANSPOSE/SQUEEZE/EXPAND_DIMS (single-consumer
intermediates) moves the elements of its input as one permutation of integer *atoms*: the
coarsest factorization of the input's dimensions that every shape of the chain regroups. The
chain becomes ``RESHAPE(atoms) → TRANSPOSE(π) → RESHAPE(output)``, atoms adjacent and in order
under π merged, identity RESHAPEs and π dropped, when that has fewer TRANSPOSEs, else fewer
operators, else a lower TRANSPOSE rank (so the rule never fires twice on its own result).
One unknown dimension is allowed as an atom no RESHAPE splits (-1 in the targets). Origin:
the union of the chain's.

Rule 4: a TRANSPOSE swapping the last two axes of a BATCH_MATMUL operand is absorbed into
``adjointLhs``/``adjointRhs`` (origin: the union of both).
"""

from __future__ import annotations

from ...ir import Operator, Shape, Tensor
from ...ir.schema import new_options
from ...passes.toolkit import origin_of, with_options
from .layout_edit import Perm, Rules, is_identity, swaps_last_two, unpermuted

CHAIN = ("RESHAPE", "TRANSPOSE", "SQUEEZE", "EXPAND_DIMS")


class Atoms:
    """The atoms of a chain's input: sizes (None: the unknown one) in input order."""

    def __init__(self, shape: Shape) -> None:
        self.sizes: list[int | None] = []
        self.axes: list[list[int]] = [self._new(d) if d != 1 else [] for d in shape]
        self.order: list[int] = [a for axis in self.axes for a in axis]

    def _new(self, size: int | None) -> list[int]:
        self.sizes.append(size)
        return [len(self.sizes) - 1]

    def transpose(self, p: Perm) -> None:
        self.axes = [self.axes[i] for i in p]

    def reshape(self, shape: Shape) -> bool:
        """Regroup the current atoms into ``shape``, splitting atoms where a dimension ends
        inside one; False when no integer factorization exists."""
        flat = [a for axis in self.axes for a in axis]
        axes: list[list[int]] = []
        for d in shape:
            group: list[int] = []
            if d is None:
                if not flat or self.sizes[flat[0]] is not None:
                    return False
                group.append(flat.pop(0))
            else:
                size = 1
                while size < d:
                    if not flat or self.sizes[flat[0]] is None or d % size:
                        return False
                    atom = flat.pop(0)
                    need = d // size
                    if self.sizes[atom] > need:  # the dimension ends inside this atom
                        if self.sizes[atom] % need:
                            return False
                        flat.insert(0, self._split(atom, need))
                    group.append(atom)
                    size *= self.sizes[atom]
                if size != d:
                    return False
            axes.append(group)
        self.axes = axes
        return not flat

    def _split(self, atom: int, major: int) -> int:
        """Split ``atom`` into (major, rest); return the new minor atom."""
        minor = self._new(self.sizes[atom] // major)[0]
        self.sizes[atom] = major
        self.order.insert(self.order.index(atom) + 1, minor)
        return minor

    def canonical(self) -> tuple[list[int | None], Perm]:
        """(merged atom sizes in input order, π over them) for the current arrangement."""
        flat = [a for axis in self.axes for a in axis]
        runs: list[list[int]] = []
        for a in flat:
            if runs and self.order.index(a) == self.order.index(runs[-1][-1]) + 1:
                runs[-1].append(a)
            else:
                runs.append([a])
        by_input = sorted(runs, key=lambda run: self.order.index(run[0]))
        sizes = [_product([self.sizes[a] for a in run]) for run in by_input]
        return sizes, tuple(by_input.index(run) for run in runs)


def _product(sizes: list[int | None]) -> int | None:
    total = 1
    for s in sizes:
        if s is None:
            return None
        total *= s
    return total


class Chains(Rules):
    """Rule 3 over every maximal chain, rule 4 over every BATCH_MATMUL."""

    def run(self) -> bool:
        changed = False
        for head in self.g.ops(*CHAIN):
            if self.e.alive(head) and self._is_head(head):
                changed = self._rewrite(self._chain(head)) or changed
        for op in self.g.ops("BATCH_MATMUL"):
            changed = self._absorb(op) or changed
        return changed

    # -- rule 3 ------------------------------------------------------------------------------
    def _link(self, op: Operator | None) -> bool:
        return (
            op is not None
            and op.opcode in CHAIN
            and (op.opcode != "TRANSPOSE" or self.e.perm(op) is not None)
        )

    def _is_head(self, op: Operator) -> bool:
        if not self._link(op):
            return False
        src = self.g.producer(op.inputs[0])
        return not (self._link(src) and self.g.single_consumer(src.outputs[0]) is op)

    def _chain(self, head: Operator) -> list[Operator]:
        chain = [head]
        while True:
            nxt = self.g.single_consumer(chain[-1].outputs[0])
            if not self._link(nxt) or nxt.inputs[0] is not chain[-1].outputs[0]:
                return chain
            chain.append(nxt)

    def _atoms(self, shape: Shape, chain: list[Operator], lead: Perm | None = None) -> Atoms | None:
        """The atoms of a value of ``shape`` moved by ``TRANSPOSE(lead)`` (if any), then by
        ``chain``; None without an integer factorization."""
        if sum(d is None for d in shape) > 1 or 0 in shape:
            return None
        atoms = Atoms(shape)
        if lead is not None:
            atoms.transpose(lead)
        for op in chain:
            if op.opcode == "TRANSPOSE":
                atoms.transpose(self.e.perm(op))
            elif not atoms.reshape(op.outputs[0].shape):
                return None
        return atoms

    def added_transposes(self, o: Tensor, q: Perm) -> int | None:
        """What ``TRANSPOSE(o', q)`` written in place of ``o`` adds once rule 3 rewrites it
        with the chain that ``o``'s one reader heads: the TRANSPOSEs of the best form less the
        chain's own (-1 for a detector head's ``RESHAPE → TRANSPOSE`` that becomes one RESHAPE);
        None when that reader is no chain link, the chain only TRANSPOSEs, or it has no
        factorization."""
        head = self.g.single_consumer(o)
        if not self._link(head) or head.inputs[0] is not o:
            return None
        chain = self._chain(head)
        if all(op.opcode == "TRANSPOSE" for op in chain):
            return None  # rule 1's case: Sink._output_cost counts it
        shape = unpermuted(o.shape, q)
        atoms = self._atoms(shape, chain, q)
        if atoms is None:
            return None
        best = _best(atoms, shape, chain[-1].outputs[0].shape)
        return _measure(best)[0] - sum(op.opcode == "TRANSPOSE" for op in chain)

    def _rewrite(self, chain: list[Operator]) -> bool:
        x, out = chain[0].inputs[0], chain[-1].outputs[0]
        atoms = None if x.is_constant else self._atoms(x.shape, chain)
        if atoms is None:
            return False
        steps = _best(atoms, x.shape, out.shape)
        old = [(op.opcode, self.e.perm(op) or ()) for op in chain]
        if _measure(steps) >= _measure(old):
            return False
        if not steps:
            return self.e.redirect(out, x)
        origin = origin_of(*chain)
        y = x
        for opcode, detail in steps:
            if opcode == "TRANSPOSE":
                y = self.e.transpose(y, detail, origin, f"{out.name}/shuffled")
            else:
                y = self.e.reshape(y, detail, origin, f"{out.name}/atoms")
        self.g.replace(out, y)
        return True

    # -- rule 4 ------------------------------------------------------------------------------
    def _absorb(self, op: Operator) -> bool:
        inputs, flags, absorbed = list(op.inputs), {}, []
        options = op.options or new_options("BatchMatMulOptions")
        for k, field in ((0, "adjointLhs"), (1, "adjointRhs")):
            src = self.g.producer(op.inputs[k])
            p = self.e.perm(src)
            if p is not None and swaps_last_two(p):
                inputs[k] = src.inputs[0]
                flags[field] = not getattr(options, field)
                absorbed.append(src)
        if not flags:
            return False
        out = op.outputs[0]
        new = self.g.tensor(out.name, out.dtype, out.shape)
        self.g.op(
            "BATCH_MATMUL",
            inputs,
            with_options(options, **flags),
            origin=origin_of(op, *absorbed),
            outputs=[new],
            version=op.version,
        )
        self.g.replace(out, new)
        return True


Steps = list[tuple[str, tuple]]


def _best(atoms: Atoms, shape: Shape, out: Shape) -> Steps:
    """The best of the chain's forms (see :func:`_measure`) from ``shape`` to ``out``."""
    forms = [_through_atoms(atoms, shape, out)]
    last = _transpose_last(atoms, shape, out)
    return min([*forms, last] if last is not None else forms, key=_measure)


def _through_atoms(atoms: Atoms, shape: Shape, out: Shape) -> Steps:
    """``RESHAPE(atoms) → TRANSPOSE(π) → RESHAPE(out)``, the identity parts left out."""
    sizes, pi = atoms.canonical()
    steps: Steps = []
    if not is_identity(pi):
        if tuple(sizes) != shape:
            steps.append(("RESHAPE", tuple(sizes)))
        steps.append(("TRANSPOSE", pi))
        shape = tuple(sizes[i] for i in pi)
    if shape != out:
        steps.append(("RESHAPE", out))
    return steps


def _transpose_last(atoms: Atoms, shape: Shape, out: Shape) -> Steps | None:
    """``RESHAPE → TRANSPOSE(σ)`` of the output's rank when each output axis is a run of
    atoms in input order (a detector head's ``[1,H,W,C] → [1,C,H·W]`` becomes ``[1,H·W,C]``
    and a swap, which later sinks through the CONCATENATION of the heads); None otherwise."""
    groups = [(i, g) for i, g in enumerate(atoms.axes) if g]
    for _, g in groups:
        at = [atoms.order.index(a) for a in g]
        if at != list(range(at[0], at[0] + len(at))):
            return None
    by_input = sorted(groups, key=lambda item: atoms.order.index(item[1][0]))
    slots = [i for i, _ in groups]
    middle, sigma = list(out), list(range(len(out)))
    for slot, (i, _) in zip(slots, by_input, strict=True):
        middle[slot] = out[i]
        sigma[i] = slot
    steps: Steps = [] if tuple(middle) == shape else [("RESHAPE", tuple(middle))]
    return steps + ([] if is_identity(tuple(sigma)) else [("TRANSPOSE", tuple(sigma))])


def _measure(steps: Steps) -> tuple[int, int, int, bool]:
    """(TRANSPOSEs, operators, TRANSPOSE ranks, a TRANSPOSE before the end) of a chain: lower
    is better; a TRANSPOSE at the end can sink further."""
    ranks = [len(detail) for opcode, detail in steps if opcode == "TRANSPOSE"]
    early = any(opcode == "TRANSPOSE" for opcode, _ in steps[:-1])
    return len(ranks), len(steps), sum(ranks), early
