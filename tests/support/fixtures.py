"""The bundled fixture models, listed from tests/fixtures/manifest.json."""

import json
import os

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")

with open(os.path.join(FIXTURES, "manifest.json")) as _f:
    MANIFEST = json.load(_f)["models"]

ALL_MODELS = [m["file"] for m in MANIFEST]
FLOAT_MODELS = [m["file"] for m in MANIFEST if all(i["dtype"] == "float32" for i in m["inputs"])]
INLINE_MODELS = [m["file"] for m in MANIFEST if "external_buffers" not in m]
