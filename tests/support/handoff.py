"""A build run two ways (cli-and-config.md §10): as one ``onecc -C`` configuration, each step
handing its model to the next in memory, and as one single-step driver command per step
(``one-import-onnx -i ... -o ...``, ``one-resize -s ...``, ``one-optimize --O1``,
``one-quantize ...``), each reading the file the previous one wrote. Each runs in the test's
process as its console script would (support/in_process.py). Profiling data is on in both, so
origins and the source md5 travel through the files too."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from support.in_process import run_program
from support.ui_cases import case_environment

OUT = "out"


@dataclass(frozen=True)
class Flow:
    """import -> (resize) -> O1 -> quantize of ``source``; options by configuration key (the
    driver flag is ``--<key>``; True is a bare flag)."""

    importer: str
    source: str
    import_options: dict[str, str | bool] = field(default_factory=dict)
    resize: str | None = None
    quantize_options: dict[str, str | bool] = field(default_factory=dict)

    def steps(self) -> list[tuple[str, str, dict[str, str | bool]]]:
        """(driver, output file, options) in order; each step reads the previous output."""
        steps = [(self.importer, "m.circle", {**self.import_options})]
        if self.resize is not None:
            steps.append(("one-resize", "m.static.circle", {"input_shapes": self.resize}))
        steps.append(("one-optimize", "m.opt.circle", {"O1": True}))
        steps.append(("one-quantize", "m.q.circle", {**self.quantize_options}))
        return steps


def _paths(flow: Flow) -> list[tuple[str, str, str, dict[str, str | bool]]]:
    """(driver, input, output, options) of every step."""
    found, previous = [], flow.source
    for driver, name, options in flow.steps():
        output = f"{OUT}/{name}"
        found.append((driver, previous, output, options))
        previous = output
    return found


def config_text(flow: Flow) -> str:
    steps = _paths(flow)
    lines = ["[profile]", "profile_info=True", "", "[onecc]"]
    lines += [f"{driver}=True" for driver, *_ in steps]
    for driver, source, output, options in steps:
        lines += ["", f"[{driver}]", f"input_path={source}", f"output_path={output}"]
        lines += [f"{key}={value}" for key, value in options.items()]
    return "\n".join(lines) + "\n"


def commands(flow: Flow) -> list[list[str]]:
    found = []
    for driver, source, output, options in _paths(flow):
        command = [driver, "-i", source, "-o", output, "--generate_profile_data"]
        for key, value in options.items():
            command += [f"--{key}"] if value is True else [f"--{key}", str(value)]
        found.append(command)
    return found


def _run(folder: Path, program: str, args: list[str]) -> None:
    code = run_program(program, args, folder, case_environment({}))
    assert code == 0, f"{program} {args} exited with {code}"


def outputs(folder: Path) -> dict[str, bytes]:
    """Every file the build wrote, the step logs aside (they hold times)."""
    out = folder / OUT
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not p.name.endswith(".log")
    }


def run_both(flow: Flow, folder: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The files of the one-configuration run and of the per-step commands."""
    together, apart = folder / "together", folder / "apart"
    for where in (together, apart):
        (where / OUT).mkdir(parents=True)
    (together / "flow.cfg").write_text(config_text(flow))
    _run(together, "onecc", ["-C", "flow.cfg"])
    for command in commands(flow):
        _run(apart, command[0], command[1:])
    return outputs(together), outputs(apart)


def differing(together: dict[str, bytes], apart: dict[str, bytes]) -> list[str]:
    """The files that are not in both runs or whose bytes differ."""
    names = sorted(set(together) | set(apart))
    return [name for name in names if together.get(name) != apart.get(name)]
