"""``netsens ace``: emulated applications, their predicted and actual run times and
the dispersion of their cycles (see :mod:`netsens.ace.emulator`).

Registered on the ``netsens`` group by :mod:`netsens.cli.main`; errors end there as one
line ``netsens: error: ...`` with exit code 2.
"""

import json
import shlex
from pathlib import Path
from typing import Any

import click

from netsens.ace.emulator import ace_json, load_ace_file
from netsens.cli.console import stdout_console
from netsens.cli.live import mpi_options, timeout_seconds
from netsens.cli.options import overrides_from, platform_options
from netsens.units import format_bytes, format_time

ACE_EPILOG = """\b
An EA: pattern=ring|pairwise|alltoall|bcast|allreduce|gather|scatter|blocking-send,
  size=1MB (per message), load=30% (share of a cycle communicating, 1%-99%),
  iterations=100 (cycles), ranks=0-15 | even | odd | all | 0-3+8-11, reps=10 (phase one)
\b
As a file (--file ace.toml):
  platform = "das1998"
  [[ea]]
  pattern = "ring"
  size = "1MB"
  load = "30%"
  iterations = 100
  ranks = "0-15"

Live (--live, or mode = "live" in the file): the same emulator on real MPI, one
process per rank, with the platform's o, g, L, G and wide-area links injected as by
`netsens live` (no --platform: only the flags, e.g. --o 50us, on the bare machine).
"""


def _stat(s: dict[str, Any]) -> str:
    return f"{format_time(round(s['mean_ps']))} ± {format_time(round(s['sd_ps']))}"


def print_ace(result: dict[str, Any]) -> None:
    """One row per EA, then per rank of each EA: the dispersion of its cycles."""
    from rich.table import Table

    console = stdout_console()
    where = f"platform [bold]{result['platform_name']}[/bold]"
    if result.get("mode") == "live":
        mpi = result["mpi"]
        where = f"live on {mpi['implementation']} ({mpi['library']}), {where} injected"
    console.print(f"ACE {where}, {result['world']} ranks, seed {result['seed']}")
    eas = Table(title="emulated applications (mean ± sd over cycles)")
    for col in ("EA", "pattern", "size", "load", "cycles", "ranks", "α", "β", "R²"):
        eas.add_column(col, justify="right")
    for col in ("T_comm", "T_comp", "predicted", "actual", "error"):
        eas.add_column(col, justify="right")
    for ea in result["eas"]:
        ranks = ea["ranks"]
        eas.add_row(
            str(ea["ea"]),
            ea["pattern"],
            format_bytes(ea["size_bytes"]),
            f"{ea['load'] * 100:g} %",
            str(ea["iterations"]),
            f"{ranks[0]}-{ranks[-1]}"
            if ranks == list(range(ranks[0], ranks[-1] + 1))
            else str(len(ranks)),
            format_time(round(ea["alpha_ps"])),
            f"{ea['beta_ps_per_byte'] / 1000:.4g} ns/B",
            f"{ea['r2']:.4f}",
            _stat(ea["comm"]),
            format_time(ea["t_comp_ps"]),
            format_time(round(ea["predicted_ps"])),
            format_time(ea["actual_ps"]),
            f"{ea['error'] * 100:+.2f} %",
        )
    console.print(eas)
    per_rank = Table(title="per rank (mean ± sd over cycles; CV of T_comm)")
    for col in ("EA", "rank", "run time", "compute", "communication", "CV comm", "synchronisation"):
        per_rank.add_column(col, justify="right")
    for ea in result["eas"]:
        for r in ea["per_rank"]:
            per_rank.add_row(
                str(ea["ea"]),
                str(r["rank"]),
                format_time(r["run_time_ps"]),
                _stat(r["compute"]),
                _stat(r["comm"]),
                f"{r['comm']['cv']:.3f}",
                _stat(r["sync"]),
            )
    console.print(per_rank)


@click.command("ace", epilog=ACE_EPILOG)
@click.option(
    "--ea", "eas", multiple=True, metavar="SPEC", help="An emulated application (repeat for more)."
)
@click.option(
    "--file",
    "spec_file",
    metavar="FILE.toml",
    type=click.Path(dir_okay=False, path_type=Path),
    help="EAs (and platform, ranks, seed) from a TOML file; --ea adds to them.",
)
@click.option(
    "--platform",
    default=None,
    metavar="PRESET|FILE.toml",
    help="Platform  [default: loggopsim; --live: the bare machine]",
)
@click.option(
    "--ranks",
    type=int,
    default=None,
    help="Ranks in the run  [default: the platform's, else enough]",
)
@click.option("--seed", type=int, default=None, help="Seed of the platform's noise  [default: 0]")
@platform_options
@click.option(
    "--study",
    "study_file",
    metavar="STUDY.toml",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Run an ACE study (jitter sd x load x pattern) instead; see studies/ace.toml.",
)
@click.option(
    "--figure",
    "figure_dir",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write the dispersion figure (ace-dispersion.png and .pdf) into DIR.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the result as one JSON object (times in ps)."
)
@click.option(
    "--live",
    is_flag=True,
    help="Run on real MPI with the platform injected (see netsens live)  [default: simulate]",
)
@mpi_options
def ace_command(
    eas: tuple[str, ...],
    spec_file: Path | None,
    study_file: Path | None,
    platform: str | None,
    ranks: int | None,
    seed: int | None,
    figure_dir: Path | None,
    as_json: bool,
    live: bool,
    mpi: str,
    mpirun_args: str,
    timeout: str | None,
    **params: Any,
) -> None:
    """Emulate applications and compare their predicted and actual run times.

    Each EA repeats a communication pattern in compute/communicate cycles on its own
    ranks; several run at once and share the network. Phase one fits the alpha-beta
    line of the pattern over message sizes and measures T_comm; phase two computes
    T_comp = T_comm (1 - load) / load per cycle and predicts the run time. The table
    gives the prediction, the outcome and each rank's dispersion over the cycles.
    """
    if study_file is not None:
        if live:
            raise click.UsageError("--study runs simulated only; drop --live")
        _run_study(study_file)
        return
    args: dict[str, Any] = {"eas": [], "platform": None, "ranks": None, "seed": 0, "mpi": mpi}
    if spec_file is not None:
        args.update(load_ace_file(spec_file))
    # A --mpi given on the command line wins over the file's.
    source = click.get_current_context().get_parameter_source("mpi")
    if source is not None and source != click.core.ParameterSource.DEFAULT:
        args["mpi"] = mpi
    if live:
        args["mode"] = "live"
    if args.get("mode") == "live":
        args |= {"mpirun_args": shlex.split(mpirun_args), "timeout": timeout_seconds(timeout)}
    elif mpirun_args or timeout is not None:
        raise click.UsageError("--mpirun-args and --timeout apply to --live runs only")
    args["eas"] = list(args["eas"]) + list(eas)
    if not args["eas"]:
        raise click.UsageError("give at least one --ea SPEC or a --file")
    for key, value in (("platform", platform), ("ranks", ranks), ("seed", seed)):
        if value is not None:
            args[key] = value
    text = ace_json(overrides=overrides_from(params), **args)
    result = json.loads(text)
    if as_json:
        click.echo(text)
    else:
        print_ace(result)
    if figure_dir is not None:
        from netsens.report.ace import dispersion_figure

        for path in dispersion_figure(result, figure_dir):
            click.echo(f"netsens ace: wrote {path}", err=True)


def _run_study(path: Path) -> None:
    """Run the study, print its rows and where they were written."""
    from rich.table import Table

    from netsens.ace.study import run_ace_study, write_study

    df = run_ace_study(path)
    table = Table(title=f"ACE study {path}")
    for col in (
        "pattern",
        "load",
        "jitter sd",
        "mean T_comm",
        "sd T_comm",
        "CV",
        "actual",
        "error",
    ):
        table.add_column(col, justify="right")
    for r in df.iter_rows(named=True):
        table.add_row(
            r["pattern"],
            f"{r['load'] * 100:g} %",
            r["jitter_sd"],
            format_time(round(r["comm_mean_ps"])),
            format_time(round(r["comm_sd_ps"])),
            f"{r['comm_cv']:.3f}",
            format_time(r["actual_ps"]),
            f"{r['error'] * 100:+.2f} %",
        )
    stdout_console().print(table)
    for written in write_study(path, df):
        click.echo(f"netsens ace: wrote {written}", err=True)
