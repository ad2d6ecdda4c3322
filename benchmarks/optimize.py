"""O1 speed: the optimizer's cost over a plain import + export, and how scheduling scales.

1. MobileNetV2 (3.5M parameters, written as .tflite first), measured in one run with
   interleaved repetitions (median):
     (a) ``load`` + ``optimize(O1)`` + ``save`` to .circle,
     (b) ``load`` + ``save`` (the baseline, same files).
   Twice: as the TFLite converter writes it (batch norms already folded: O1 finds little) and
   with unfused batch norms (MUL + ADD + RELU6 after every convolution: O1 folds 52 batch
   norms into the weights and fuses the activations). Target: (a) <= 1.5 x (b).
2. A synthetic chain of N operators with many matches (repeating CONV_2D 1x1, MUL, ADD,
   RELU, TRANSPOSE, TRANSPOSE, RESHAPE, RESHAPE on a [1,4,4,8] tensor): O1 on the in-memory
   model for N = 1,000 and N = 10,000. Target: t(10,000) <= 10 x t(1,000). For reference the
   same ratio is printed for a plain linear walk of the same graphs (copy + one round of
   shape inference): in CPython the time per object grows with the heap (cache misses), so a
   linear algorithm shows a ratio somewhat above 10 too.

Usage: python benchmarks/optimize.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np
from timing import median_seconds

HERE = os.path.dirname(os.path.abspath(__file__))
UNIT = 8  # operators per repeated unit of the chain


def chain_model(operators: int):
    """The synthetic chain of ``operators`` operators (a multiple of UNIT)."""
    from one_cmds.ir import Graph, Model, Operator, Tensor
    from one_cmds.passes.toolkit import new_options

    rng = np.random.default_rng(0)
    shape = (1, 4, 4, 8)
    x = Tensor("input", "FLOAT32", shape)
    graph_input, ops = x, []

    def add(opcode, inputs, out_shape, options=None):
        out = Tensor(f"t{len(ops)}", "FLOAT32", out_shape)
        ops.append(Operator(opcode, inputs, [out], options))
        return out

    def const(name, array):
        return Tensor.constant(f"{name}{len(ops)}", np.asarray(array))

    conv = new_options("Conv2DOptions", padding=0, strideH=1, strideW=1)
    for _ in range(operators // UNIT):
        w = rng.standard_normal((8, 1, 1, 8)).astype(np.float32) * 0.3
        y = add("CONV_2D", [x, const("w", w), const("b", np.zeros(8, np.float32))], shape, conv)
        scale = (1.0 + 0.1 * rng.standard_normal(shape[3:])).astype(np.float32)
        y = add("MUL", [y, const("s", scale.reshape(1, 1, 1, 8))], shape, new_options("MulOptions"))
        y = add("ADD", [y, const("o", np.full((1, 1, 1, 8), 0.1, np.float32))], shape,
                new_options("AddOptions"))  # fmt: skip
        y = add("RELU", [y], shape)
        y = add("TRANSPOSE", [y, const("p", np.array([0, 3, 1, 2], np.int32))], (1, 8, 4, 4))
        y = add("TRANSPOSE", [y, const("q", np.array([0, 2, 3, 1], np.int32))], shape)
        y = add("RESHAPE", [y, const("r", np.array([1, 16, 8], np.int32))], (1, 16, 8))
        x = add("RESHAPE", [y, const("r", np.array(shape, np.int32))], shape)
    return Model(graphs=[Graph("main", [graph_input], [x], ops)], source_md5="0" * 32)


def mobilenet(repeat: int, unfused: bool) -> None:
    from mobilenet_v2 import build_mobilenet_v2

    import one_cmds

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "mobilenet_v2.tflite")
        one_cmds.save(build_mobilenet_v2(unfused=unfused), src)
        dst = os.path.join(tmp, "out.circle")

        def plain():
            one_cmds.save(one_cmds.load(src), dst)

        def optimized():
            one_cmds.save(one_cmds.optimize(one_cmds.load(src), "O1"), dst)

        before = one_cmds.load(src).operator_count()
        optimized()
        after = one_cmds.load(dst).operator_count()
        times: dict[str, list[float]] = {"plain": [], "O1": []}
        for _ in range(repeat):
            for key, fn in (("plain", plain), ("O1", optimized)):
                start = time.perf_counter()
                fn()
                times[key].append(time.perf_counter() - start)
        t_plain, t_o1 = (statistics.median(times[k]) for k in ("plain", "O1"))
        label = "unfused batch norms" if unfused else "as converted"
        size = os.path.getsize(src) / 2**20
        print(f"MobileNetV2 ({label}, {size:.1f} MiB, {before} -> {after} operators)")
        print(f"  (a) load + O1 + save : {t_o1 * 1e3:8.1f} ms")
        print(f"  (b) load + save      : {t_plain * 1e3:8.1f} ms")
        print(f"  ratio (a)/(b)        : {t_o1 / t_plain:8.2f}  (target <= 1.5)")


def chains(repeat: int) -> None:
    import one_cmds
    from one_cmds.shape import infer_shapes

    def walk(model):
        infer_shapes(model.copy())

    seconds, walks = {}, {}
    for n in (1_000, 10_000):
        model = chain_model(n)
        seconds[n] = median_seconds(lambda model=model: one_cmds.optimize(model, "O1"), repeat)
        walks[n] = median_seconds(lambda model=model: walk(model), repeat)
        after = one_cmds.optimize(model, "O1").operator_count()
        print(
            f"chain of {n:6,d} operators: O1 {seconds[n]:7.2f} s ({n} -> {after} operators), "
            f"linear walk {walks[n] * 1e3:6.1f} ms"
        )
    ratio = seconds[10_000] / seconds[1_000]
    print(f"  ratio t(10,000)/t(1,000): {ratio:.1f}  (target <= 10)")
    print(f"  same ratio of the linear walk: {walks[10_000] / walks[1_000]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    mobilenet(args.repeat, unfused=False)
    mobilenet(args.repeat, unfused=True)
    chains(args.repeat)


if __name__ == "__main__":
    main()
