"""``netsens live``: a real MPI program, or a suite application on real MPI, under a
dialled network (:mod:`netsens.live.run`).

Registered on the ``netsens`` group by :mod:`netsens.cli.main`; errors end as one line
``netsens: error: ...`` with exit code 2 there, Ctrl-C with exit code 130 (and no MPI
process left behind).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from netsens.cli.console import stdout_console
from netsens.cli.options import overrides_from, platform_options, repeat_option, seed_option
from netsens.cli.run import phase_table, rank_table, summary_table
from netsens.live.mpi import IMPLEMENTATIONS
from netsens.live.run import run_live
from netsens.units import format_bytes, format_time, parse_quantity

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def timeout_seconds(text: str | None) -> float | None:
    """``--timeout`` in seconds (given as a time with its unit, e.g. ``600s``)."""
    if text is None:
        return None
    try:
        q = parse_quantity("--timeout", text, ("time",))
    except ValueError as e:
        raise click.BadParameter(str(e).removeprefix("--timeout: ")) from None
    return float(q.value) / 1e12


def mpi_option(help_text: str) -> Any:
    """``--mpi``: the MPI implementation, Open MPI by default."""
    return click.option(
        "--mpi",
        type=click.Choice(list(IMPLEMENTATIONS)),
        default="openmpi",
        show_default=True,
        help=help_text,
    )


def mpi_options(command: Any) -> Any:
    """``--mpi``, ``--mpirun-args`` and ``--timeout``, shared by the live commands."""
    command = click.option(
        "--timeout",
        metavar="TIME",
        help="Stop the MPI job after this long, e.g. 600s  [default: no limit]",
    )(command)
    command = click.option(
        "--mpirun-args",
        default="",
        metavar="ARGS",
        help='More arguments for the launcher, e.g. "--bind-to core" (one string).',
    )(command)
    return mpi_option("MPI implementation (each has its own mpirun and netsens library build).")(
        command
    )


def _print_live(result: dict[str, Any]) -> None:
    console = stdout_console()
    w = result["workload"]
    what = f"{w['app']} (size {w['size']})" if w["kind"] == "app" else shlex.join(w["command"])
    mpi = result["mpi"]
    console.print(
        f"{what}: {len(result['ranks'])} ranks live on {mpi['implementation']} "
        f"({mpi['library']}), platform [bold]{result['platform_name']}[/bold] injected"
    )
    unhandled = result.get("unhandled_calls") or {}
    listed = ", ".join(f"{name} ×{n}" for name, n in unhandled.items())
    console.print(summary_table(result, [("not injected", listed)] if unhandled else []))
    console.print(rank_table(result["ranks"]))
    if result.get("phases"):
        console.print(phase_table(result["phases"]))


def result_options(seed_help: str) -> Any:
    """``--seed``, ``--json`` and ``--matrix/--no-matrix``, shared by the commands that
    print a run's result (``live``, ``replay``)."""

    def decorate(command: Any) -> Any:
        command = click.option(
            "--matrix/--no-matrix",
            default=True,
            show_default=True,
            help="Include the matrix in --json.",
        )(command)
        command = click.option(
            "--json",
            "as_json",
            is_flag=True,
            help="Print the result as one JSON object (times in ps).",
        )(command)
        return seed_option(seed_help)(command)

    return decorate


def live_command(platform_options: Any, overrides_from: Any) -> click.Command:
    """The command, given the network flags of :mod:`netsens.cli.main` (shared with ``run``)."""

    @click.command("live", context_settings=CONTEXT)
    @click.argument("program", nargs=-1, type=click.UNPROCESSED, metavar="[-- PROGRAM ARGS...]")
    @click.option("--app", metavar="NAME", help="Suite application to run (netsens apps).")
    @click.option(
        "--variant",
        metavar="original|optimized|original-messages",
        help="Variant of a wide-area --app (water, tsp, asp, ...)  [default: optimized]",
    )
    @click.option("--ranks", type=int, required=True, metavar="P", help="Number of MPI processes.")
    @click.option(
        "--size",
        default="small",
        show_default=True,
        metavar="tiny|small|paper",
        help="Size preset of the --app application's input.",
    )
    @click.option(
        "--platform",
        default=None,
        metavar="PRESET|FILE.toml",
        help="Inject this platform's o, O, g, G, L and wide-area links  "
        "[default: none, only the flags given]",
    )
    @platform_options
    @mpi_options
    @result_options("Seed of the --app application's data.")
    @repeat_option(
        "Run the --app application K times in one job and report its median run "
        "(a run of a few ms varies from one run to the next)."
    )
    def live(
        program: tuple[str, ...],
        app: str | None,
        variant: str | None,
        ranks: int,
        size: str,
        platform: str | None,
        mpi: str,
        mpirun_args: str,
        timeout: str | None,
        seed: int,
        as_json: bool,
        matrix: bool,
        repeat: int,
        **params: Any,
    ) -> None:
        """Run a program on real MPI with o, g, L and G injected.

        \b
        A suite application (same source as in simulation) or any MPI program,
        C, Fortran, Rust or Python, unmodified:
          netsens live --app radb --ranks 4 --size tiny --o 20us
          netsens live --ranks 4 --L 50us --G 1GB/s -- ./my_solver input.dat
          netsens live --ranks 2 --o 10us -- python3 -m mpi4py my_script.py

        \b
        netsens starts mpirun with its PMPI library preloaded. Injected on top
        of the real machine (docs/reference/pmpi.md):
          o, O  busy CPU at the sender and the receiver of every message (the
                rank's CPU time with more ranks than cores, else the wall clock)
          g, G  at least g between a rank's sends; (s-1)*G of send NIC per message
          L     no message is received before its send time + L
          --clusters with --wan-latency/--wan-bandwidth: wide-area links between
                rank groups, each directed link a FIFO
        Nothing is injected unless asked: `netsens live --ranks 4 -- ./prog`
        measures the bare machine. --S, --rendezvous and node levels are the real
        MPI's own and are not injected.

        The result has the simulated run's schema plus the MPI implementation, the
        machine and the MPI calls the library passed through untouched.
        """
        if (app is None) == (not program):
            raise click.UsageError("give either --app NAME or a program after --, not both")
        output = run_live(
            ranks,
            app=app,
            program=list(program) or None,
            variant=variant,
            size=size,
            seed=seed,
            platform=platform,
            overrides=overrides_from(params),
            mpi=mpi,
            mpirun_args=shlex.split(mpirun_args),
            timeout=timeout_seconds(timeout),
            matrix=matrix,
            repeat=repeat,
            # With --json, stdout carries the JSON only: the program's output goes to stderr.
            program_stdout=sys.stderr.fileno() if as_json else None,
        )
        if as_json:
            click.echo(json.dumps(output))
        else:
            _print_live(output)

    return live


# --- netsens calibrate --live -----------------------------------------------------------

LIVE_CALIBRATE_KEYS = ("mpi", "reps", "runs", "save", "timeout")


def live_calibrate_options(command: Any) -> Any:
    """The options ``netsens calibrate`` takes for ``--live``."""
    command = click.option(
        "--timeout", metavar="TIME", help="Stop a calibration run after this long, e.g. 300s."
    )(command)
    command = click.option(
        "--save",
        metavar="FILE.toml",
        type=click.Path(dir_okay=False, path_type=Path),
        help="With --live: write the measured machine as a platform file for run and sweep.",
    )(command)
    command = click.option(
        "--runs",
        type=click.IntRange(min=1),
        default=5,
        show_default=True,
        help="With --live: calibrations of the machine (and as many injected, in turn); "
        "an overhead is the lowest of them, any other value their mean with the highest "
        "and lowest fifth left out (one run on a shared or virtual machine can be off by "
        "microseconds).",
    )(command)
    command = click.option(
        "--reps",
        type=click.IntRange(min=2),
        default=40,
        show_default=True,
        help="With --live: messages per burst and round trips per size.",
    )(command)
    return mpi_option("With --live: the MPI implementation.")(command)


def _unit_value(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "ps":
        return format_time(round(value))
    if unit == "ps/B":
        return f"{value / 1000:.4g} ns/B"
    return format_bytes(round(value))


def calibrate_live_cli(
    platform: str | None,
    overrides: dict[str, str],
    as_json: bool,
    mpi: str,
    reps: int,
    runs: int,
    save: Path | None,
    timeout: str | None,
) -> None:
    from rich.table import Table

    from netsens.live.calibrate import calibrate_live  # noqa: PLC0415
    from netsens.live.copy_limit import copy_limit  # noqa: PLC0415
    from netsens.live.validate import machine_toml, saved_platform  # noqa: PLC0415

    say = None if as_json else (lambda line: click.echo(line, err=True))
    result = calibrate_live(mpi, platform, overrides, reps, timeout_seconds(timeout), runs, say)
    if save is not None:
        limit = copy_limit(mpi)
        machine = result["machine"]
        text = machine_toml(machine, cores=result["cores"], copy_limit=limit and limit.bytes)
        tmp = save.with_name(save.name + ".tmp")
        tmp.write_text(text)
        tmp.replace(save)
        names = {p["name"] for p in machine["parameters"]}
        o_from = "stream" if "o_s_stream" in names else "ping_pong"
        values, long = saved_platform(machine, limit and limit.bytes)
        result["saved"] = {"file": str(save), "o_from": o_from, **values}
        if long is not None and limit is not None:
            result["saved"]["long_messages"] = {**long, "S_from": limit.source}
    if as_json:
        click.echo(json.dumps(result))
        return
    console = stdout_console()
    console.print(
        f"live calibration on {mpi}, 2 processes, {reps} repetitions; "
        f"each value from {runs} run{'s' if runs > 1 else ''} (overheads: the lowest)"
    )
    injected = result["injected"] is not None
    headers = ["parameter", "machine"]
    saved = result.get("saved")
    if saved:
        headers.append("saved")
    if injected:
        headers += ["dialled", "expected", "measured", "error"]
    table = Table(*headers)
    for column in table.columns[1:]:
        column.justify = "right"
    for row in result["rows"]:
        unit = row["unit"]
        cells = [row["name"], _unit_value(row["machine"], unit)]
        if saved:
            cells.append(_saved_cell(row["name"], saved, unit))
        if injected:
            err = row.get("abs_error")
            rel = row.get("relative_error")
            error = "-" if err is None else f"{_unit_value(err, unit)}"
            if rel is not None:
                error += f" ({100 * rel:+.1f} %)"
            how = "+" if row.get("combines") == "add" else "floor "
            cells += [
                (how + _unit_value(row["dialled"], unit)) if "dialled" in row else "-",
                _unit_value(row.get("expected"), unit),
                _unit_value(row.get("measured"), unit),
                error if "dialled" in row else "",
            ]
        table.add_row(*cells)
    console.print(table)
    if injected:
        console.print(
            "o and O add to the machine's own; L, g and G are floors (docs/reference/pmpi.md): "
            "expected = machine + dialled, or max(machine, dialled); L is held from the "
            "send call, so the machine's o_s overlaps it: max(machine L, L - machine o_s)."
        )
    if save is not None:
        console.print(
            f"machine platform written to {save} ({result['cores']} cores: ranks beyond "
            "them share cores); it holds the saved column: o is the mean of the "
            "streaming o_s and o_r (what a rank pays per message when messages stream), "
            "G the long messages' cost per byte (G_long, or the bound its slope proves), "
            "a value below 0 (noise around 0) is 0"
        )
        saved = result["saved"]
        long = saved.get("long_messages")
        if long is None:
            console.print(
                f"every message is eager: the MPI's copy limit was not read ({mpi}) or the "
                "long messages' slope was not measured (the MPI's own protocol is inside "
                "the measured costs)"
            )
        else:
            console.print(
                f"messages above S = {long['S']} B ({long['S_from']}: the MPI copies them "
                "once) take the handshake, its control messages at the machine's o "
                f"(o_control), and O = {_unit_value(long['O'], 'ps/B')}, the long "
                "messages' slope"
            )
        if saved_from_stream(saved) and saved["o_ping_pong"] > 0:
            change = 100 * (saved["o"] / saved["o_ping_pong"] - 1)
            console.print(
                f"o = {_unit_value(saved['o'], 'ps')}; a single message's (ping-pong) o, "
                f"the mean of o_s and o_r, is {_unit_value(saved['o_ping_pong'], 'ps')} "
                f"(streaming: {change:+.1f} %)"
            )
        if "G_short" in saved:
            console.print(
                f"G = {_unit_value(saved['G'], 'ps/B')} from long messages; the eager sizes' "
                f"slope is {_unit_value(saved['G_short'], 'ps/B')}"
            )


def _saved_cell(name: str, saved: dict[str, Any], unit: str) -> str:
    """A parameter's value in the saved platform file, as the table shows it."""
    if name == "S":
        long = saved.get("long_messages")
        return "all eager" if long is None else _unit_value(long["S"], unit)
    if name in ("o_s", "o_r", "o_s_stream", "o_r_stream"):
        # o is saved from the streaming pair when measured, else from the single one.
        stream = name.endswith("_stream")
        return _unit_value(saved["o"], unit) if stream == saved_from_stream(saved) else "-"
    if name in ("G", "G_long"):
        # G is saved from the long messages when measured, else from the eager sizes.
        from_long = "G_short" in saved
        return _unit_value(saved["G"], unit) if (name == "G_long") == from_long else "-"
    return _unit_value(saved[name], unit)


def saved_from_stream(saved: dict[str, Any]) -> bool:
    """Whether the saved o is the streaming one (the calibration measured it)."""
    return saved.get("o_from") == "stream"


# --- netsens validate -------------------------------------------------------------------


@click.command("validate", context_settings=CONTEXT)
@click.option("--app", required=True, metavar="NAME", help="Suite application (netsens apps).")
@click.option("--axis", required=True, metavar="NAME=FROM..TO", help="e.g. o=0us..100us")
@click.option("--points", type=click.IntRange(min=2), default=5, show_default=True)
@click.option("--ranks", type=int, default=4, show_default=True, metavar="P")
@click.option("--size", default="tiny", show_default=True, metavar="tiny|small|paper")
@click.option(
    "--machine",
    metavar="FILE.toml",
    help="The calibrated machine (calibrate --live --save)  [default: calibrate now]",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help=(
        "Live MPI jobs (each: a warm-up, then 9 cycles of the baseline and every value, "
        "switched between runs), and simulated runs measuring the computation."
    ),
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Where the figure, page and JSON go  [default: results/validate/APP-AXIS]",
)
@click.option(
    "--results",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="A study's results directory: write under DIR/validate/APP-AXIS, so that "
    "`netsens report DIR` shows this validation beside the study.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@mpi_option("MPI implementation.")
def validate_command(
    app: str,
    axis: str,
    points: int,
    ranks: int,
    size: str,
    machine: str | None,
    repeats: int,
    seed: int,
    out: Path | None,
    results: Path | None,
    as_json: bool,
    mpi: str,
) -> None:
    """The same sweep simulated and live, both curves in one figure.

    \b
      netsens calibrate --live --save machine.toml
      netsens validate --app radb --axis o=0us..100us --machine machine.toml

    Live runs inject each value of the axis into real MPI; simulated runs add it to
    the calibrated machine, with computation lined up to a live baseline run via
    measured compute, and the machine's o (or, if that is not enough, its CPU speed)
    fitted to that baseline: with more ranks than cores a message costs more than the
    two-process calibration saw. With more ranks than cores the simulated ranks also
    share the machine's cores, as the live ones do. Prints each point's slowdown both
    ways and the error (simulated / live - 1), and writes the figure (PNG, PDF), an
    HTML page and the JSON under --out. With --results STUDY_RESULTS the validation
    goes into that study's results directory and `netsens report` shows it in a
    "Live against simulated" section.
    """
    from rich.table import Table

    from netsens.live.calibrate import calibrate_live  # noqa: PLC0415
    from netsens.live.validate import machine_toml, parse_axis, validate, write_outputs  # noqa: PLC0415

    name, values = parse_axis(axis, points)
    if out is not None and results is not None:
        raise click.UsageError("give --out or --results, not both")
    if results is not None and not results.is_dir():
        raise click.UsageError(f"--results: {results} is not a directory")
    out = out or (results or Path("results")) / "validate" / f"{app}-{name}"
    out.mkdir(parents=True, exist_ok=True)
    say = (lambda line: click.echo(line, err=True)) if not as_json else (lambda _line: None)
    if machine is None:
        say("calibrating the machine (calibrate --live)")
        calibration = calibrate_live(mpi)
        machine = str(out / "machine.toml")
        Path(machine).write_text(machine_toml(calibration["machine"]))
    result = validate(
        app, ranks, name, values, machine, size=size, seed=seed, mpi=mpi, repeats=repeats, say=say
    )
    paths = write_outputs(result, out)
    if as_json:
        click.echo(json.dumps(result))
        return
    table = Table(name, "live", "simulated", "live slowdown", "simulated slowdown", "error")
    for column in table.columns[1:]:
        column.justify = "right"
    for p in result["points"]:
        table.add_row(
            p["value"],
            format_time(p["live_ps"]),
            format_time(p["simulated_ps"]),
            f"{p['live_slowdown']:.3f}×",
            f"{p['simulated_slowdown']:.3f}×",
            f"{100 * p['error']:+.1f} %",
        )
    console = stdout_console()
    console.print(table)
    console.print(f"largest error {100 * result['max_abs_error']:.1f} %; written: {paths[-1]}")


# The command `netsens live` loads (see netsens.cli.main.COMMANDS).
live = live_command(platform_options, overrides_from)
