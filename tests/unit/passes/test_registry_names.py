"""The registry is the one truth about pass names: the option table and the O1 group of the
configuration and the run order of the optimize stage name registered passes only, every
registered pass is an option (or always on) and has a place in the run order, and each pass
module registers one pass."""

import importlib
import pkgutil
from collections import Counter

import one_cmds.passes
from one_cmds.config.passes import O1_PASSES, PASS_NAMES
from one_cmds.passes import load_passes
from one_cmds.stages.optimize.order import (
    ALWAYS,
    ARGUMENTS,
    FIRST,
    MAIN_PHASE,
    MODULE_PHASE,
    NCHW_CONVERSION,
    NCHW_OPTIONAL,
    NCHW_RESOLVERS,
    REPORT_ORDER,
)

REGISTERED = set(load_passes())


def test_every_option_names_a_registered_pass_or_an_argument():
    unknown = set(PASS_NAMES) - REGISTERED - ARGUMENTS
    assert not unknown, f"options without a registered pass: {sorted(unknown)}"
    assert not REGISTERED & ARGUMENTS
    assert set(PASS_NAMES) >= ARGUMENTS


def test_every_registered_pass_is_an_option_or_always_on():
    missing = REGISTERED - set(PASS_NAMES) - ALWAYS
    assert not missing, f"registered passes missing from the option table: {sorted(missing)}"
    assert not ALWAYS & set(PASS_NAMES)


def test_the_o1_group_names_registered_passes():
    assert set(O1_PASSES) <= REGISTERED


def test_the_run_order_names_registered_passes_once_each():
    named = {FIRST, *MODULE_PHASE, NCHW_CONVERSION, *NCHW_RESOLVERS, *NCHW_OPTIONAL, *ALWAYS}
    assert named | set(MAIN_PHASE) <= REGISTERED
    assert set(NCHW_RESOLVERS) | set(NCHW_OPTIONAL) <= set(MAIN_PHASE)
    repeated = [name for name, n in Counter(REPORT_ORDER).items() if n > 1]
    assert not repeated
    assert set(REPORT_ORDER) == REGISTERED, "every registered pass has a place in the order"


def test_each_pass_module_registers_one_pass():
    per_module = Counter(spec.run.__module__ for spec in load_passes().values())
    assert {module: n for module, n in per_module.items() if n != 1} == {}


def test_modules_directly_in_passes_are_passes():
    """Helpers live in toolkit/ or in a family folder, not among the passes."""
    registering = {spec.run.__module__ for spec in load_passes().values()}
    package = one_cmds.passes
    for module in pkgutil.iter_modules(package.__path__):
        name = f"{package.__name__}.{module.name}"
        if not module.ispkg:
            importlib.import_module(name)
            assert name in registering, f"{name} registers no pass"
