"""Import + export speed and memory against the bare circle-schema object API.

Builds a MobileNetV2-sized float model (about 14 MB, 60+ operators) with the project's own
graph API, writes it as .tflite, then measures in one run:

  (a) ``one_cmds.load`` + ``one_cmds.save`` to .circle (verification, origins, md5 included);
  (b) the bare object API: read the bytes, ``ModelT.InitFromPackedBuf``, ``Pack``, write.

Time: median of interleaved repetitions. Memory: in a fresh process, after one warm-up round
trip (module imports), the peak RSS during a second round trip minus the RSS just before it
(the kernel's peak-RSS mark is reset through /proc/self/clear_refs).
Targets: time(a) <= 1.5 x time(b); memory(a) < 2.5 x the file size.

Usage: python benchmarks/roundtrip.py [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def ours(src: str, dst: str) -> None:
    import one_cmds

    one_cmds.save(one_cmds.load(src), dst)


def bare(src: str, dst: str) -> None:
    import flatbuffers
    from circle_schema.v0_10.circle.Model import ModelT

    with open(src, "rb") as f:
        data = f.read()
    tree = ModelT.InitFromPackedBuf(data, 0)
    builder = flatbuffers.Builder(1024)
    builder.Finish(tree.Pack(builder), file_identifier=b"CIR0")
    with open(dst, "wb") as f:
        f.write(builder.Output())


def _imports() -> None:
    import flatbuffers  # noqa: F401
    from circle_schema.v0_10.circle.Model import ModelT  # noqa: F401

    import one_cmds  # noqa: F401


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _measure(mode: str, src: str, dst: str) -> None:
    """In a fresh process: warm up (imports, lazily loaded schema modules), reset the peak-RSS
    mark, run ``mode`` once more and print the growth of the peak over the RSS before it."""
    _imports()
    if mode != "none":
        {"ours": ours, "bare": bare}[mode](src, dst)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    before = _status_kib("VmRSS")
    if mode != "none":
        {"ours": ours, "bare": bare}[mode](src, dst)
    print(_status_kib("VmHWM") - before)


def _peak_growth_kib(mode: str, src: str, dst: str) -> int:
    """Peak RSS growth (KiB) of a fresh interpreter running one round trip of ``mode``."""
    code = "import sys; sys.path.insert(0, %r); import roundtrip; roundtrip._measure(*sys.argv[1:])"
    out = subprocess.run(
        [sys.executable, "-c", code % HERE, mode, src, dst],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    sys.path.insert(0, HERE)
    from mobilenet_v2 import build_mobilenet_v2

    import one_cmds

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "mobilenet_v2.tflite")
        model = build_mobilenet_v2()
        one_cmds.save(model, src)
        size = os.path.getsize(src)
        ops = len(one_cmds.load(src).main.operators)
        print(f"model: {size / 2**20:.1f} MiB, {ops} operators")

        times: dict[str, list[float]] = {"ours": [], "bare": []}
        for _ in range(args.repeat):
            for name, fn in (("ours", ours), ("bare", bare)):
                start = time.perf_counter()
                fn(src, os.path.join(tmp, f"{name}.circle"))
                times[name].append(time.perf_counter() - start)
        t_ours, t_bare = (statistics.median(times[k]) for k in ("ours", "bare"))
        print(f"time (a) one_cmds load+save : {t_ours * 1e3:8.1f} ms")
        print(f"time (b) bare unpack+pack   : {t_bare * 1e3:8.1f} ms")
        print(f"time ratio (a)/(b)          : {t_ours / t_bare:8.2f}  (target <= 1.5)")

        for key, label in (("ours", "(a)"), ("bare", "(b)")):
            extra = _peak_growth_kib(key, src, os.path.join(tmp, f"m_{key}.circle")) * 1024
            ratio = extra / size
            print(f"peak memory {label} over base: {extra / 2**20:6.1f} MiB = {ratio:.2f} x file")
        print("memory target: (a) < 2.5 x file")


if __name__ == "__main__":
    main()
