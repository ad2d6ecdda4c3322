"""Step switches and sections of a configuration (cli-and-config.md §8, §9); the steps and
their order are the pipeline's (``pipeline.plan``)."""

from __future__ import annotations

from one_cmds.pipeline.plan import IMPORT_SWITCHES, RUN_STEPS, STEP_ORDER

__all__ = ["IMPORT_SWITCHES", "RUN_STEPS"]  # the pipeline's, for the configuration's checks
# Every step key of [onecc], in execution order (§9).
ALL_STEPS = STEP_ORDER
# The legacy one-build runs every step but one-infer (§9.1).
LEGACY_STEPS = tuple(step for step in ALL_STEPS if step != "one-infer")
ONECC = "onecc"
ONE_BUILD = "one-build"
ENVIRONMENT = "Environment"
PROFILE = "profile"
BACKEND = "backend"
KNOWN_SECTIONS = (ONECC, ONE_BUILD, ENVIRONMENT, PROFILE, BACKEND, *ALL_STEPS)
BACKEND_STEPS = ("one-codegen", "one-profile")
