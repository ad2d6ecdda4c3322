"""``onecc -W --ray``: a model zoo's builds as Ray tasks against ``onecc -W`` one after another.

    python benchmarks/ray_workflows.py [--builds 8] [--records 64]

The MobileNetV2-size float model (benchmarks/mobilenet_v2.py) is built once; each of the
``--builds`` workflows is a configuration (``cfg-reference``) importing it, optimizing it with
the O1 group (configs/O1.cfg) and quantizing it to uint8 on ``--records`` seeded random records
(npz). Every run is a child process, as a user runs ``onecc``:
  (s) ``onecc -W`` (sequential, the baseline);
  (r) ``onecc -W --ray ADDRESS`` joining a local cluster of 2 CPUs started beforehand (by a
      holder process, ``ray.init(num_cpus=2)``): the workflows' time on the cluster;
  (c) ``onecc -W --ray`` starting its own local cluster (all CPUs of the machine): what a user
      pays with no cluster running; its ``ray: ... ready in N s`` line is Ray's start-up.
Also timed: the holder's cluster start. Every run's outputs are checked byte for byte against
(s)'s. Target: (s) / (r) >= 1.7 on 2 cores.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from model_files import save_mobilenet_v2  # noqa: E402

REPO = os.path.dirname(HERE)
ONECC = [sys.executable, os.path.join(REPO, "onecc")]
HOLDER = """
import sys, time, ray
started = time.perf_counter()
context = ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
print(context.address_info["gcs_address"], time.perf_counter() - started, flush=True)
sys.stdin.read()  # runs until the benchmark closes its stdin
ray.shutdown()
"""


def _write_zoo(folder: str, builds: int, records: int) -> str:
    """The model, the records and one configuration per build; the workflow file's name."""
    save_mobilenet_v2(os.path.join(folder, "mobilenet_v2.tflite"))
    rng = np.random.default_rng(0)
    data = rng.standard_normal((records, 1, 224, 224, 3)).astype(np.float32)
    np.savez(os.path.join(folder, "records.npz"), **{"0": data})
    with open(os.path.join(REPO, "configs", "O1.cfg"), encoding="utf-8") as f:
        o1 = f.read().rstrip("\n")
    workflows: dict[str, object] = {}
    for number in range(builds):
        name = f"build{number}"
        config = (
            "[onecc]\none-import-tflite=True\none-optimize=True\none-quantize=True\n\n"
            "[one-import-tflite]\ninput_path=mobilenet_v2.tflite\n"
            f"output_path=out/{name}.circle\n\n"
            f"{o1}\ninput_path=out/{name}.circle\noutput_path=out/{name}.opt.circle\n\n"
            f"[one-quantize]\ninput_path=out/{name}.opt.circle\n"
            f"output_path=out/{name}.q8.circle\ninput_data=records.npz\n"
            "input_data_format=npz\nquantized_dtype=uint8\n"
        )
        with open(os.path.join(folder, f"{name}.cfg"), "w", encoding="utf-8") as f:
            f.write(config)
        workflows[name] = {"cfg-reference": {"path": f"{name}.cfg"}}
    with open(os.path.join(folder, "zoo.workflow.json"), "w", encoding="utf-8") as f:
        json.dump({"workflows": list(workflows), **workflows}, f, indent=1)
    return "zoo.workflow.json"


def _run(folder: str, args: list[str], **env: str) -> tuple[float, str]:
    """Seconds and stdout of ``onecc args`` in ``folder`` (its outputs cleared first)."""
    shutil.rmtree(os.path.join(folder, "out"), ignore_errors=True)
    os.mkdir(os.path.join(folder, "out"))
    started = time.perf_counter()
    environment = {**os.environ, **env}
    done = subprocess.run(
        [*ONECC, *args], cwd=folder, capture_output=True, text=True, env=environment
    )
    spent = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"onecc {' '.join(args)} exited with {done.returncode}:\n{done.stderr}")
    return spent, done.stdout


def _keep(folder: str, name: str) -> str:
    kept = os.path.join(folder, name)
    shutil.copytree(os.path.join(folder, "out"), kept)
    return kept


def _same(a: str, b: str) -> bool:
    names = sorted(n for n in os.listdir(a) if n.endswith(".circle"))
    same, _, _ = filecmp.cmpfiles(a, b, names, shallow=False)
    return names == sorted(n for n in os.listdir(b) if n.endswith(".circle")) and len(same) == len(
        names
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--builds", type=int, default=8)
    parser.add_argument("--records", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="one-cmds-ray-bench-") as folder:
        workflow = _write_zoo(folder, args.builds, args.records)
        sequential, _ = _run(folder, ["-W", workflow])
        baseline = _keep(folder, "sequential")
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            address, cluster_start = holder.stdout.readline().split()  # type: ignore[union-attr]
            # Ray 2.5x's local clusters take a token (~/.ray/auth_token); joiners must say so
            warm, _ = _run(folder, ["-W", workflow, "--ray", address], RAY_AUTH_MODE="token")
            warm_same = _same(baseline, os.path.join(folder, "out"))
        finally:
            holder.stdin.close()  # type: ignore[union-attr]
            holder.wait(timeout=60)
        cold, stdout = _run(folder, ["-W", workflow, "--ray"])
        cold_same = _same(baseline, os.path.join(folder, "out"))
    ready = re.search(r"ready in ([0-9.]+) s", stdout)
    start_up = float(ready.group(1)) if ready else float("nan")
    print(
        f"{args.builds} MobileNetV2 builds (import, O1, uint8 quantize on {args.records} records)"
    )
    print(f"  (s) onecc -W, sequential:                    {sequential:7.1f} s")
    print(f"  (r) onecc -W --ray <2-CPU cluster running>:  {warm:7.1f} s  (s)/(r) = "
          f"{sequential / warm:.2f}  (target >= 1.7)  same bytes: {warm_same}")  # fmt: skip
    print(f"  (c) onecc -W --ray, starting its cluster:    {cold:7.1f} s  (s)/(c) = "
          f"{sequential / cold:.2f}  same bytes: {cold_same}")  # fmt: skip
    print(f"  Ray start-up: {start_up:.1f} s in (c) (ray.init of a local cluster); "
          f"{float(cluster_start):.1f} s for the holder's 2-CPU cluster; "
          f"(c) - (r) = {cold - warm:.1f} s")  # fmt: skip
    print(f"  CPUs: {os.cpu_count()} (affinity {len(os.sched_getaffinity(0))})")


if __name__ == "__main__":
    main()
