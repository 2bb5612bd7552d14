"""``netsens goal compile IN.goal OUT.nsg``: a GOAL file parsed once into netsens's
compiled form, which ``run``, ``sweep`` and the Python API load without parsing
(versioned and checksummed; a damaged, foreign or older file is one error line).
``netsens goal to-simgrid WORKLOAD OUT_DIR --platform P``: a schedule and its platform
as SimGrid's time-independent trace, to replay in SMPI (docs/guides/topology.md).

Registered on the ``netsens`` group by :mod:`netsens.cli.main`; errors end as one line
``netsens: error: ...`` with exit code 2 there.
"""

from pathlib import Path
from typing import Any

import click

from netsens.cli.options import overrides_from, platform_options, seed_option
from netsens.engine import compile_goal, to_simgrid


@click.group("goal")
def goal_command() -> None:
    """GOAL schedules: compile one for repeated runs, or export one to SimGrid."""


@goal_command.command("compile")
@click.argument("source", type=click.Path(path_type=Path), metavar="IN.goal")
@click.argument("out", type=click.Path(path_type=Path), metavar="OUT.nsg")
def compile_command(source: Path, out: Path) -> None:
    """Parse IN.goal once and write it as OUT.nsg, which runs as IN.goal does:
    netsens run --goal OUT.nsg."""
    ops = compile_goal(source, out)
    click.echo(f"{out}: {ops} operations compiled from {source}")


@goal_command.command("to-simgrid")
@click.argument("workload", metavar="WORKLOAD")
@click.argument("out", type=click.Path(path_type=Path), metavar="OUT_DIR")
@click.option("--platform", required=True, help="The platform: a TOML file with a [topology].")
@click.option(
    "--set",
    "settings",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override any platform key, e.g. topology.model=cm02 or topology.taper=2:1.",
)
@click.option("--ranks", type=int, help="Ranks of an application (WORKLOAD an app name).")
@click.option("--size", default="small", show_default=True, help="An application's size preset.")
@click.option("--variant", help="A wide-area application's variant.")
@seed_option("Seed of an application's data.")
@platform_options
def to_simgrid_command(
    workload: str,
    out: Path,
    platform: str,
    settings: tuple[str, ...],
    ranks: int | None,
    size: str,
    variant: str | None,
    seed: int,
    **params: Any,
) -> None:
    """Write WORKLOAD on a platform as SimGrid's time-independent trace.

    \b
    WORKLOAD is a GOAL file, a compiled schedule, a trace, or an application
    (with --ranks), whose program's schedule is recorded on the platform:
      netsens goal to-simgrid ft --ranks 16 ft-sg --platform fat-tree-64.toml \\
          --set topology.model=cm02
      sh ft-sg/run.sh
    OUT_DIR gets each rank's actions (rank-R.txt, listed in traces.txt), the
    platform (platform.xml: the hosts the ranks sit on, the topology's links and
    every route netsens takes, each sender's NIC as a link of 1/G and latency L),
    the hostfile, a replay program of a few lines (replay.cpp) and run.sh, which
    builds it with smpicxx (Debian's libsimgrid-dev) and replays the trace with
    smpirun under the platform's network model, SMPI's own factors flat, o as
    SMPI's overheads and S as its eager limit; it prints each rank's end.

    \b
    The platform must be one cluster with a [topology] (no wide-area links, no
    node level, no noise), and the schedule sends, receives and computes (no
    receive from any source, no one-sided messages).
    """
    overrides = overrides_from(params)
    for setting in settings:
        key, sep, value = setting.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{setting!r} is not KEY=VALUE", param_hint="--set")
        overrides[key.strip()] = value.strip()
    nranks, actions, routes, notes = to_simgrid(
        workload, platform, out, overrides, ranks=ranks, size=size, seed=seed, variant=variant
    )
    click.echo(
        f"{out}: {nranks} ranks, {actions:,} actions, {routes:,} routes; replay: sh {out}/run.sh"
    )
    for note in notes:
        click.echo(f"note: {note}")
