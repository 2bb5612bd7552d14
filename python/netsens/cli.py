"""The ``netsens`` command line.

``netsens run`` replays a GOAL schedule (``--goal``) or runs one of the rank programs
(``--app``, listed by ``netsens apps``) on a platform and prints where the time went
(or, with ``--json``, the whole result as one JSON object); ``netsens calibrate``
recovers a platform's parameters with the seeds' LogP microbenchmarks; ``netsens
platform list`` and ``netsens platform show`` describe the platforms; ``netsens sweep``
and ``netsens results`` run a study and show it (:mod:`netsens.cli_study`). The LogGOPS
parameters are flags spelled as LogGOPSim spells them and case-sensitive: ``--g`` (gap
per message) and ``--G`` (gap per byte) are different options.

Every user error (a bad value, a missing file, a schedule that cannot finish, a usage
mistake) ends as exactly one line on stderr, ``netsens: error: ...``, with exit code 2;
Ctrl-C ends with exit code 130. Neither prints a traceback.
"""

import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from netsens.cli_calibrate import calibrate_command
from netsens.cli_explain import explain_command
from netsens.cli_live import live_command, validate_command
from netsens.cli_report import report as report_command
from netsens.cli_study import results_command, sweep_command
from netsens.cli_trace import replay_command, trace_command
from netsens.console import stdout_console
from netsens.engine import (
    ParseFn,
    ProgressFn,
    apps,
    platform_toml,
    presets,
    run_app,
    run_app_json,
    run_goal,
    run_goal_json,
)
from netsens.errors import NetsensError
from netsens.units import format_bytes, format_time

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130

# Up to this many ranks `run` prints one row per rank, beyond it min/median/max.
MAX_RANK_ROWS = 16

UNITS_HELP = """\b
Every value needs its unit (a bare number is an error):
  time      5us  2.5us  1500ns  3ms  40ps      (us or µs)
  per byte  6ns/B  40ps/B, or a bandwidth: 1MB/s  10Gbit/s  12.5GB/s  100MiB/s
  size      100B  65535B  64KiB  1MB"""


def _presets_help() -> str:
    lines = ["\b", "Platform presets (netsens platform show NAME prints one in full):"]
    lines += [f"  {name:<10} {description}" for name, description in presets()]
    return "\n".join(lines)


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EPILOG = f"{UNITS_HELP}\n\n{_presets_help()}"

# (flag, override key, metavar, help); the key is also the click destination, given
# explicitly because click would otherwise lowercase `--G` into `g`.
NETWORK_OPTIONS = [
    ("--L", "L", "TIME", "Latency L: wire time of a message, e.g. 5us."),
    ("--o", "o", "TIME", "CPU overhead o per message, paid at each end, e.g. 1us."),
    ("--g", "g", "TIME", "Gap g between two messages on one NIC, e.g. 2us."),
    ("--G", "G", "PER_BYTE", "Gap G per byte on the NIC, e.g. 6ps/B or 10Gbit/s."),
    ("--O", "O", "PER_BYTE", "CPU overhead O per byte, e.g. 0ns/B."),
    ("--S", "S", "SIZE", "Eager limit S: larger messages use rendezvous, e.g. 64KiB."),
    ("--G-above", "G_above", "SIZE", "G only on messages above this size (0B: on all), e.g. 16B."),
]
SHAPE_OPTIONS = [
    ("--clusters", "clusters", "SHAPE", "Clusters joined by wide-area links, e.g. 4x8."),
    ("--ranks-per-node", "ranks_per_node", "N", "Ranks sharing one node, e.g. 2."),
    ("--cpu-speed", "cpu_speed", "X", "CPU speed scale, e.g. 2 (twice as fast)."),
    ("--wan-latency", "wan_latency", "TIME", "Latency of each wide-area link, e.g. 3ms."),
    ("--wan-bandwidth", "wan_bandwidth", "BANDWIDTH", "Bandwidth of each wide-area link, 1MB/s."),
    (
        "--disk-bandwidth",
        "disk_bandwidth",
        "BANDWIDTH",
        "Bandwidth of each node disk (programs that use disks), e.g. 5.5MB/s.",
    ),
]
CHOICE_OPTIONS = [
    (
        "--rendezvous",
        "rendezvous",
        ("handshake", "loggopsim"),
        "Protocol above S: MPI-like request/clear-to-send, or LogGOPSim's shortcut.",
    ),
    ("--wan-shape", "wan_shape", ("full", "star", "ring"), "How clusters are linked."),
]
OVERRIDE_KEYS = [key for _, key, *_ in NETWORK_OPTIONS + SHAPE_OPTIONS + CHOICE_OPTIONS]


def platform_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the flags that override a platform's parameters (see ``overrides_from``)."""
    for flag, key, choices, text in reversed(CHOICE_OPTIONS):
        command = click.option(flag, key, type=click.Choice(choices), help=text)(command)
    for flag, key, metavar, text in reversed(NETWORK_OPTIONS + SHAPE_OPTIONS):
        command = click.option(flag, key, metavar=metavar, help=text)(command)
    return command


def overrides_from(params: dict[str, Any]) -> dict[str, str]:
    """The platform overrides among a command's parameters, the unset ones left out."""
    return {key: params[key] for key in OVERRIDE_KEYS if params.get(key) is not None}


def _check_seed(value: int) -> int:
    if not 0 <= value < 2**64:
        raise click.BadParameter(f"{value} is not between 0 and 2^64-1")
    return value


@click.group(context_settings=CONTEXT, epilog=EPILOG)
# The version is read from the package metadata only when -V asks for it.
@click.version_option(None, "-V", "--version", prog_name="netsens", package_name="netsens")
def cli() -> None:
    """Simulate how a parallel program responds to its network.

    netsens replays a program's communication in virtual time under the LogGOPS
    model: latency L, CPU overhead o per message, gap g between messages, gap G
    per byte, CPU overhead O per byte, and the eager/rendezvous threshold S. Dial
    them one at a time on a platform (a preset or a TOML file) and see where the
    time goes. Runs are deterministic: the same inputs and seed give the same result.
    """


@cli.command(epilog=EPILOG)
@click.option(
    "--goal",
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="GOAL schedule to replay (LogGOPSim's format; its times are nanoseconds).",
)
@click.option(
    "--app",
    metavar="NAME",
    help="Rank program to run (netsens apps lists them); needs --ranks.",
)
@click.option("--ranks", type=int, metavar="P", help="Number of ranks of the --app program.")
@click.option(
    "--size",
    metavar="tiny|small|paper",
    help="Size preset of the --app program's input  [default: small]",
)
@click.option(
    "--variant",
    metavar="original|optimized",
    help="Form of a wide-area --app program (water, bh, tsp, asp, awari; fft1d has "
    "only original)  [default: optimized]",
)
@click.option(
    "--platform",
    default="loggopsim",
    show_default=True,
    metavar="PRESET|FILE.toml",
    help="Platform preset name or TOML file.",
)
@platform_options
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    metavar="N",
    callback=lambda _ctx, _param, value: _check_seed(value),
    help="Seed of the noise streams and of an --app program's data, 0 to 2^64-1.",
)
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
    goal: Path | None,
    app: str | None,
    ranks: int | None,
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
    Give exactly one of --goal and --app:
      netsens run --goal FILE.goal
      netsens run --app stencil --ranks 16 [--size tiny|small|paper]

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

    An --app program (see `netsens apps`) computes a real answer on data generated
    from --seed and checks it; a wrong answer fails the run.

    The flags below override the platform's values; for example
    `netsens run --goal ping.goal --L 5us --G 1ns/B` reruns with a slower network.
    """
    if goal is not None and app is not None:
        raise click.UsageError("give either --goal or --app, not both")
    if goal is None and app is None:
        raise click.UsageError("Missing option '--goal' or '--app'")
    if goal is not None:
        for flag, value in (("--ranks", ranks), ("--size", size), ("--variant", variant)):
            if value is not None:
                raise click.UsageError(f"{flag} is for --app; a GOAL file sets its own ranks")
    elif ranks is None:
        raise click.UsageError(f"--ranks is required with --app (e.g. --app {app} --ranks 4)")
    overrides = overrides_from(params)
    with _run_progress() as (progress, parsing):
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
        _print_run(result)


@contextmanager
def _progress_bar() -> Iterator[ProgressFn | None]:
    """A progress bar on stderr for long runs (the engine reports every 2^20 events);
    nothing when stderr is not a terminal, so pipes and CI logs stay clean."""
    with _run_progress() as (progress, _parsing):
        yield progress


@contextmanager
def _run_progress() -> Iterator[tuple[ProgressFn | None, ParseFn | None]]:
    """`_progress_bar`'s simulation hook, and one that shows a GOAL file's parse
    (every 64 MiB of text) before the simulation starts; (None, None) when stderr is
    not a terminal."""
    if not sys.stderr.isatty():
        yield None, None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        parse_task = None
        task = bar.add_task("simulating", total=None, detail="0 events, virtual time 0 ns")

        def update(events: int, now_ps: int, ops_done: int, ops_total: int) -> None:
            if parse_task is not None:
                bar.update(parse_task, visible=False)
            detail = f"{events:,} events, virtual time {format_time(now_ps)}"
            total = ops_total or None
            bar.update(task, completed=ops_done, total=total, detail=detail, visible=True)

        def parsed(done: int, total: int) -> None:
            nonlocal parse_task
            if parse_task is None:
                # The simulation's line comes back with its first report.
                bar.update(task, visible=False)
                parse_task = bar.add_task("parsing", total=total, detail="")
            detail = f"{format_bytes(done)} of {format_bytes(total)}"
            bar.update(parse_task, completed=done, total=total, detail=detail)

        yield update, parsed


def _print_run(result: dict[str, Any]) -> None:
    console = stdout_console()
    ranks = result["ranks"]
    workload = result["workload"]
    if workload["kind"] == "app":
        what = f"{workload['app']} (size {workload['size']})"
    else:
        what = Path(workload["file"]).name
    summary = result.get("rank_summary")
    console.print(
        f"{what}: {summary['ranks'] if summary else len(ranks)} ranks on platform "
        f"[bold]{result['platform_name']}[/bold], seed {result['seed']}"
    )
    console.print(summary_table(result, [("events", f"{result['events']:,}")]))
    console.print(_rank_table(ranks, summary))
    if result.get("phases"):
        console.print(_phase_table(result["phases"]))


_SIZE_NAME = re.compile(r"^(\d+)(B|KiB|MiB|GiB)$")
_SIZE_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def summary_table(result: dict[str, Any], extra: Sequence[tuple[str, str]] = ()) -> Table:
    """A run's makespan, messages, bytes, the ``extra`` rows and whether it verified."""
    summary = Table.grid(padding=(0, 2))
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


def _phase_table(phases: Sequence[dict[str, Any]]) -> Table:
    """Time per phase: median, min and max over the ranks that entered it."""
    import statistics  # only here and for many ranks: a short run starts without it

    by_phase: dict[str, list[int]] = {}
    for p in phases:
        by_phase.setdefault(p["phase"], []).append(p["elapsed_ps"])
    table = Table(title="per phase (time over the ranks in it)")
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


def _rank_table(ranks: Sequence[dict[str, int]], summary: dict[str, Any] | None = None) -> Table:
    """One row per rank, or the min, median and max over many ranks (from the
    engine's ``rank_summary`` when it sent that instead of the ranks)."""
    columns = ["end_ps", "compute_ps", "overhead_ps", "wait_ps"]
    if summary:
        if summary["max"]["noise_ps"]:
            columns.append("noise_ps")
        table = Table(title=f"over {summary['ranks']} ranks")
        table.add_column("", justify="left")
        for column in columns:
            table.add_column(column.removesuffix("_ps"), justify="right")
        for label in ("min", "median", "max"):
            table.add_row(label, *(format_time(summary[label][c]) for c in columns))
        return table
    if any(r.get("noise_ps", 0) for r in ranks):
        columns.append("noise_ps")
    per_rank = len(ranks) <= MAX_RANK_ROWS
    table = Table(title="per rank" if per_rank else f"over {len(ranks)} ranks")
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


@cli.command("profile", epilog=EPILOG)
@click.option(
    "--app", required=True, metavar="NAME", help="Rank program (netsens apps lists them)."
)
@click.option("--ranks", required=True, type=int, metavar="P", help="Number of ranks.")
@click.option("--size", default="small", show_default=True, metavar="tiny|small|paper")
@click.option(
    "--platform",
    default="now1997",
    show_default=True,
    metavar="PRESET|FILE.toml",
    help="Platform (the seed's table is on the Berkeley NOW).",
)
@platform_options
@click.option("--seed", type=int, default=0, show_default=True, metavar="N")
@click.option("--json", "as_json", is_flag=True, help="Print the profile as one JSON object.")
def profile_command(
    app: str, ranks: int, size: str, platform: str, seed: int, as_json: bool, **params: Any
) -> None:
    """How a program communicates (Martin's Table 3.2 / 4.1 columns).

    Messages and bytes per rank (mean, max), the share of reads, writes, bulk and
    collective messages, messages per rank per ms of run time, the median and mean
    message size; --json adds the balance matrix and the size histogram.
    """
    from netsens.api import run as api_run
    from netsens.profile import characterize

    _check_seed(seed)
    with _progress_bar() as progress:
        result = api_run(
            app, platform, ranks, size, seed, overrides_from(params), progress=progress
        )
    prof = characterize(result)
    if as_json:
        click.echo(json.dumps(prof.to_dict()))
        return
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_row("workload", f"{prof.workload} ({size}), {prof.ranks} ranks")
    table.add_row("run time", format_time(prof.makespan_ps))
    table.add_row("messages per rank", f"{prof.messages_mean:,.1f} mean, {prof.messages_max:,} max")
    table.add_row(
        "bytes per rank",
        f"{format_bytes(round(prof.bytes_mean))} mean, {format_bytes(prof.bytes_max)} max",
    )
    for name, share in prof.shares.items():
        table.add_row(f"{name} share", f"{100 * share:.1f} %")
    table.add_row("messages per rank per ms", f"{prof.messages_per_ms:,.1f}")
    table.add_row("median message size", f"{prof.median_bytes_lo}-{prof.median_bytes_hi} B (bin)")
    table.add_row("mean message size", f"{prof.mean_bytes:,.1f} B")
    stdout_console().print(table)


@cli.command("apps")
def apps_command() -> None:
    """List the rank programs for `netsens run --app` and their sizes."""
    table = Table("app", "sizes", "description", box=None, pad_edge=False)
    for name, description, sizes in apps():
        table.add_row(name, ", ".join(sizes), description)
    stdout_console().print(table)


@cli.group("platform", context_settings=CONTEXT, epilog=EPILOG)
def platform_group() -> None:
    """List the platform presets or show one platform with units."""


@platform_group.command("list")
def platform_list() -> None:
    """List the platform presets with a one-line description each."""
    table = Table("preset", "description", box=None, pad_edge=False)
    for name, description in presets():
        table.add_row(name, description)
    stdout_console().print(table)


@platform_group.command("show", epilog=EPILOG)
@click.argument("spec", metavar="PRESET|FILE.toml")
@platform_options
def platform_show(spec: str, **params: Any) -> None:
    """Print a platform as TOML, every value with its unit, after any overrides.

    The output is a valid platform file: save it, edit it, and pass it back
    with `netsens run --platform FILE.toml`.
    """
    click.echo(platform_toml(spec, overrides_from(params)), nl=False)


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _fail(message: str) -> int:
    click.echo(f"netsens: error: {_one_line(message)}", err=True)
    return EXIT_USER_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        with cli.make_context("netsens", args) as ctx:
            cli.invoke(ctx)
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help())
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.UsageError as e:
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx else ""
        return _fail(e.format_message() + hint)
    except click.ClickException as e:
        return _fail(e.format_message())
    except NetsensError as e:
        return _fail(str(e))
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as other tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:
        return _fail(f"{e.strerror or e}: {e.filename}" if e.filename else str(e))
    except KeyboardInterrupt:
        click.echo("netsens: interrupted", err=True)
        return EXIT_INTERRUPTED
    return 0


# The study commands live in their own modules.
for _command in (sweep_command, results_command, explain_command, report_command):
    cli.add_command(_command)
cli.add_command(calibrate_command(platform_options, overrides_from, EPILOG))
cli.add_command(live_command(platform_options, overrides_from, _check_seed))
cli.add_command(validate_command)
cli.add_command(trace_command())
cli.add_command(replay_command(platform_options, overrides_from, _check_seed))

# After the group and its shared options exist: the ACE command imports them.
from netsens.cli_ace import ace_command  # noqa: E402

cli.add_command(ace_command)

from netsens.cli_goal import goal_command  # noqa: E402

cli.add_command(goal_command)
