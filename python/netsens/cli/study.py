"""``netsens sweep`` and ``netsens results``: run a study, show what it found.

Registered on the ``netsens`` group by :mod:`netsens.cli.main`; errors end as one line
``netsens: error: ...`` with exit code 2 there, Ctrl-C with exit code 130.
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from netsens.cli.console import stdout_console
from netsens.cli.slurm import slurm_options, wants_slurm
from netsens.cli.slurm import sweep as slurm_sweep
from netsens.units import format_bandwidth, format_bytes, format_per_byte, format_time

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
# Failed points listed one per line after a sweep, at most.
MAX_FAILURE_LINES = 10

# The study modules import polars: each command loads what it uses when it runs.
if TYPE_CHECKING:
    import polars as pl

STUDY_EPILOG = """\b
A study file (docs/reference/study-file.md lists every key):
  name = "latency"                 # results go to results/latency/ beside this file
  platform = "now1997"             # preset or platform TOML  [default: loggopsim]
  workloads = ["radix", "em3d-read", "goal/pingpong.goal"]   # or "all"
  size = "small"                   # applications' size preset  [default: small]
  ranks = [32]
  seeds = 3                        # seeds 0, 1, 2; or a list such as [1, 7]
  combine = "each"                 # one axis at a time; "product": every combination
  [axes]
  L = ["5us", "10us", "25us", "50us", "100us"]
  o = { from = "2.9us", to = "103us", points = 8, scale = "log" }
  [baseline]                       # slowdown is relative to this  [default: the platform]
  o = "2.9us"

\b
Values carry units: time 5us 2.5us 1500ns 3ms; per byte 6ns/B or a bandwidth
1MB/s 10Gbit/s 100MiB/s; size 64KiB 1MB; cpu_speed a plain number."""


def _ranks(values: tuple[str, ...]) -> list[int]:
    out = []
    for value in values:
        for part in value.split(","):
            if not part.strip().isdigit() or int(part) < 1:
                raise click.BadParameter(
                    f"{part!r} is not a positive integer", param_hint="--ranks"
                )
            out.append(int(part))
    return out


@click.command("sweep", context_settings=CONTEXT, epilog=STUDY_EPILOG)
@click.argument("study_file", metavar="STUDY.toml", type=click.Path(path_type=Path))
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    metavar="N",
    help="Worker processes  [default: one per core]",
)
@click.option(
    "--results",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Results directory  [default: the study's]",
)
@click.option("--platform", metavar="PRESET|FILE.toml", help="Platform instead of the study's.")
@click.option(
    "--ranks",
    multiple=True,
    metavar="N",
    help="Ranks of the applications instead of the study's; repeat or use commas: 4,8.",
)
@click.option(
    "--seeds", type=click.IntRange(min=1), metavar="N", help="Run seeds 0 to N-1 instead."
)
@click.option("--size", metavar="tiny|small|paper", help="Size preset instead of the study's.")
@click.option(
    "--full",
    is_flag=True,
    help="Run every application point's program in full, not the schedule it recorded "
    "at another point (the results are the same; docs/guides/studies.md).",
)
@click.option(
    "--workload",
    "workloads",
    multiple=True,
    metavar="NAME|FILE.goal",
    help="Workload instead of the study's (repeat for several; 'all' = every app).",
)
@slurm_options
def sweep_command(
    study_file: Path,
    jobs: int | None,
    results: Path | None,
    platform: str | None,
    ranks: tuple[str, ...],
    seeds: int | None,
    size: str | None,
    full: bool,
    workloads: tuple[str, ...],
    **executor: Any,
) -> None:
    """Run every point of a study that is not stored yet, on all cores.

    A point is one run: a workload at some ranks and seed, under one value of an axis
    (the other parameters at the baseline), or the baseline itself. Each finished
    point is stored at once as RESULTS/points/<id>.parquet, so an interrupted sweep
    (Ctrl-C, or killed) continues where it stopped when run again, and never computes
    a stored point twice. A point whose run fails (a deadlock, a wrong answer) is
    recorded in RESULTS/failures/ and the sweep goes on; the exit code is then 2.
    Flags override the study file.

    An application whose messages cannot depend on timing runs its program once per
    worker, workload, ranks and seed, and the schedule it issued produces the other
    points, exactly; --full runs the program at every point instead.

    \b
    Example:
      netsens sweep examples/studies/quick.toml --ranks 4 --seeds 1 --jobs 2
      netsens results examples/studies/quick.toml

    \b
    On a Slurm cluster (docs/reference/study-file.md): --executor slurm submits the missing points
    as one job array and follows it; --status and --cancel look at or cancel its jobs.
    """
    from netsens.study.definition import Study
    from netsens.study.store import FAILURES
    from netsens.study.sweep import run_study

    on_slurm = wants_slurm(executor)
    if on_slurm and jobs is not None:
        raise click.UsageError("--jobs is for the local executor; on Slurm use --max-parallel")
    study = Study.from_toml(
        study_file,
        results=results,
        platform=platform,
        ranks=_ranks(ranks),
        seeds=seeds,
        size=size,
        workloads=list(workloads),
    )
    if on_slurm:
        slurm_sweep(study, str(study_file), executor)
        return
    summary = run_study(study, jobs=jobs, progress=True, full=full)
    click.echo(summary.line())
    if matching := summary.matching_line():
        click.echo(matching)
    if produced := summary.produced_line():
        click.echo(produced)
    if summary.failed:
        for failure in summary.failures[:MAX_FAILURE_LINES]:
            click.echo(f"sweep: failed: {failure['point']}: {failure['message']}", err=True)
        raise click.ClickException(
            f"{summary.failed} of {summary.total} points failed; each one's error is in "
            f"{summary.results_dir / FAILURES}"
        )


@click.command("results", context_settings=CONTEXT)
@click.argument("target", metavar="STUDY.toml|DIR", type=click.Path(exists=True, path_type=Path))
@click.option("--json", "fmt", flag_value="json", help="Every row as a JSON array of objects.")
@click.option(
    "--csv",
    "fmt",
    flag_value="csv",
    help="Every row as CSV (without the nested primitives, matrix, histogram columns).",
)
def results_command(target: Path, fmt: str | None) -> None:
    """Show a study's stored results: makespan and slowdown per point.

    The table has one row per workload, ranks, axis and value, with the median over
    the seeds of the makespan and of the slowdown (relative to the baseline point of
    the same workload, ranks and seed). --json and --csv print every stored row with
    every column instead (docs/reference/study-file.md describes them; times in ps).

    \b
    Example:
      netsens results examples/studies/quick.toml
      netsens results results/quick --csv > quick.csv
    """
    from netsens.study.store import load, results_dir

    root = results_dir(target)
    frame = load(root)
    if fmt == "json":
        click.echo(json.dumps(frame.to_dicts()))
    elif fmt == "csv":
        # CSV has no nested values: lists and structs (matrix, histogram, primitives,
        # wide-area links, ...) are left to --json.
        flat = [name for name, dtype in frame.schema.items() if not dtype.is_nested()]
        click.echo(frame.select(flat).write_csv(), nl=False)
    else:
        _print_results(root, frame)


def _value_text(row: dict[str, Any]) -> str:
    axis, value, unit = row["axis"], row["value"], row["value_unit"]
    if axis == "baseline":
        return "-"
    if axis == "product" or value is None:
        overrides = json.loads(row["overrides"])
        return " ".join(f"{k}={v}" for k, v in overrides.items()) or "baseline"
    if unit == "ps":
        return format_time(round(value))
    if unit == "ps/B":
        return format_per_byte(value)
    if unit == "B":
        return format_bytes(round(value))
    if unit == "B/s":
        return format_bandwidth(value)
    if unit == "clusters":
        return row["clusters"] or "1 cluster"
    return f"{value:g}x"


def _short_names(workloads: list[str]) -> dict[str, str]:
    """GOAL files by their file name when that is unambiguous, to keep the table narrow."""
    names = {w: Path(w).name if w.endswith(".goal") else w for w in workloads}
    counts = {n: list(names.values()).count(n) for n in names.values()}
    return {w: n if counts[n] == 1 else w for w, n in names.items()}


def _print_results(root: Path, frame: "pl.DataFrame") -> None:
    import polars as pl
    from rich.table import Table

    from netsens.study.store import FAILURES, failures, read_manifest

    console = stdout_console()
    if frame.is_empty():
        click.echo(f"no points stored yet in {root}; run netsens sweep on the study")
        return
    manifest = read_manifest(root) or {}
    name = manifest.get("study", {}).get("name", root.name)
    groups = (
        frame.group_by(
            ["workload", "size", "ranks", "axis", "overrides", "value", "value_unit"],
            maintain_order=True,
        )
        .agg(
            pl.col("seed").n_unique().alias("seeds"),
            pl.col("makespan_ps").median().alias("makespan"),
            pl.col("slowdown").median().alias("slowdown"),
            pl.col("clusters").first(),
        )
        .to_dicts()
    )
    points = frame["point_id"].n_unique()
    short = _short_names(frame["workload"].unique().to_list())
    table = Table(title=f"study {name}: {points} points in {root}", title_justify="left")
    for column in ("workload", "ranks", "axis", "value", "makespan", "slowdown", "seeds"):
        table.add_column(column, justify="left" if column in ("workload", "axis") else "right")
    for row in groups:
        slowdown = "" if row["slowdown"] is None else f"{row['slowdown']:.3f}x"
        table.add_row(
            short[row["workload"]],
            str(row["ranks"]),
            row["axis"],
            _value_text(row),
            format_time(round(row["makespan"])),
            slowdown,
            str(row["seeds"]),
        )
    console.print(table)
    failed = failures(root)
    if failed:
        click.echo(f"{len(failed)} points failed; their errors are in {root / FAILURES}")
