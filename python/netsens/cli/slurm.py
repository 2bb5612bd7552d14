"""``netsens sweep --executor slurm``: the Slurm executor's flags and what the command
does with them (see :mod:`netsens.slurm.executor` and docs/reference/study-file.md, "On a
cluster")."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # the executor's modules (and polars, via the store) load when it runs
    from netsens.slurm import status as slurm_status
    from netsens.study.definition import Study

# Failed tasks listed one per line, at most.
MAX_TASK_LINES = 10
SLURM_FLAGS = ("partition", "max_parallel", "time", "points_per_task", "sbatch_args")
WATCH_FLAGS = ("detach", "status", "cancel")


def slurm_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the executor's flags to ``netsens sweep``."""
    options = [
        click.option(
            "--executor",
            type=click.Choice(["local", "slurm"]),
            default="local",
            show_default=True,
            help="Where points run: this machine's cores, or a Slurm job array.",
        ),
        click.option("--partition", metavar="P", help="Slurm partition  [slurm]"),
        click.option(
            "--max-parallel",
            type=click.IntRange(min=1),
            metavar="N",
            help="Array tasks running at once  [slurm; default: Slurm's]",
        ),
        click.option("--time", metavar="HH:MM:SS", help="Each task's time limit  [slurm]"),
        click.option(
            "--points-per-task",
            type=click.IntRange(min=1),
            metavar="K",
            help="Points each array task runs  [slurm; default: 1]",
        ),
        click.option("--sbatch-args", metavar='"..."', help="More sbatch options  [slurm]"),
        click.option("--detach", is_flag=True, help="Submit and return at once  [slurm]"),
        click.option("--status", is_flag=True, help="Show the study's Slurm progress and return."),
        click.option("--cancel", is_flag=True, help="Cancel the study's Slurm jobs."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def wants_slurm(flags: dict[str, Any]) -> bool:
    """Whether the command is the Slurm executor's; a Slurm-only flag without
    ``--executor slurm`` is a usage error."""
    if flags["executor"] == "slurm" or flags["status"] or flags["cancel"]:
        return True
    given = [k for k in SLURM_FLAGS + ("detach",) if flags[k] not in (None, False)]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise click.UsageError(f"{flag} needs --executor slurm")
    return False


def sweep(study: Study, study_file: str, flags: dict[str, Any]) -> None:
    """Submit, follow, show or cancel the study's points on Slurm."""
    from netsens.slurm import executor as slurm
    from netsens.slurm import status as slurm_status

    options = slurm.SlurmOptions.merged(study.slurm, {k: flags[k] for k in SLURM_FLAGS})
    root, points = study.results_dir, study.points()
    name = slurm.job_name(study, root)
    if flags["cancel"]:
        count = slurm.cancel(name)
        click.echo(f"slurm: cancelled {count} tasks of job name {name}; stored points kept")
        return
    if flags["status"]:
        _finish(slurm_status.status(root, points, name), root, study_file, watching=False)
        return
    before = slurm_status.status(root, points, name)
    root, points = slurm.prepare(study, tasks_active=before.active)
    todo = slurm.missing(root, points, before.queued_ids)
    if todo:
        jobs = slurm.submit(study, root, todo, options, name)
        _report_failed(before.failed, "its points are submitted again")
        click.echo(
            f"slurm: submitted {len(todo)} points as {sum(jobs.values())} tasks (job "
            f"{', '.join(jobs)}, name {name}); {before.stored}/{before.total} already "
            f"stored, {len(before.queued_ids)} queued"
        )
        for task in before.failed:
            slurm.supersede(root, task.job, [task.index])
    else:
        click.echo(f"slurm: nothing to submit; {before.line()}")
    if flags["detach"]:
        click.echo(f"slurm: follow with: netsens sweep {study_file} --status")
        return
    try:
        final = slurm_status.follow(root, points, name)
    except KeyboardInterrupt:
        click.echo(
            f"slurm: stopped watching; the jobs go on (netsens sweep {study_file} --status "
            "to look again, --cancel to cancel them)",
            err=True,
        )
        raise
    _finish(final, root, study_file, watching=True)


def _report_failed(failed: list[slurm_status.FailedTask], then: str) -> None:
    for task in failed[:MAX_TASK_LINES]:
        how = task.state or "cancelled, out of time or its node lost"
        why = f"{how}; log: {task.log}" if task.log.exists() else f"{how}, before it started"
        click.echo(
            f"slurm: task {task.task} failed with {len(task.missing)} of its points not "
            f"stored ({why}); {then}",
            err=True,
        )
    if len(failed) > MAX_TASK_LINES:
        click.echo(f"slurm: ... and {len(failed) - MAX_TASK_LINES} more failed tasks", err=True)


def _finish(now: slurm_status.Status, root: Any, study_file: str, watching: bool) -> None:
    from netsens.study.store import FAILURES

    click.echo(f"slurm: {now.line()}; results in {root}")
    _report_failed(now.failed, f"run netsens sweep {study_file} --executor slurm again")
    if watching and (now.failed or now.point_failures):
        raise click.ClickException(
            f"{len(now.failed)} tasks failed, {now.point_failures} points failed (their "
            f"errors in {root / FAILURES}); run the same command again to submit what is "
            "missing"
        )
