"""``netsens run``: replay a GOAL schedule or run a rank program and print where the
time went (or, with ``--json``, the whole result as one JSON object); the run's tables,
which ``live`` and ``replay`` print too.

Loaded by :mod:`netsens.cli.main` when the command runs. This is the command whose
start-up is measured (``scripts/bench_startup.py``): it imports click and the engine,
and rich only when the tables need it (:mod:`netsens.cli.text_table`) or a long run's
progress bar is drawn (:mod:`netsens.cli.progress`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import click

from netsens.cli.console import print_blocks
from netsens.cli.options import CONTEXT, EPILOG, overrides_from, platform_options, seed_option
from netsens.cli.progress import run_progress
from netsens.cli.text_table import TextLine, TextTable
from netsens.engine import run_app, run_app_json, run_goal, run_goal_json
from netsens.units_format import format_bytes, format_time

# Up to this many ranks `run` prints one row per rank, beyond it min/median/max.
MAX_RANK_ROWS = 16


@click.command("run", context_settings=CONTEXT, epilog=EPILOG)
@click.option(
    "--goal",
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False),  # a str: pathlib is not needed
    help="GOAL schedule to replay (LogGOPSim's format; its times are nanoseconds).",
)
@click.option(
    "--app",
    metavar="NAME",
    help="Rank program to run (netsens apps lists them); needs --ranks.",
)
@click.option("--ranks", type=int, metavar="P", help="Number of ranks of the --app program.")
@click.option(
    "--job",
    "jobs",
    multiple=True,
    metavar="FILE[@HOSTS]",
    help="A job of a multi-job run (give it twice or more, on a platform with a [topology]): "
    "a GOAL file or trace, on HOSTS (e.g. @0-15 or @0-7,16-23) or else on the next "
    "free hosts in the topology's placement order.",
)
@click.option(
    "--alone",
    is_flag=True,
    help="With --job: also run each job by itself on the same hosts and show the slowdown.",
)
@click.option(
    "--size",
    metavar="tiny|small|paper",
    help="Size preset of the --app program's input  [default: small]",
)
@click.option(
    "--variant",
    metavar="original|optimized|original-messages",
    help="Form of a wide-area --app program (water, bh, tsp, asp, awari; fft1d has "
    "only original): the seed's original, its cluster-aware optimization, or water's and "
    "bh's message-passing original  [default: optimized]",
)
@click.option(
    "--platform",
    default="loggopsim",
    show_default=True,
    metavar="PRESET|FILE.toml",
    help="Platform preset name or TOML file.",
)
@platform_options
@seed_option("Seed of the noise streams and of an --app program's data, 0 to 2^64-1.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the whole result as one JSON object (times in ps) and nothing else.",
)
@click.option(
    "--matrix/--no-matrix",
    default=True,
    show_default=True,
    help="Include the (src, dst) message matrix in the --json output.",
)
def run(
    goal: str | None,
    app: str | None,
    ranks: int | None,
    jobs: tuple[str, ...],
    alone: bool,
    size: str | None,
    variant: str | None,
    platform: str,
    seed: int,
    as_json: bool,
    matrix: bool,
    **params: Any,
) -> None:
    """Replay a GOAL schedule or run a rank program; report where the time went.

    \b
    Give exactly one of --goal, --app and --job:
      netsens run --goal FILE.goal
      netsens run --app stencil --ranks 16 [--size tiny|small|paper]
      netsens run --platform fat-tree.toml --job ft.goal@0-15 --job a2a.goal@16-31 --alone

    \b
    A GOAL file (LogGOPSim's schedule format) lists each rank's operations;
    times in it are nanoseconds (calc 1500 is 1.5 us):
      num_ranks 2
      rank 0 {
      l1: calc 1500
      l2: send 8b to 1 tag 0
      l2 requires l1
      }
      rank 1 {
      l1: recv 8b from 0 tag 0
      }

    Each --job (twice or more) is a GOAL file or trace run at the same time as
    the others on one network (a platform with a [topology]), on its own hosts:
    ft.goal@0-15 on hosts 0 to 15, or the next free hosts in the topology's
    placement order without @. Ranks are numbered job after job; the table
    gives each job's makespan, and with --alone its makespan by itself on the
    same hosts, so the interference shows as the slowdown.

    An --app program (see `netsens apps`) computes a real answer on data generated
    from --seed and checks it; a wrong answer fails the run.

    The flags below override the platform's values; for example
    `netsens run --goal ping.goal --L 5us --G 1ns/B` reruns with a slower network.
    """
    if jobs:
        for flag, value in (("--goal", goal), ("--app", app), ("--ranks", ranks), ("--size", size)):
            if value is not None:
                raise click.UsageError(
                    f"{flag} cannot be combined with --job; give each job as --job"
                )
        run_jobs_command(jobs, alone, platform, overrides_from(params), seed, as_json, matrix)
        return
    if alone:
        raise click.UsageError("--alone is for --job runs")
    if goal is not None and app is not None:
        raise click.UsageError("give either --goal or --app, not both")
    if goal is None and app is None:
        raise click.UsageError("Missing option '--goal', '--app' or '--job'")
    if goal is not None:
        for flag, value in (("--ranks", ranks), ("--size", size), ("--variant", variant)):
            if value is not None:
                raise click.UsageError(f"{flag} is for --app; a GOAL file sets its own ranks")
    elif ranks is None:
        raise click.UsageError(f"--ranks is required with --app (e.g. --app {app} --ranks 4)")
    overrides = overrides_from(params)
    with run_progress() as (progress, parsing):
        if app is not None:
            args = (app, ranks, size or "small", platform, overrides, seed)
            if as_json:
                output = run_app_json(*args, matrix, progress, variant)
            else:
                result = run_app(*args, matrix=False, progress=progress, variant=variant)
        elif as_json:
            output = run_goal_json(
                goal, platform, overrides, seed, matrix, progress, parsing=parsing
            )
        else:
            # The table shows the spread over many ranks: the engine sends only that.
            result = run_goal(
                goal,
                platform,
                overrides,
                seed,
                matrix=False,
                progress=progress,
                parsing=parsing,
                summary_over=MAX_RANK_ROWS,
            )
    if as_json:
        click.echo(output)
    else:
        print_run(result)


def run_jobs_command(
    jobs: Sequence[str],
    alone: bool,
    platform: str,
    overrides: dict[str, str],
    seed: int,
    as_json: bool,
    matrix: bool,
) -> None:
    """``run --job ... --job ...``: the jobs side by side, per job its makespan."""
    import json

    from netsens.errors import InputError
    from netsens.jobs import parse_job, run_jobs

    try:
        specs = [dict(zip(("workload", "hosts"), parse_job(j), strict=True)) for j in jobs]
    except InputError as e:
        raise click.UsageError(str(e)) from None
    with run_progress() as (progress, _):
        result = run_jobs(specs, platform, overrides, seed, matrix and as_json, progress, alone)
    if as_json:
        click.echo(json.dumps(result))
        return
    headline = TextLine(
        (f"{len(result['jobs'])} jobs, {len(result['ranks'])} ranks on platform ", None),
        (result["platform_name"], "bold"),
        (f", seed {result['seed']}", None),
    )
    from netsens.cli.profile import link_rows

    # The shared links' load per class, as `netsens profile` gives it.
    rows = [
        ("events", f"{result['events']:,}"),
        *link_rows(result.get("links"), len(result["ranks"])),
    ]
    blocks = [headline, summary_table(result, rows)]
    blocks.append(jobs_table(result["jobs"]))
    blocks.append(rank_table(result["ranks"]))
    print_blocks(blocks)


def jobs_table(jobs: Sequence[dict[str, Any]]) -> TextTable:
    """Each job's workload, ranks, hosts and makespan (and alone, its makespan by itself)."""
    from netsens.jobs import format_hosts

    alone = "alone_makespan_ps" in jobs[0]
    table = TextTable(title="per job (ranks numbered job after job)")
    table.add_column("job", justify="right")
    table.add_column("workload")
    for column in ("ranks", "hosts", "makespan") + (("alone", "slowdown") if alone else ()):
        table.add_column(column, justify="right")
    for j in jobs:
        ranks = f"{j['first_rank']}-{j['first_rank'] + j['ranks'] - 1}"
        row = [str(j["job"]), os.path.basename(j["workload"]["file"]), ranks]
        row += [format_hosts(j["hosts"]), format_time(j["makespan_ps"])]
        if alone:
            row += [format_time(j["alone_makespan_ps"]), f"{j['slowdown']:.3f}x"]
        table.add_row(*row)
    return table


def warn_trace(result: dict[str, Any]) -> None:
    """A trace replay's warnings (replayed compute beyond what the trace measured), one
    line each on stderr."""
    for warning in result["workload"].get("warnings", []):
        click.echo(f"netsens: warning: {warning}", err=True)


def print_run(result: dict[str, Any]) -> None:
    """A run's headline, its summary, the time per rank and, if any, per phase; a trace
    replay's warnings on stderr."""
    warn_trace(result)
    ranks = result["ranks"]
    summary = result.get("rank_summary")
    workload = result["workload"]
    if workload["kind"] == "app":
        what = f"{workload['app']} (size {workload['size']})"
    else:
        what = os.path.basename(workload["file"])
    headline = TextLine(
        (f"{what}: {summary['ranks'] if summary else len(ranks)} ranks on platform ", None),
        (result["platform_name"], "bold"),
        (f", seed {result['seed']}", None),
    )
    extra = [("events", f"{result['events']:,}")]
    if "runs" in workload:
        median = ", the median" if len(workload["run_makespans_ps"]) > 1 else ""
        extra.append(("run", f"{workload['run']} of {workload['runs']}{median}"))
    if "tracer_gap_ps" in workload:
        extra.append(("tracer cost", tracer_cost_line(workload)))
    poll_work = workload.get("poll_runs_charged_ps") or []
    if any(poll_work):
        per_rank = sum(poll_work) / len(poll_work)
        charged = f"{format_time(round(per_rank))} per rank, charged as compute"
        extra.append(("polls that were no wait", charged))
    if workload.get("served"):
        comms = ", ".join(str(c) for c in workload["served"])
        extra.append(
            ("served communicators", f"{comms} (receives completed by a test order nothing)")
        )
    blocks = [headline, summary_table(result, extra)]
    blocks.append(rank_table(ranks, summary))
    if result.get("phases"):
        blocks.append(phase_table(result["phases"]))
    print_blocks(blocks)


def tracer_cost_line(workload: dict[str, Any]) -> str:
    """What replay removed of the tracer's own cost between calls, or that the archive
    records none (its gaps charged whole)."""
    gaps = [g for g in workload["tracer_gap_ps"] if g is not None]
    if not gaps:
        return "not recorded in the trace: gaps between calls charged whole"
    ranks = len(workload["tracer_removed_ps"])
    removed = sum(workload["tracer_removed_ps"]) / ranks
    per_gap = sorted(gaps)[(len(gaps) - 1) // 2]
    return (
        f"{format_time(round(removed))} per rank removed "
        f"({format_time(per_gap)} a gap, median rank)"
    )


_SIZE_NAME = re.compile(r"^(\d+)(B|KiB|MiB|GiB)$")
_SIZE_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def summary_table(result: dict[str, Any], extra: Sequence[tuple[str, str]] = ()) -> TextTable:
    """A run's makespan, messages, bytes, the ``extra`` rows and whether it verified."""
    summary = TextTable.grid()
    summary.add_column(style="bold")
    summary.add_column(justify="right")
    summary.add_row("makespan", format_time(result["makespan_ps"]))
    summary.add_row("messages", f"{result['messages']:,}")
    summary.add_row("bytes", format_bytes(result["bytes"]))
    for label, value in extra:
        summary.add_row(label, value)
    if "verified" in result:
        summary.add_row("verified", "yes" if result["verified"] else "no (not checked)")
    return summary


def _size_bytes(name: str) -> int | None:
    """``64KiB`` -> 65536; ``None`` when the name is not a size."""
    m = _SIZE_NAME.match(name)
    return int(m.group(1)) * _SIZE_UNITS[m.group(2)] if m else None


def _phase_order(names: list[str]) -> list[str]:
    """Phases in the order they are listed, or by size when every name is a size
    (a ping-pong's ``1B``, ``2B``, ..., ``1KiB``)."""
    sizes = [_size_bytes(n) for n in names]
    if all(s is not None for s in sizes):
        return [n for _, n in sorted(zip(sizes, names, strict=True))]
    return names


def phase_table(phases: Sequence[dict[str, Any]]) -> TextTable:
    """Time per phase: median, min and max over the ranks that entered it."""
    import statistics  # only here and for many ranks: a short run starts without it

    by_phase: dict[str, list[int]] = {}
    for p in phases:
        by_phase.setdefault(p["phase"], []).append(p["elapsed_ps"])
    table = TextTable(title="per phase (time over the ranks in it)")
    table.add_column("phase")
    for column in ("ranks", "median", "min", "max"):
        table.add_column(column, justify="right")
    for name in _phase_order(list(by_phase)):
        times = by_phase[name]
        table.add_row(
            name,
            str(len(times)),
            format_time(statistics.median_low(times)),
            format_time(min(times)),
            format_time(max(times)),
        )
    return table


def rank_table(ranks: Sequence[dict[str, int]], summary: dict[str, Any] | None = None) -> TextTable:
    """Each rank's end, compute, overhead and wait time (and noise, if any); min,
    median and max over the ranks when there are more than MAX_RANK_ROWS (from the
    engine's ``rank_summary`` when it sent that instead of the ranks)."""
    columns = ["end_ps", "compute_ps", "overhead_ps", "wait_ps"]
    if summary:
        if summary["max"]["noise_ps"]:
            columns.append("noise_ps")
        table = TextTable(title=f"over {summary['ranks']} ranks")
        table.add_column("", justify="left")
        for column in columns:
            table.add_column(column.removesuffix("_ps"), justify="right")
        for label in ("min", "median", "max"):
            table.add_row(label, *(format_time(summary[label][c]) for c in columns))
        return table
    if any(r.get("noise_ps", 0) for r in ranks):
        columns.append("noise_ps")
    per_rank = len(ranks) <= MAX_RANK_ROWS
    table = TextTable(title="per rank" if per_rank else f"over {len(ranks)} ranks")
    table.add_column("rank" if per_rank else "", justify="right" if per_rank else "left")
    for column in columns:
        table.add_column(column.removesuffix("_ps"), justify="right")
    if per_rank:
        for r in ranks:
            table.add_row(str(r["rank"]), *(format_time(r[c]) for c in columns))
    else:
        import statistics

        for label, pick in (("min", min), ("median", statistics.median_low), ("max", max)):
            table.add_row(label, *(format_time(pick(r[c] for r in ranks)) for c in columns))
    return table
