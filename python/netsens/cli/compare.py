"""``netsens compare``: one program on several networks (presets of networks sold
today, platform files), each network's run time, what limits it and how much headroom
it leaves; tables, ``--json`` and an HTML report (:mod:`netsens.compare`).

Loaded by :mod:`netsens.cli.main` when the command runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from netsens.cli.options import CONTEXT
from netsens.errors import InputError


def _epilog() -> str:
    from netsens.compare.networks import PRESETS

    lines = ["\b", "Networks (--network, repeatable or comma-separated; default: today):"]
    lines += [f"  {p.name:<13} {p.title}" for p in PRESETS.values()]
    lines += [
        "  today         the presets of networks sold today (all but the last two)",
        "  all           every preset;   FILE.toml: a platform file of your own",
        "Each number's source: docs/reference/networks.md.",
        "",
        "\b",
        "Examples:",
        "  netsens compare ring/traces.otf2",
        "  netsens compare --app ft --ranks 64 --size small -n ib-ndr,roce-100 --json",
        "  netsens compare app.otf2 --placement linear --placement random:1 --report out/",
        "  netsens compare app.otf2 --cpu-speed 1.5 --cpu-speed tcp-25g=1",
        "  netsens compare app.goal --background --background-size 1MiB",
        "  netsens compare app.otf2 -n all --slurm --sbatch-args '--time=30'",
    ]
    return "\n".join(lines)


EPILOG = _epilog()


def _cpu_speeds(values: tuple[str, ...]) -> dict[str, float]:
    out: dict[str, float] = {}
    for text in values:
        net, eq, num = text.rpartition("=")
        key = net if eq else "*"
        try:
            speed = float(num)
        except ValueError:
            raise InputError(
                f'--cpu-speed "{text}": write a number (2 = twice as fast) or NETWORK=NUMBER'
            ) from None
        if not speed > 0:
            raise InputError(f'--cpu-speed "{text}": the speed must be above 0')
        out[key] = speed
    return out


def _size(text: str) -> int:
    from netsens.units import parse_quantity

    try:
        return int(parse_quantity("--background-size", text, ("size",)).value)
    except ValueError as e:
        raise InputError(str(e)) from None


@click.command("compare", context_settings=CONTEXT, epilog=EPILOG)
@click.argument("workload", required=False, metavar="[TRACE|FILE.goal]")
@click.option("--app", metavar="NAME", help="A suite application instead of a trace.")
@click.option("--ranks", type=int, metavar="P", help="Ranks of the --app program.")
@click.option(
    "--size", metavar="tiny|small|paper", help="Size of the --app program [default: small]."
)
@click.option(
    "-n",
    "--network",
    "networks",
    multiple=True,
    metavar="NAME|FILE",
    help="Network to compare (repeatable, or comma-separated): a preset, a platform file, "
    "today or all  [default: today].",
)
@click.option(
    "--placement",
    "placements",
    multiple=True,
    metavar="linear|round-robin|random[:SEED]",
    help="Placement of the ranks on the hosts (repeatable: each network at each).",
)
@click.option(
    "--hosts", type=int, metavar="N", help="Hosts of each preset's topology [default: the job's]."
)
@click.option("--taper", metavar="A:B", help="Taper of the fat-tree presets, e.g. 1:1 or 4:1.")
@click.option(
    "--cpu-speed",
    "cpu_speeds",
    multiple=True,
    metavar="X|NETWORK=X",
    help="The target nodes' CPU speed against the traced machine's (2: twice as fast), "
    "for all networks or one (repeatable)  [default: the traced machine's].",
)
@click.option("--background", is_flag=True, help="Run the program beside an all-to-all job.")
@click.option(
    "--background-ranks", type=int, metavar="P", help="Its ranks [default: the program's]."
)
@click.option(
    "--background-size",
    default="64KiB",
    show_default=True,
    metavar="SIZE",
    help="Its message size.",
)
@click.option("--background-rounds", default=4, show_default=True, metavar="N", help="Its rounds.")
@click.option(
    "--results",
    type=click.Path(),
    metavar="DIR",
    help="Where points are kept [default: results/compare-NAME-P].",
)
@click.option(
    "--jobs", "-j", type=int, metavar="N", help="Points run at once  [default: every core]."
)
@click.option(
    "--slurm", is_flag=True, help="Run the points as one Slurm job array and wait for them."
)
@click.option(
    "--sbatch-args",
    default="",
    metavar="TEXT",
    help="More sbatch options with --slurm, e.g. '--partition=short --time=10'.",
)
@click.option(
    "--report",
    "report_dir",
    type=click.Path(),
    metavar="DIR",
    help="Write the HTML report, PNG and PDF here.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the whole comparison as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def compare_command(
    workload: str | None,
    app: str | None,
    ranks: int | None,
    size: str | None,
    networks: tuple[str, ...],
    placements: tuple[str, ...],
    hosts: int | None,
    taper: str | None,
    cpu_speeds: tuple[str, ...],
    background: bool,
    background_ranks: int | None,
    background_size: str,
    background_rounds: int,
    results: str | None,
    jobs: int | None,
    slurm: bool,
    sbatch_args: str,
    report_dir: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Which network for my program: its run time on each network and what limits it.

    Runs the program (a trace in any format netsens reads, a GOAL file, or --app with
    --ranks) once on each network, recording the run: per network the predicted run
    time and its ratio to the best, where the critical path's time goes (compute, o, L,
    G, the links' latency, the waits per class of links), the busiest links, each
    parameter's tolerance at 1 % and 5 %, and the one change that would help most
    (halving a parameter or removing the taper). Each network is sized to the job.
    Points are kept in --results as they finish: run the same command again to continue.
    """
    from netsens.compare import measure, study, summary
    from netsens.compare.networks import expand
    from netsens.compare.workload import workload_of

    if hosts is not None and hosts < 1:
        raise InputError(f"--hosts {hosts}: a network has at least 1 host")
    if background and (background_ranks is not None and background_ranks < 2):
        raise InputError(f"--background-ranks {background_ranks}: an all-to-all needs 2 ranks")
    if background and background_rounds < 1:
        raise InputError(f"--background-rounds {background_rounds}: at least 1 round")
    w = workload_of(workload, app, ranks, size)
    nets = expand(list(networks))
    speeds = _cpu_speeds(cpu_speeds)
    for key in speeds:
        if key != "*" and key not in nets:
            raise InputError(f'--cpu-speed {key}=...: "{key}" is not among the networks compared')
    bg = None
    if background:
        if w.app:
            raise InputError(
                "--background: an application cannot share the network with another job "
                "yet; record it as a trace (netsens trace) or give its GOAL file"
            )
        bg = measure.Background(
            background_ranks or w.ranks, _size(background_size), background_rounds
        )
    if jobs is not None and jobs < 1:
        raise InputError("--jobs: at least 1")
    if jobs is None:
        from netsens.study.sweep import default_jobs

        jobs = default_jobs()
    cmp = study.Comparison(
        workload=w,
        networks=nets,
        placements=list(placements) or [None],
        hosts=hosts,
        taper=taper,
        cpu_speed=speeds,
        background=bg,
    )
    notes = cmp.check()
    say = (lambda line: None) if quiet else (lambda line: click.echo(line, err=True))
    for note in notes:
        say(f"compare: {note}")
    rows = study.run(
        cmp,
        results or study.default_results(w),
        jobs=jobs,
        progress=not quiet,
        slurm=sbatch_args if slurm else None,
    )
    doc = summary.document(w, rows, speeds)
    if report_dir:
        from netsens.compare.report import write_report

        page = write_report(doc, Path(report_dir))
        say(f"compare: report {page}")
    if as_json:
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    from rich.console import Console

    console = Console(highlight=False)
    console.print(f"{doc['computation'][0].upper()}{doc['computation'][1:]}.")
    for t in summary.tables(doc):
        console.print(t)
