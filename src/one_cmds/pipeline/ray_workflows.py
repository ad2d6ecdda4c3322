"""Workflows on a Ray cluster (``onecc -W --ray``, cli-and-config.md §15): one Ray task per
workflow, the tasks of its ``run-after`` workflows passed as its arguments. Each task runs its
workflow's plan in process exactly as ``onecc -W`` does, in the driver's current directory.

A worker process that dies is replaced and the task run again (``MAX_RETRIES`` times); an error
of the build is not retried. A workflow after one that did not finish is not run; independent
workflows go on. The first failure in run order is raised at the end, as a local run raises it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from types import ModuleType

from ..engines.ray_cluster import ADDRESS_VARIABLE, active
from ..errors import StageError
from ..formats.files import temporary_path
from ..report import console
from .environment import environment
from .plan import Plan

MAX_RETRIES = 2  # a task whose worker process dies runs at most 1 + MAX_RETRIES times
DONE, FAILED, NOT_RUN = "done", "failed", "not run"
FORWARDED = ("ONECC_", "ONE_CMDS_")  # the driver's variables a task runs with
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class Workflow:
    """One workflow of a workflow file: its name, its validated plan, its ``run-after``."""

    name: str
    plan: Plan
    after: tuple[str, ...] = ()


@dataclass
class Outcome:
    """How a workflow ended: ``status`` is DONE, FAILED (``error``) or NOT_RUN (``note``)."""

    name: str
    status: str
    seconds: float = 0.0
    error: Exception | None = None
    note: str = ""
    ended: float = field(default_factory=time.time)  # when it ended (the line's place)
    attempts: list[int] = field(default_factory=list)  # the worker PID of each start

    def line(self) -> str:
        """The progress line of a finished workflow."""
        if self.status == DONE:
            return f"{self.name}: done ({self.seconds:.1f} s)"
        if self.status == FAILED:
            return f"{self.name}: failed: {self.note}"
        return f"{self.name}: not run ({self.note})"


class Events:
    """The driver's mailbox (a Ray actor): tasks say when they start and in which process."""

    def __init__(self) -> None:
        self.unread: list[tuple[float, str, int]] = []
        self.starts: dict[str, list[int]] = {}

    def started(self, name: str, pid: int, at: float) -> None:
        self.starts.setdefault(name, []).append(pid)
        self.unread.append((at, name, len(self.starts[name])))

    def take(self) -> list[tuple[float, str, int]]:
        """The (time, workflow, attempt) starts not taken yet."""
        unread, self.unread = self.unread, []
        return unread

    def pids(self) -> dict[str, list[int]]:
        return self.starts


def first_line(error: BaseException) -> str:
    """The first line of an error as the CLI prints it (``<prog>: <message>``)."""
    text = str(error).strip().splitlines()
    message = text[0] if text else type(error).__name__
    prog = getattr(error, "prog", None)
    return f"{prog}: {message}" if prog else message


def run_workflow(
    workflow: Workflow,
    cwd: str,
    variables: dict[str, str],
    events: object,
    *upstream: Outcome,
) -> Outcome:
    """The task of one workflow (run in a Ray worker): nothing when an upstream workflow did
    not finish, else its plan in ``cwd`` with the driver's ``variables``."""
    if any(previous.status != DONE for previous in upstream):
        return Outcome(workflow.name, NOT_RUN)
    from .run import run_plan

    ray = active()
    assert ray is not None  # a task runs in a Ray worker
    ray.get(events.started.remote(workflow.name, os.getpid(), time.time()))  # type: ignore[attr-defined]
    start = time.perf_counter()
    home = os.getcwd()
    try:
        os.chdir(cwd)
        with environment(variables):
            run_plan(workflow.plan)
    except Exception as error:
        seconds = time.perf_counter() - start
        return Outcome(workflow.name, FAILED, seconds, error=error, note=first_line(error))
    finally:
        os.chdir(home)
    return Outcome(workflow.name, DONE, time.perf_counter() - start)


def run_workflows(ray: ModuleType, workflows: list[Workflow], *, where: str) -> list[Outcome]:
    """Run ``workflows`` (in run order) as Ray tasks on the connected cluster: a progress line
    per workflow, the summary table, then the first failure in run order is raised. What the
    steps print stays in the workers (and in the step logs)."""
    events = ray.remote(num_cpus=0)(Events).remote()
    task = ray.remote(max_retries=MAX_RETRIES)(run_workflow)
    variables = {
        key: value
        for key, value in os.environ.items()
        if key.startswith(FORWARDED) and key != ADDRESS_VARIABLE
    }
    refs = {}
    for workflow in workflows:
        upstream = [refs[name] for name in workflow.after]
        refs[workflow.name] = task.remote(workflow, os.getcwd(), variables, events, *upstream)
    outcomes = _follow(ray, workflows, refs, events)
    starts = ray.get(events.pids.remote())
    for workflow in workflows:
        outcomes[workflow.name].attempts = starts.get(workflow.name, [])
        _remove_temporaries(workflow.plan, outcomes[workflow.name].attempts)
    ray.kill(events)
    ordered = [outcomes[workflow.name] for workflow in workflows]
    _summary(ordered, where)
    for outcome in ordered:
        if outcome.error is not None:
            raise outcome.error
    return ordered


def _follow(ray: ModuleType, workflows: list[Workflow], refs: dict, events) -> dict[str, Outcome]:
    """Print a line when a workflow starts and when it ends, the lines of each poll in the
    order of their times (a start after its upstream's end); the outcome of each."""
    by_ref = {refs[workflow.name]: workflow for workflow in workflows}
    after = {workflow.name: workflow.after for workflow in workflows}
    rank = {workflow.name: number for number, workflow in enumerate(workflows)}
    outcomes: dict[str, Outcome] = {}
    starts: list[tuple[float, str, str]] = []  # started, not shown yet
    pending = list(by_ref)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1, timeout=POLL_SECONDS)
        if ready and pending:  # and every other one that has ended
            more, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
            ready += more
        for at, name, attempt in ray.get(events.take.remote()):
            again = f" (attempt {attempt}: its worker process died)" if attempt > 1 else ""
            starts.append((at, name, f"{name}: running{again}"))
        lines = []
        for ref in sorted(ready, key=lambda ref: rank[by_ref[ref].name]):
            workflow = by_ref[ref]
            if any(name not in outcomes for name in workflow.after):
                pending.append(ref)  # its upstream's end is read first
                continue
            outcome = outcomes[workflow.name] = _outcome(ray, workflow, ref, outcomes)
            lines.append((outcome.ended, outcome.line()))
        shown = [start for start in starts if all(n in outcomes for n in after[start[1]])]
        starts = [start for start in starts if start not in shown]
        lines += [(at, line) for at, _, line in shown]
        for _, line in sorted(lines, key=lambda timed: timed[0]):
            console.out(line)
    return outcomes


def _outcome(ray: ModuleType, workflow: Workflow, ref, outcomes: dict[str, Outcome]) -> Outcome:
    for name in workflow.after:
        if outcomes[name].status != DONE:
            which = "failed" if outcomes[name].status == FAILED else "was not run"
            return Outcome(workflow.name, NOT_RUN, note=f"it runs after {name}, which {which}")
    try:
        return ray.get(ref)
    except ray.exceptions.RayError as lost:  # build errors are outcomes: the task died
        failure = StageError(
            f"workflow '{workflow.name}' did not finish on the Ray cluster (run "
            f"{1 + MAX_RETRIES} times): {first_line(lost)}"
        )
        return Outcome(workflow.name, FAILED, error=failure, note=first_line(failure))


def _remove_temporaries(plan: Plan, pids: list[int]) -> None:
    """The temporary files of the outputs (formats/files.py ``write_atomically``) that a
    worker process killed while writing left behind."""
    for step in plan.steps:
        output = getattr(step.options, "output_path", "")
        if not output:
            continue
        for pid in pids:
            temporary = temporary_path(output, pid)
            if os.path.exists(temporary):
                os.remove(temporary)


def _summary(outcomes: list[Outcome], where: str) -> None:
    rows = [
        [
            outcome.name,
            outcome.status,
            f"{outcome.seconds:.1f}" if outcome.status != NOT_RUN else "-",
            str(len(outcome.attempts)),
            outcome.note,
        ]
        for outcome in outcomes
    ]
    header = ["Workflow", "Status", "Seconds", "Starts", "Note"]
    console.table(f"Workflows on Ray ({where})", header, rows)
