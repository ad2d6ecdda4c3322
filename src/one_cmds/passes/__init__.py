"""Optimization passes, one module per pass (a family may share a folder, with the helpers
only it uses), registered under the ONE option name (optimization.md §3).

A graph pass is ``fn(g: GraphEditor) -> int``: it rewrites one subgraph through the editor
and returns how many rewrites it made (0: nothing changed). A model pass is
``fn(model, options) -> int`` and runs once per model (``fuse_bcq``,
``convert_nchw_to_nhwc``, ``dynamic_batch_to_single_batch``). The shared pattern toolkit
lives in :mod:`one_cmds.passes.toolkit`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

GRAPH = "graph"
MODEL = "model"


@dataclass(frozen=True)
class PassSpec:
    """A registered pass.

    ``exact``: the rewrite keeps every float result bit for bit up to reassociation-free
    arithmetic (False for passes that reorder float arithmetic, e.g. folding a scale into
    weights; ``--verify`` then allows 1e-4 instead of 1e-5). ``changes_results``: the pass
    changes results on purpose (``make_batchnorm_gamma_positive``); ``--verify`` reports it.
    """

    name: str
    run: Callable[..., int]
    scope: str
    exact: bool = True
    changes_results: bool = False


PASSES: dict[str, PassSpec] = {}


def _register(name: str, scope: str, **flags: bool) -> Callable[[Callable[..., int]], Any]:
    def add(fn: Callable[..., int]) -> Callable[..., int]:
        if name in PASSES:
            raise ValueError(f"two passes named {name}")
        PASSES[name] = PassSpec(name, fn, scope, **flags)
        return fn

    return add


def graph_pass(name: str, *, exact: bool = True, changes_results: bool = False):
    """Register ``fn(g: GraphEditor) -> int`` as the pass ``name``."""
    return _register(name, GRAPH, exact=exact, changes_results=changes_results)


class PassOptions(Protocol):
    """What a model pass may read of the ``one-optimize`` step's options."""

    @property
    def passes(self) -> Mapping[str, bool]:
        """Every pass name and whether it is enabled (``nchw_to_nhwc_*_shape`` too)."""

    @property
    def disable_validation(self) -> bool: ...

    @property
    def mute_warnings(self) -> bool: ...


def model_pass(name: str, *, exact: bool = True, changes_results: bool = False):
    """Register ``fn(model, options) -> int`` as the pass ``name`` (runs on the whole model)."""
    return _register(name, MODEL, exact=exact, changes_results=changes_results)


def load_passes() -> dict[str, PassSpec]:
    """Import every pass module, family folders included (each registers itself), and return
    the registry."""
    for module in pkgutil.walk_packages(__path__, f"{__name__}."):
        if not module.ispkg and f"{__name__}.toolkit." not in module.name:
            importlib.import_module(module.name)
    return PASSES
