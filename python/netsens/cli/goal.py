"""``netsens goal compile IN.goal OUT.nsg``: a GOAL file parsed once into netsens's
compiled form, which ``run``, ``sweep`` and the Python API load without parsing
(versioned and checksummed; a damaged, foreign or older file is one error line).

Registered on the ``netsens`` group by :mod:`netsens.cli.main`; errors end as one line
``netsens: error: ...`` with exit code 2 there.
"""

from pathlib import Path

import click

from netsens.engine import compile_goal


@click.group("goal")
def goal_command() -> None:
    """GOAL schedules: compile one for repeated runs."""


@goal_command.command("compile")
@click.argument("source", type=click.Path(path_type=Path), metavar="IN.goal")
@click.argument("out", type=click.Path(path_type=Path), metavar="OUT.nsg")
def compile_command(source: Path, out: Path) -> None:
    """Parse IN.goal once and write it as OUT.nsg, which runs as IN.goal does:
    netsens run --goal OUT.nsg."""
    ops = compile_goal(source, out)
    click.echo(f"{out}: {ops} operations compiled from {source}")
