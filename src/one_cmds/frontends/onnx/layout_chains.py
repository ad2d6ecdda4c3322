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

from ...ir import Operator, Shape
from ...ir.schema import new_options
from ...passes.toolkit import origin_of, with_options
from .layout_edit import Perm, Rules, is_identity, swaps_last_two

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

    def _atoms(self, chain: list[Operator]) -> Atoms | None:
        x = chain[0].inputs[0]
        if x.is_constant or sum(d is None for d in x.shape) > 1 or 0 in x.shape:
            return None
        atoms = Atoms(x.shape)
        for op in chain:
            if op.opcode == "TRANSPOSE":
                atoms.transpose(self.e.perm(op))
            elif not atoms.reshape(op.outputs[0].shape):
                return None
        return atoms

    def _rewrite(self, chain: list[Operator]) -> bool:
        atoms = self._atoms(chain)
        if atoms is None:
            return False
        sizes, pi = atoms.canonical()
        x, out = chain[0].inputs[0], chain[-1].outputs[0]
        steps: list[tuple[str, tuple]] = []
        shape = x.shape
        if not is_identity(pi):
            if tuple(sizes) != shape:
                steps.append(("RESHAPE", tuple(sizes)))
            steps.append(("TRANSPOSE", pi))
            shape = tuple(sizes[i] for i in pi)
        if shape != out.shape:
            steps.append(("RESHAPE", out.shape))
        old = [(op.opcode, len(op.inputs[0].shape)) for op in chain]
        new = [(opcode, len(pi)) for opcode, _ in steps]
        if _measure(new) >= _measure(old):
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


def _measure(steps: list[tuple[str, int]]) -> tuple[int, int, int]:
    """(TRANSPOSEs, operators, TRANSPOSE ranks) of a chain: lower is better."""
    ranks = [rank for opcode, rank in steps if opcode == "TRANSPOSE"]
    return len(ranks), len(steps), sum(ranks)
