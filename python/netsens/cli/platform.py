"""``netsens apps`` and ``netsens platform``: what can run and where, the rank
programs and the platform presets. Loaded by :mod:`netsens.cli.main` when a command runs."""

from typing import Any

import click

from netsens.cli.console import stdout_console
from netsens.cli.options import CONTEXT, EPILOG, overrides_from, platform_options
from netsens.engine import apps, platform_toml, presets


@click.command("apps")
def apps_command() -> None:
    """List the rank programs for `netsens run --app` and their sizes."""
    from rich.table import Table

    table = Table("app", "sizes", "description", box=None, pad_edge=False)
    for name, description, sizes in apps():
        table.add_row(name, ", ".join(sizes), description)
    stdout_console().print(table)


@click.group("platform", context_settings=CONTEXT, epilog=EPILOG)
def platform_group() -> None:
    """List the platform presets or show one platform with units."""


@platform_group.command("list")
def platform_list() -> None:
    """List the platform presets with a one-line description each."""
    from rich.table import Table

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
