"""The Slurm executor: a study's missing points as one Slurm job array.

``netsens sweep STUDY.toml --executor slurm`` computes the points that are neither
stored, nor in a task Slurm still holds (pending or running), nor claimed by a live
sweep, splits them into tasks of ``points_per_task`` points and submits one
``sbatch --array``. Each task (:mod:`netsens.slurm.task`) claims, runs and stores its
points with the local executor's point runner into the same results directory, which
the store writes atomically, so a shared filesystem needs no locks.

What was submitted lives beside the results, under ``RESULTS/slurm/``:

    plans/<uuid>.json   the points of each task of one submission (what a task reads)
    jobs/<jobid>.json   the submission: its plan, task count, job name, log pattern
    done/<jobid>_<i>    written by task i when it has run all its points
    logs/<jobid>_<i>.log  task i's stdout and stderr

The results store and ``squeue`` are the truth (no ``sacct``: no accounting daemon is
assumed): a task that ``squeue`` no longer lists, has no ``done`` file and left points
unstored has failed (cancelled, out of time, its node lost); its points are submitted
again by the next run. Live points run as one job each with ``--ntasks`` = their ranks.
"""

import dataclasses
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netsens.errors import NetsensError
from netsens.study import claims, store, store_verify
from netsens.study.definition import Point, Study

SLURM = "slurm"
PLANS, JOBS, DONE, LOGS = "plans", "jobs", "done", "logs"
# Slurm's own time limit formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
_TIME = re.compile(r"^(\d+|\d+:\d{2}|\d+:\d{2}:\d{2}|\d+-\d+|\d+-\d+:\d{2}|\d+-\d+:\d{2}:\d{2})$")
# How long a Slurm command may take before the controller counts as unreachable, s.
COMMAND_TIMEOUT_S = 60.0


class SlurmError(NetsensError):
    """Slurm could not be reached or refused the work; nothing stored is touched."""


@dataclass(frozen=True)
class SlurmOptions:
    """How to submit: the study's ``[slurm]`` table, then the flags over it."""

    partition: str | None = None
    max_parallel: int | None = None  # array tasks running at once (``--array=...%N``)
    time: str | None = None  # each task's time limit, Slurm's format, e.g. "00:30:00"
    points_per_task: int = 1
    sbatch_args: str = ""  # further sbatch options, split as a shell would

    @classmethod
    def merged(cls, table: Any, flags: dict[str, Any]) -> "SlurmOptions":
        """The ``[slurm]`` table (checked) with every flag that was given over it."""
        if not isinstance(table, dict):
            raise SlurmError('slurm: must be a table, e.g. [slurm] partition = "compute"')
        names = [f.name for f in dataclasses.fields(cls)]
        for key in table:
            if key not in names:
                raise SlurmError(f"slurm: unknown key {key!r}; known: {', '.join(names)}")
        given = {k: v for k, v in flags.items() if v is not None}
        options = cls(**(table | given))
        options._check()
        return options

    def _check(self) -> None:
        for key in ("max_parallel", "points_per_task"):
            value = getattr(self, key)
            whole = isinstance(value, int) and not isinstance(value, bool)
            if value is not None and (not whole or value < 1):
                raise SlurmError(f"slurm: {key}: must be a whole number of at least 1")
        if self.time is not None and not (isinstance(self.time, str) and _TIME.match(self.time)):
            raise SlurmError(
                f"slurm: time: {self.time!r} is not a Slurm time limit; use HH:MM:SS, "
                'e.g. time = "00:30:00", or D-HH:MM:SS'
            )
        for key in ("partition", "sbatch_args"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, str):
                raise SlurmError(f"slurm: {key}: must be a string")
        try:
            shlex.split(self.sbatch_args)
        except ValueError as e:
            raise SlurmError(f"slurm: sbatch_args: {e}") from None


def job_name(study: Study, root: Path) -> str:
    """The name every job of this study and results directory carries in Slurm."""
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:8]
    return f"netsens-{study.name}-{digest}"


def run_command(argv: list[str]) -> str:
    """Run a Slurm client command; its stdout, or a SlurmError with its own message."""
    if shutil.which(argv[0]) is None:
        raise SlurmError(
            f"{argv[0]} not found on PATH: the Slurm executor needs Slurm's client commands "
            "(sbatch, squeue, scancel); run without --executor slurm to sweep locally"
        )
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise SlurmError(
            f"{argv[0]} did not answer in {COMMAND_TIMEOUT_S:.0f} s: is the Slurm controller "
            "reachable?"
        ) from None
    if out.returncode != 0:
        lines = [line.strip() for line in out.stderr.splitlines() if line.strip()]
        raise SlurmError(f"{argv[0]} failed: {lines[-1] if lines else f'exit {out.returncode}'}")
    return out.stdout


# Job states after which a task runs no more; Slurm lists such a task for a few
# minutes (MinJobAge), then forgets it. Any other state (pending, running, suspended,
# requeued, ...) may still store points.
ENDED = frozenset(
    "BOOT_FAIL CANCELLED COMPLETED DEADLINE FAILED NODE_FAIL OUT_OF_MEMORY PREEMPTED "
    "REVOKED SPECIAL_EXIT TIMEOUT".split()
)


@dataclass(frozen=True)
class QueuedTask:
    job: str  # the array's job id
    index: int  # the task's index in the array
    state: str  # PENDING, RUNNING, SUSPENDED, ..., or an ENDED state

    @property
    def active(self) -> bool:
        return self.state not in ENDED


def queued(name: str) -> list[QueuedTask]:
    """The tasks of jobs named ``name`` that Slurm still lists (in any state, ended ones
    for a few minutes), one per array task."""
    user = os.environ.get("USER") or str(os.getuid())
    text = run_command(["squeue", "--noheader", "--array", "--states=all", f"--name={name}",
                        f"--user={user}", "--format=%F|%K|%T"])  # fmt: skip
    tasks = []
    for line in text.splitlines():
        job, index, state = line.strip().split("|")
        if index.isdigit():  # a job that is not an array shows N/A
            tasks.append(QueuedTask(job, int(index), state))
    return tasks


@dataclass
class Submission:
    """One submitted job array (``jobs/<jobid>.json``) and its plan."""

    job: str
    plan: list[list[str]]  # each task's point ids
    log_dir: Path
    superseded: list[int]  # failed tasks whose points were submitted again

    def log(self, index: int) -> Path:
        return self.log_dir / f"{self.job}_{index}.log"


def submissions(root: Path) -> list[Submission]:
    """Every job array submitted for ``root``, oldest first."""
    out = []
    jobs = [p for p in (root / SLURM / JOBS).glob("*.json") if p.stem.isdigit()]
    for path in sorted(jobs, key=lambda p: int(p.stem)):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            plan_path = root / SLURM / PLANS / record["plan"]
            ids = json.loads(plan_path.read_text(encoding="utf-8"))["ids"]
            superseded = record.get("superseded", [])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SlurmError(
                f"{path}: unreadable submission record ({type(e).__name__}: {e}); the stored "
                "points are intact: move it away and run again (its points are then "
                "submitted again unless stored)"
            ) from None
        out.append(Submission(path.stem, ids, root / SLURM / LOGS, superseded))
    return out


def supersede(root: Path, job: str, indices: list[int]) -> None:
    """Mark tasks of ``job`` as failed and submitted again (no longer reported)."""
    path = root / SLURM / JOBS / f"{job}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["superseded"] = sorted(set(record.get("superseded", [])) | set(indices))
    store.write_json_atomic(path, record)


def prepare(study: Study, tasks_active: bool) -> tuple[Path, list[Point]]:
    """The results directory made ready as the local executor does, and every point.
    Temporaries are left alone while tasks run: one on another node has a process id
    this host cannot judge."""
    points = study.points()
    root = study.results_dir
    (root / store.POINTS).mkdir(parents=True, exist_ok=True)
    if not tasks_active:
        store.remove_stale_temporaries(root)
    store.write_manifest(root, study, points)
    return root, points


def missing(root: Path, points: list[Point], busy: set[str]) -> list[Point]:
    """Points neither stored (verified), nor in ``busy`` (queued tasks), nor claimed."""
    have = store_verify.verified_ids(root)
    return [
        p
        for p in points
        if p.point_id not in have
        and p.point_id not in busy
        and claims.holder_of(root, p.point_id) is None
    ]


def submit(
    study: Study, root: Path, todo: list[Point], options: SlurmOptions, name: str
) -> dict[str, int]:
    """Submit ``todo``: simulated points as one job array of ``points_per_task`` points
    per task, each live point as its own job with ``--ntasks`` = its ranks. Each job's
    id and its number of tasks."""
    simulated = [p for p in todo if p.mode != "live"]
    live = [p for p in todo if p.mode == "live"]
    jobs = {}
    k = options.points_per_task
    if simulated:
        tasks = [simulated[i : i + k] for i in range(0, len(simulated), k)]
        limit = max_array_size()
        if len(tasks) > limit:
            raise SlurmError(
                f"{len(simulated)} points in tasks of {k} make {len(tasks)} array tasks, more "
                f"than this cluster's MaxArraySize allows ({limit}); use --points-per-task "
                f"{-(-len(simulated) // limit)} or more"
            )
        jobs[_submit_array(study, root, tasks, options, name, [])] = len(tasks)
    for point in live:
        ntasks = [f"--ntasks={point.ranks}"]
        jobs[_submit_array(study, root, [[point]], options, name, ntasks)] = 1
    return jobs


def _submit_array(
    study: Study,
    root: Path,
    tasks: list[list[Point]],
    options: SlurmOptions,
    name: str,
    extra: list[str],
) -> str:
    base = root / SLURM
    for sub in (PLANS, JOBS, DONE, LOGS):
        (base / sub).mkdir(parents=True, exist_ok=True)
    plan_name = f"{uuid.uuid4().hex}.json"
    plan_path = base / PLANS / plan_name
    plan = {
        "study": study.name,
        "results_dir": str(root),
        "tasks": [[dataclasses.asdict(p) for p in task] for task in tasks],
        "ids": [[p.point_id for p in task] for task in tasks],
    }
    store.write_json_atomic(plan_path, plan)
    array = f"0-{len(tasks) - 1}" + (f"%{options.max_parallel}" if options.max_parallel else "")
    argv = [
        "sbatch",
        "--parsable",
        f"--job-name={name}",
        f"--array={array}",
        f"--output={base / LOGS / '%A_%a.log'}",
        "--open-mode=append",
        *([f"--partition={options.partition}"] if options.partition else []),
        *([f"--time={options.time}"] if options.time else []),
        *extra,
        *shlex.split(options.sbatch_args),
        "--wrap",
        shlex.join([sys.executable, "-m", "netsens.slurm.task", str(plan_path)]),
    ]
    try:
        out = run_command(argv)
    except SlurmError:
        plan_path.unlink(missing_ok=True)
        raise
    job = out.strip().split(";")[0]  # "jobid" or "jobid;cluster"
    record = {"plan": plan_name, "tasks": len(tasks), "name": name, "submitted": time.time()}
    store.write_json_atomic(base / JOBS / f"{job}.json", record)
    return job


def max_array_size() -> int:
    """Array tasks one sbatch may ask for: the cluster's MaxArraySize (indices 0 to
    MaxArraySize - 1), Slurm's default 1001 when the configuration does not say."""
    config = run_command(["scontrol", "show", "config"])
    found = re.search(r"^MaxArraySize\s*=\s*(\d+)", config, re.M)
    return int(found.group(1)) if found else 1001


def cancel(name: str) -> int:
    """Cancel every job of the study still in Slurm; how many tasks were queued."""
    count = sum(t.active for t in queued(name))
    if count:
        user = os.environ.get("USER") or str(os.getuid())
        run_command(["scancel", f"--name={name}", f"--user={user}"])
    return count
