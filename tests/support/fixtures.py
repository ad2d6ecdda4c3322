"""The bundled fixture models, listed from tests/fixtures/manifest.json."""

import json
import os

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")

with open(os.path.join(FIXTURES, "manifest.json")) as _f:
    MANIFEST = json.load(_f)["models"]

ALL_MODELS = [m["file"] for m in MANIFEST]
# Models LiteRT can run (no custom operators).
RUNNABLE_MODELS = [m["file"] for m in MANIFEST if not m.get("custom_ops")]
FLOAT_MODELS = [
    name
    for name, m in zip(ALL_MODELS, MANIFEST, strict=True)
    if name in RUNNABLE_MODELS and all(i["dtype"] == "float32" for i in m["inputs"])
]
POST_PROCESSED = {m["file"] for m in MANIFEST if m["post_processed"]}
INLINE_MODELS = [m["file"] for m in MANIFEST if "external_buffers" not in m]
