"""``netsens profile``: how a rank program communicates, in the columns of Martin's
Table 3.2 / 4.1 (:mod:`netsens.models.profile`). Loaded by :mod:`netsens.cli.main` when the
command runs."""

import json
from typing import Any

import click

from netsens.cli.console import stdout_console
from netsens.cli.options import CONTEXT, EPILOG, check_seed, overrides_from, platform_options
from netsens.cli.progress import progress_bar
from netsens.units import format_bytes, format_time


@click.command("profile", context_settings=CONTEXT, epilog=EPILOG)
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
    from netsens.models.profile import characterize

    check_seed(seed)
    with progress_bar() as progress:
        result = api_run(
            app, platform, ranks, size, seed, overrides_from(params), progress=progress
        )
    prof = characterize(result)
    links = result.to_dict().get("links")
    if as_json:
        click.echo(json.dumps(prof.to_dict() | ({"links": links} if links else {})))
        return
    from rich.table import Table

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
    for row in link_rows(links, prof.ranks):
        table.add_row(*row)
    stdout_console().print(table)


def link_rows(links: dict[str, Any] | None, ranks: int) -> list[tuple[str, str]]:
    """A topology's links per class (bytes, busy time, the busiest link's share of the
    run, most flows at once) and the ranks' mean link wait; none without a topology."""
    if not links:
        return []
    rows = []
    for c in links["classes"]:
        if not c["flows"]:
            continue
        rows.append(
            (
                f"links {c['class']}",
                f"{format_bytes(c['bytes'])}, busy {format_time(c['busy_ps'])} "
                f"over {c['links_used']} of {c['links']} links, busiest "
                f"{100 * c['max_utilization']:.1f} % of the run, peak {c['peak_flows']} flows",
            )
        )
    wait = sum(links["link_wait_ps"]) / max(ranks, 1)
    rows.append(("link wait per rank", f"{format_time(round(wait))} mean (shared links)"))
    return rows
