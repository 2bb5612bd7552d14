"""Where a study's Slurm jobs stand, from the results store and ``squeue`` alone.

Points done are the stored point files (verified when the next run submits); a task
is pending or running while ``squeue`` lists it; a task Slurm no longer holds is done
when it wrote its ``done`` file or all its points are stored or recorded as failed, and
failed otherwise (its log path says why). :func:`follow` redraws this until Slurm holds
no task of the study.
"""

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from netsens.slurm import executor as slurm
from netsens.study import store
from netsens.study.definition import Point

# How often follow mode looks at the store and squeue, in s (squeue asks the controller,
# which a site shares with everyone); plain lines (stderr not a terminal) come at most
# every PLAIN_EVERY_S.
POLL_S = 2.0
PLAIN_EVERY_S = 5.0
RUNNING = ("RUNNING", "COMPLETING", "CONFIGURING", "STAGE_OUT")


@dataclass(frozen=True)
class FailedTask:
    task: str  # "<job>_<index>"
    job: str
    index: int
    log: Path
    missing: list[str]  # its point ids not stored
    state: str | None  # Slurm's word for how it ended (TIMEOUT, ...) while it still says


@dataclass
class Status:
    total: int
    stored: int
    pending: int = 0
    running: int = 0
    failed: list[FailedTask] = field(default_factory=list)
    queued_ids: set[str] = field(default_factory=set)  # points of pending/running tasks
    point_failures: int = 0  # points whose run failed with a netsens error

    @property
    def active(self) -> bool:
        return self.pending + self.running > 0

    def line(self) -> str:
        failed = f", {len(self.failed)} failed" if self.failed else ""
        errors = f"; {self.point_failures} points failed" if self.point_failures else ""
        return (
            f"{self.stored}/{self.total} points stored; tasks: {self.pending} pending, "
            f"{self.running} running{failed}{errors}"
        )


def status(root: Path, points: list[Point], name: str) -> Status:
    """The study's state now (``name``: its Slurm job name)."""
    queue = {(t.job, t.index): t.state for t in slurm.queued(name)}
    ids = {p.point_id for p in points}
    have = store.stored_ids(root) & ids  # by name: reading every file each poll is too slow
    failed_ids = {f["point_id"] for f in store.failures(root)} - have
    done_dir = root / slurm.SLURM / slurm.DONE
    out = Status(len(ids), len(have), point_failures=len(failed_ids & ids))
    for sub in slurm.submissions(root):
        for index, task_ids in enumerate(sub.plan):
            state = queue.get((sub.job, index))
            if state is not None and state not in slurm.ENDED:
                if state in RUNNING:
                    out.running += 1
                else:
                    out.pending += 1
                out.queued_ids.update(task_ids)
                continue
            left = [i for i in task_ids if i not in have and i not in failed_ids]
            finished = (done_dir / f"{sub.job}_{index}").exists()
            if left and not finished and index not in sub.superseded:
                out.failed.append(FailedTask(f"{sub.job}_{index}", sub.job, index,
                                             sub.log(index), left, state))  # fmt: skip
    return out


def follow(root: Path, points: list[Point], name: str, stream: TextIO | None = None) -> Status:
    """Show progress until Slurm holds no task of the study; the last status.

    Interrupting (Ctrl-C) only stops watching: the jobs go on."""
    stream = stream or sys.stderr
    now = status(root, points, name)
    start, start_stored, last = time.monotonic(), now.stored, 0.0
    bar = None
    if stream.isatty():
        bar = Progress(
            TextColumn("slurm"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} points"),
            TextColumn("{task.fields[tasks]}, ETA {task.fields[eta]}"),
            TimeElapsedColumn(),
            console=Console(file=stream),
        )
        bar.start()
        task = bar.add_task("slurm", total=now.total, completed=now.stored, tasks="", eta="?")
    try:
        while True:
            eta = _eta(now, start_stored, time.monotonic() - start)
            tasks = f"tasks {now.pending} pending, {now.running} running, {len(now.failed)} failed"
            if bar is not None:
                bar.update(task, completed=now.stored, tasks=tasks, eta=eta)
            elif time.monotonic() - last >= PLAIN_EVERY_S or not now.active:
                print(f"slurm: {now.stored}/{now.total} points, {tasks}, ETA {eta}",
                      file=stream, flush=True)  # fmt: skip
                last = time.monotonic()
            if not now.active:
                return now
            time.sleep(POLL_S)
            now = status(root, points, name)
    finally:
        if bar is not None:
            bar.stop()


def _eta(now: Status, start_stored: int, elapsed: float) -> str:
    gained = now.stored - start_stored
    if gained <= 0 or elapsed <= 0:
        return "?"
    left = (now.total - now.stored - now.point_failures) / (gained / elapsed)
    return f"{left:.0f} s" if left < 120 else f"{left / 60:.1f} min"
