"""``one-import-pytorch`` against ``torch.onnx.export`` of the same model alone, whole
processes, in the same run (issue 17's target: at most 1.3x; the export dominates, the import
must add little).

    python benchmarks/pytorch_import.py [--repeat N]

Models: ``decoder.pt2`` of tests/fixtures/torch/aux_generator.py (the largest test fixture, a
Llama-style decoder with dynamic batch and sequence) and the same architecture at a larger size
(vocabulary 8192, hidden 256, 8 layers: about 40 MB). For each, the median of ``--repeat`` runs,
interleaved, of
  (e) ``python -c`` loading the ExportedProgram and running ``torch.onnx.export(ep, dynamo=True)``
      (the ONNX model kept in memory, as the import does);
  (i) ``one-import-pytorch -i <model>.pt2 -o <model>.circle``.
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
GENERATOR = os.path.join(HERE, "..", "tests", "fixtures", "torch", "aux_generator.py")
EXPORT_ONLY = """
import sys, torch
program = torch.export.load(sys.argv[1])
torch.onnx.export(program, (), dynamo=True, verbose=False).model_proto
"""
LARGE = """
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("aux", sys.argv[1])
aux = importlib.util.module_from_spec(spec); spec.loader.exec_module(aux)
torch.manual_seed(0)
model = aux.TinyDecoder(vocab=8192, hidden=256, heads=8, layers=8).eval()
dims = {0: torch.export.Dim("batch", max=64), 1: torch.export.Dim("seq", max=512)}
ids = (torch.zeros(2, 8, dtype=torch.int64),)
torch.export.save(torch.export.export(model, ids, dynamic_shapes=(dims,)), sys.argv[2])
"""


def _seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tool = os.path.join(os.path.dirname(sys.executable), "one-import-pytorch")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, GENERATOR, tmp], check=True, capture_output=True)
        large = os.path.join(tmp, "decoder_large.pt2")
        subprocess.run([sys.executable, "-c", LARGE, GENERATOR, large], check=True)
        for path in (os.path.join(tmp, "decoder.pt2"), large):
            export, imported = [], []
            for _ in range(args.repeat):
                export.append(_seconds([sys.executable, "-c", EXPORT_ONLY, path]))
                imported.append(_seconds([tool, "-i", path, "-o", path + ".circle"]))
            e, i = statistics.median(export), statistics.median(imported)
            size = os.path.getsize(path) / 2**20
            print(
                f"{os.path.basename(path)} ({size:.1f} MB): torch.onnx.export {e:.2f} s, "
                f"one-import-pytorch {i:.2f} s, ratio {i / e:.2f} (target <= 1.3)"
            )


if __name__ == "__main__":
    main()
