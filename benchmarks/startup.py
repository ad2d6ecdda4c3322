"""Start-up time of the command line, whole processes, against ``python -c pass``.

    python benchmarks/startup.py [--repeat N]

Median of ``--repeat`` (at least 7) runs of each, interleaved, in the same run:
  (0) ``python -c pass``, the floor;
  (v) ``onecc -v``; (h) ``onecc --help``;
  (c) ``onecc -C`` of a configuration with a typo in a key (a config error, exit 255);
  (i) ``one-import-tflite`` of a MobileNetV2-size model (14 MB) to circle, against
  (b) the bare circle-schema script: read, ``ModelT.InitFromPackedBuf``, ``Pack``, write.
Targets: (v), (h) <= 8 x (0); (c) <= 12 x (0); (i) <= 1.2 x (b).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from model_files import save_mobilenet_v2  # noqa: E402

BARE = """
import sys
import flatbuffers
from circle_schema.v0_10.circle.Model import ModelT
with open(sys.argv[1], "rb") as f:
    data = f.read()
tree = ModelT.InitFromPackedBuf(data, 0)
builder = flatbuffers.Builder(1024)
builder.Finish(tree.Pack(builder), file_identifier=b"CIR0")
with open(sys.argv[2], "wb") as f:
    f.write(builder.Output())
"""
TYPO_CONFIG = "[onecc]\none-import-tflite=True\n\n[one-import-tflite]\ninput_pat=a.tflite\n"


def _tool(name: str) -> str:
    return os.path.join(os.path.dirname(sys.executable), name)


def _seconds(command: list[str], expect_ok: bool) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spent = time.perf_counter() - started
    if (done.returncode == 0) != expect_ok:
        raise SystemExit(f"{' '.join(command)} exited with {done.returncode}")
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    repeat = max(7, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "mobilenet_v2.tflite")
        save_mobilenet_v2(model)
        config = os.path.join(tmp, "typo.cfg")
        with open(config, "w") as f:
            f.write(TYPO_CONFIG)
        out = os.path.join(tmp, "out.circle")
        runs = {
            "0": ([sys.executable, "-c", "pass"], True),
            "v": ([_tool("onecc"), "-v"], True),
            "h": ([_tool("onecc"), "--help"], True),
            "c": ([_tool("onecc"), "-C", config], False),
            "i": ([_tool("one-import-tflite"), "-i", model, "-o", out], True),
            "b": ([sys.executable, "-c", BARE, model, out], True),
        }
        times: dict[str, list[float]] = {key: [] for key in runs}
        for command, ok in runs.values():
            _seconds(command, ok)  # warm-up: page cache, .pyc files
        for _ in range(repeat):
            for key, (command, ok) in runs.items():
                times[key].append(_seconds(command, ok))
    median = {key: statistics.median(spent) for key, spent in times.items()}
    floor = median["0"]
    print(f"whole processes, median of {repeat}")
    print(f"  (0) python -c pass               : {floor * 1e3:7.1f} ms")
    for key, label, target in (("v", "onecc -v", 8), ("h", "onecc --help", 8),
                               ("c", "onecc -C <config with a typo>", 12)):  # fmt: skip
        ratio = median[key] / floor
        print(f"  ({key}) {label:30s}: {median[key] * 1e3:7.1f} ms = {ratio:5.1f} x (0)"
              f"  (target <= {target})")  # fmt: skip
    ratio = median["i"] / median["b"]
    print(f"  (b) bare circle-schema unpack+pack: {median['b'] * 1e3:7.1f} ms")
    print(f"  (i) one-import-tflite MobileNetV2   : {median['i'] * 1e3:7.1f} ms = "
          f"{ratio:5.2f} x (b)  (target <= 1.2)")  # fmt: skip


if __name__ == "__main__":
    main()
