"""Step switches, sections and execution order of a configuration (cli-and-config.md §8, §9)."""

from __future__ import annotations

from one_cmds.pipeline import STEP_ORDER

IMPORT_SWITCHES = (
    "one-import-tflite",
    "one-import-circle",
    "one-import-tf",
    "one-import-onnx",
    "one-import-bcq",
    "one-import-pytorch",
)
# Every step key of [onecc], in execution order (§9).
ALL_STEPS = (
    *IMPORT_SWITCHES,
    "one-resize",
    "one-optimize",
    "one-quantize",
    "one-pack",
    "one-codegen",
    "one-profile",
    "one-partition",
    "one-infer",
)
# The legacy one-build runs every step but one-infer (§9.1).
LEGACY_STEPS = tuple(step for step in ALL_STEPS if step != "one-infer")
RUN_STEPS = frozenset(STEP_ORDER)
ONECC = "onecc"
ONE_BUILD = "one-build"
ENVIRONMENT = "Environment"
PROFILE = "profile"
BACKEND = "backend"
KNOWN_SECTIONS = (ONECC, ONE_BUILD, ENVIRONMENT, PROFILE, BACKEND, *ALL_STEPS)
BACKEND_STEPS = ("one-codegen", "one-profile")
