"""Where each program's documentation is: its page under ``docs/`` and its section of the
generated key reference (``docs/reference/keys.md``), named at the end of its ``--help``."""

from __future__ import annotations

DRIVER_PAGES = {
    "one-import-tflite": "drivers/import-tflite.md",
    "one-import-circle": "drivers/import-tflite.md",
    "one-import-tf": "drivers/import-tf.md",
    "one-import-bcq": "drivers/import-tf.md",
    "one-import-onnx": "drivers/import-onnx.md",
    "one-import-pytorch": "drivers/import-pytorch.md",
    "one-resize": "drivers/resize.md",
    "one-optimize": "drivers/optimize.md",
    "one-quantize": "drivers/quantize.md",
    "one-pack": "drivers/pack.md",
    "one-codegen": "drivers/backends.md",
    "one-profile": "drivers/backends.md",
    "one-infer": "drivers/backends.md",
    "one-partition": "drivers/partition.md",
}
OTHER_PAGES = {
    "onecc": "configuration.md",
    "one-build": "configuration.md",
    "one-import": "drivers/import-tflite.md",
    "rawdata2hdf5": "guides/quantization.md",
    "one-create-quant-dataset": "guides/quantization.md",
}
KEYS = "reference/keys.md"


def docs_lines(prog: str) -> list[str]:
    """The page of ``prog`` and its section of the key reference, as lines for ``--help``
    (none for a program without a page)."""
    if prog in DRIVER_PAGES:
        return [f"Documentation: docs/{DRIVER_PAGES[prog]}", f"Keys: docs/{KEYS}#{prog}"]
    if prog in OTHER_PAGES:
        return [f"Documentation: docs/{OTHER_PAGES[prog]}", f"Keys: docs/{KEYS}"]
    return []
