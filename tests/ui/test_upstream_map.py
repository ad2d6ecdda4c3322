"""The reference's own test suite as the compatibility checklist: ``upstream.toml`` maps every
test of Samsung/ONE ``compiler/one-cmds/tests`` that could be found (323 of the 335 paths the
search index counts; the other 12 were never in the reference's main branch and could not be
named) to the UI cases that check the same behaviour, or to the reason none applies. A test
without either fails here; the cases themselves run in test_ui.py."""

from __future__ import annotations

from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
UPSTREAM = tomllib.loads((HERE / "upstream.toml").read_text())
CATALOGUED = 323


def test_every_upstream_test_is_mapped():
    assert len(UPSTREAM) == CATALOGUED
    unmapped = {name: entry for name, entry in UPSTREAM.items() if set(entry) - {"cases", "reason"}}
    assert not unmapped, f"upstream tests without a case or a reason: {unmapped}"


def test_each_entry_names_cases_that_exist_or_a_reason():
    cases = {p.name for p in (HERE / "cases").iterdir() if (p / "expect.toml").is_file()}
    for name, entry in UPSTREAM.items():
        assert len(entry) == 1, f"{name}: give cases or a reason, not both"
        if "reason" in entry:
            assert entry["reason"].strip(), f"{name}: empty reason"
            continue
        assert entry["cases"], f"{name}: no case"
        missing = set(entry["cases"]) - cases
        assert not missing, f"{name}: no UI case folder {sorted(missing)}"
