"""The hand-off does not matter (cli-and-config.md §10), for the UI cases: a case whose
configuration runs two or more steps with success is run again as one ``onecc -C`` per step
(the same configuration with only that step switched on, so each step reads the file the
previous one wrote; each run in the test's process, support/in_process.py), and every file the
two runs write, step logs aside, has the same bytes (tests/ui/test_ui.py runs it after the
case's own checks).

One difference is by design and left out: profiling turned on for a later step only. In
memory that step still knows the origins and the md5 of the first import; a file written
without the tables cannot carry them (circle-format-and-metadata.md §7.1).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from one_cmds.config.reader import ConfigFile, read_config, tomllib
from one_cmds.config.sections import PROFILE_KEYS, read_profile, read_switches
from one_cmds.config.steps import ALL_STEPS, LEGACY_STEPS
from one_cmds.config.values import to_bool
from support.in_process import run_program
from support.ui_cases import CASES, case_environment, default_args, prepare

STEP_SWITCH = re.compile(r"^(\s*)(\"?)(one-[\w-]+)(\"?)(\s*[=:]\s*)(.*)$")
SWITCH_SECTIONS = ("[onecc]", "[one-build]")


def separate_steps(name: str) -> list[str]:
    """The steps the case's configuration runs, if it is run with ``onecc -C`` and succeeds
    (and no later step turns profiling on after an earlier one without it)."""
    expect = tomllib.loads((CASES / name / "expect.toml").read_text())
    if expect["exit_code"] != 0 or expect.get("program", "onecc") != "onecc":
        return []
    configs = [
        p.name
        for p in (CASES / name).iterdir()
        if p.suffix in (".cfg", ".toml") and p.name != "expect.toml" and not p.name.startswith("O")
    ]
    if len(configs) != 1 or _extra_args(expect, configs[0]) is None:
        return []
    config = read_config(str(CASES / name / configs[0]))
    steps = read_switches(config).enabled
    profiles = [_profile(config, step) for step in steps]
    if any(not a and b for a, b in itertools.pairwise(profiles)):
        return []  # profiling on after a step without it: the documented difference
    return steps


def _extra_args(expect: dict, config: str) -> list[str] | None:
    """What the case's command line adds to ``-C <config>`` (-V, -b, -T), or None when the
    case runs otherwise (another program's, ``--dry-run``, ``-W``, options for a driver)."""
    args = expect.get("args", ["-C", config])
    if args[:2] != ["-C", config]:
        return None
    extra = args[2:]
    flags = [a for k, a in enumerate(extra) if k == 0 or extra[k - 1] not in ("-b", "-T")]
    return extra if set(flags) <= {"-V", "-b", "-T"} else None


def _profile(config: ConfigFile, step: str) -> bool:
    """Whether ``step`` writes the profiling tables (cli-and-config.md §12)."""
    section = config.sections.get(step, {})
    for key in PROFILE_KEYS:
        if key in section:
            return to_bool(section[key], config.source(step), key)
    return read_profile(config)


def only_step(text: str, step: str) -> str:
    """The configuration ``text`` with every step switch of [onecc]/[one-build] off but
    ``step``'s (INI or TOML: the switch lines are alike)."""
    lines, section = [], ""
    steps = {*ALL_STEPS, *LEGACY_STEPS}
    for line in text.splitlines():
        if line.strip().startswith("["):
            section = line.strip()
        found = STEP_SWITCH.match(line)
        if section in SWITCH_SECTIONS and found and found.group(3) in steps:
            indent, quote, key, close, equals, _ = found.groups()
            line = f"{indent}{quote}{key}{close}{equals}{'true' if key == step else 'false'}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` but the step logs (they hold times)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".log")
    }


def check_separate_commands(
    name: str, work: Path, before: dict[str, bytes], expect: dict, folder: Path
) -> None:
    """The case run again in ``folder``, a command per step: the files written in ``work``
    (those not in ``before``) are written again with the same bytes."""
    parts, _ = prepare(name, folder)
    config = default_args(parts)[1]
    text = (parts / config).read_text()
    given = {**before, **files(parts)}
    extra = _extra_args(expect, config) or []
    for folder_name in expect.get("mkdirs", []):
        (parts / folder_name).mkdir(parents=True, exist_ok=True)
    for k, step in enumerate(separate_steps(name)):
        single = f"step{k}.{config.rsplit('.', 1)[1]}"
        given[single] = b""
        (parts / single).write_text(only_step(text, step))
        code = run_program("onecc", ["-C", single, *extra], parts, case_environment(expect))
        assert code == 0, f"{step} alone exited with {code}"
    together = {p: data for p, data in files(work).items() if p not in given}
    apart = {p: data for p, data in files(parts).items() if p not in given}
    assert sorted(together) == sorted(apart)
    differ = [path for path in together if together[path] != apart[path]]
    assert not differ, f"in memory and through files differ: {differ}"
