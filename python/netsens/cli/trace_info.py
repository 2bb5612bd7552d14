"""``netsens trace info TRACE [--json]``: what a trace holds before a long sweep — the
tracer that wrote it, its ranks and clock, the time it measured for each rank (with the
time between its calls beside the compute replay charges it), and every MPI call with its
count and whether replay models it (docs/guides/traces.md).
"""

from __future__ import annotations

import json
import statistics
from typing import Any

import click

from netsens.cli.console import print_blocks
from netsens.cli.run import MAX_RANK_ROWS
from netsens.cli.text_table import TextLine, TextTable
from netsens.engine import trace_info
from netsens.units_format import format_time


def info_command(path: str, as_json: bool) -> None:
    """Print the trace at ``path``'s description, or its JSON."""
    info = trace_info(path)
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    clock = None if info["replay_refused"] else info["compute_clock"]
    blocks = [headline(info), measured_table(info["ranks_measured"], clock)]
    if info["replay_refused"]:
        blocks.append(TextLine(("replay refuses it: ", "bold"), (info["replay_refused"], None)))
    print_blocks([*blocks, call_table(info["calls"])])


def headline(info: dict[str, Any]) -> TextTable:
    """Tracer, ranks, clock (ticks per second and one tick) and events."""
    grid = TextTable.grid()
    grid.add_column(style="bold")
    grid.add_column()
    ticks = info["ticks_per_second"]
    grid.add_row("trace", info["file"])
    grid.add_row("tracer", info["tracer"] or "(not named)")
    grid.add_row("ranks", str(info["ranks"]))
    grid.add_row("clock", f"{ticks:,} ticks/s, {format_time(-(-(10**12) // ticks))} per tick")
    grid.add_row("events", f"{info['events']:,}")
    return grid


def measured_table(ranks: list[dict[str, Any]], clock: str | None) -> TextTable:
    """Each rank's measured time, time with measurement off, time between its calls (as
    the trace says it) and the compute replay charges it (by the ``clock`` it names; "-"
    where replay refuses the trace); min, median and max beyond MAX_RANK_ROWS ranks."""
    per_rank = len(ranks) <= MAX_RANK_ROWS
    table = TextTable(
        title="measured per rank" if per_rank else f"measured, over {len(ranks)} ranks"
    )
    table.add_column("rank" if per_rank else "", justify="right" if per_rank else "left")
    table.add_column("measured", justify="right")
    table.add_column("measurement off", justify="right")
    table.add_column("between calls", justify="right")
    replayed = f"replayed compute ({clock})" if clock else "replayed compute"
    table.add_column(replayed, justify="right")
    columns = ("measured_ps", "paused_ps", "between_calls_ps", "replayed_compute_ps")

    def shown(values: list[int | None], pick: Any) -> str:
        return "-" if None in values else format_time(pick(values))

    if per_rank:
        for r in ranks:
            table.add_row(str(r["rank"]), *(shown([r[c]], min) for c in columns))
    else:
        for label, pick in (("min", min), ("median", statistics.median_low), ("max", max)):
            table.add_row(label, *(shown([r[c] for r in ranks], pick) for c in columns))
    return table


def call_table(calls: list[dict[str, Any]]) -> TextTable | TextLine:
    """Every MPI call, most frequent first, and what replay does with it."""
    if not calls:
        return TextLine(("no MPI call", None))
    table = TextTable(title="MPI calls")
    table.add_column("call")
    table.add_column("count", justify="right")
    table.add_column("replay")
    for c in calls:
        table.add_row(c["call"], f"{c['count']:,}", c["replay"])
    return table
