"""The plan of a build and the loop that runs it: :mod:`.plan` (steps, their order, the
hand-off rule; light, configuration checking imports it), :mod:`.run` (one dispatch for every
step), :mod:`.log` (step logs), :mod:`.environment` (``[Environment]`` during a run)."""

from .environment import environment
from .plan import Plan, Step, receives, same_file

__all__ = ["Plan", "Step", "environment", "receives", "same_file"]
