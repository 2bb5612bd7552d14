"""``netsens sensitivity``: one run, every sensitivity, as tables or ``--json``; with
``--timeline FILE.html|.png|.pdf`` the run drawn as ranks × time with its critical
path over it.

Loaded by :mod:`netsens.cli.main` when the command runs.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import click

from netsens.cli.console import print_blocks
from netsens.cli.options import CONTEXT, EPILOG, overrides_from, platform_options, seed_option
from netsens.cli.text_table import TextLine, TextTable
from netsens.sensitivity.analyze import EPSILONS, analyze, parse_curve, parse_epsilon
from netsens.units_format import format_per_byte, format_time


@click.command("sensitivity", context_settings=CONTEXT, epilog=EPILOG)
@click.argument("workload", required=False, metavar="[FILE.goal|TRACE.otf2]")
@click.option("--app", metavar="NAME", help="Rank program to analyse (netsens apps lists them).")
@click.option("--ranks", type=int, metavar="P", help="Number of ranks of the --app program.")
@click.option("--size", default="small", show_default=True, metavar="tiny|small|paper")
@click.option("--variant", metavar="original|optimized", help="Form of a wide-area --app program.")
@click.option(
    "--platform",
    default="loggopsim",
    show_default=True,
    metavar="PRESET|FILE.toml",
    help="Platform preset name or TOML file.",
)
@platform_options
@seed_option("Seed of the noise streams and of an --app program's data, 0 to 2^64-1.")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME",
    help="Parameter to report (repeatable): L o g G O, node.L …, wan.L wan.G, cpu "
    "[default: all of the platform's].",
)
@click.option(
    "--epsilon",
    "epsilons",
    multiple=True,
    metavar="EPS",
    help="Slowdown the tolerance allows, a fraction or a percentage (repeatable) "
    "[default: 1% 2% 5% 10%].",
)
@click.option(
    "--curve",
    "curves",
    multiple=True,
    metavar="NAME[=LOW:HIGH]",
    help="Exact curve T(x) of a parameter over a range in its unit, e.g. L=0us:20us "
    "(repeatable) [default range: 0.1x to 100x its value].",
)
@click.option(
    "--at",
    "at",
    multiple=True,
    metavar="NAME=V1,V2,...",
    help="T at these values of a parameter alone, e.g. L=1us,5us,20us (repeatable): "
    "far cheaper than a curve's every corner.",
)
@click.option(
    "--confirm/--no-confirm",
    default=True,
    show_default=True,
    help="Run in full at each tolerance and a step beyond it; where the run's order "
    "of events changed before it, full runs find the tolerance instead.",
)
@click.option(
    "--chain", default=20, show_default=True, metavar="N", help="Critical-path steps listed."
)
@click.option("--json", "as_json", is_flag=True, help="Print everything as one JSON object (ps).")
@click.option(
    "--timeline",
    metavar="FILE",
    help="Draw the run (ranks x time, critical path over it): .html (plotly), .png or .pdf.",
)
@click.option(
    "--timeline-ranks",
    default="0:63",
    show_default=True,
    metavar="FIRST:LAST",
    help="Ranks the timeline shows.",
)
@click.option(
    "--timeline-window",
    metavar="FROM:TO",
    help="Time window the timeline shows, e.g. 0us:50us  [default: the whole run].",
)
def sensitivity_command(
    workload: str | None,
    app: str | None,
    ranks: int | None,
    size: str,
    variant: str | None,
    platform: str,
    seed: int,
    params: tuple[str, ...],
    epsilons: tuple[str, ...],
    curves: tuple[str, ...],
    at: tuple[str, ...],
    confirm: bool,
    chain: int,
    as_json: bool,
    timeline: str | None,
    timeline_ranks: str,
    timeline_window: str | None,
    **flags: Any,
) -> None:
    """Critical path, exact slopes and tolerance of every parameter, from one run.

    \b
      netsens sensitivity ping.goal
      netsens sensitivity --app stencil --ranks 16 --curve L=0us:50us
      netsens sensitivity trace/traces.otf2 --param L --param o --json

    The run is recorded once; T at any other value of a parameter is then exact
    while the order of the run's events holds (see docs/guides/sensitivity.md).
    The analysis spreads its passes over up to 4 cores, with the same answers
    (NETSENS_ANALYSIS_THREADS=1 keeps it on one).
    """
    if (workload is None) == (app is None):
        raise click.UsageError("give either a GOAL file or trace, or --app NAME --ranks P")
    eps = [parse_epsilon(e) for e in epsilons] if epsilons else list(EPSILONS)
    out = analyze(
        workload,
        app=app,
        ranks=ranks,
        size=size,
        variant=variant,
        platform=platform,
        overrides=overrides_from(flags),
        seed=seed,
        params=list(params) or None,
        epsilons=eps,
        curves=[parse_curve(c) for c in curves],
        at=list(at),
        chain=max(chain, 0),
        confirm=confirm,
        timeline=timeline is not None,
        timeline_ranks=_pair("--timeline-ranks", timeline_ranks, int),
        timeline_window=_window(timeline_window),
    )
    if timeline:
        from netsens.sensitivity.timeline import write_timeline

        write_timeline(out, timeline)
    if as_json:
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return
    print_blocks(blocks(out, chain))


def _pair(flag: str, text: str, kind: Any) -> Any:
    lo, colon, hi = text.partition(":")
    try:
        if not colon:
            raise ValueError
        return kind(lo), kind(hi)
    except ValueError:
        raise click.BadParameter(f'"{text}" is not FIRST:LAST', param_hint=flag) from None


def _window(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    from netsens.units import parse_quantity

    lo, colon, hi = text.partition(":")
    if not colon:
        raise click.BadParameter(
            f'"{text}" is not FROM:TO such as 0us:50us', param_hint="--timeline-window"
        )
    try:
        return tuple(
            float(parse_quantity("--timeline-window", x, ("time",)).value) for x in (lo, hi)
        )  # type: ignore[return-value]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--timeline-window") from None


def _value(unit: str, v: float) -> str:
    if unit == "ps":
        return format_time(round(v))
    if unit == "ps/B":
        return format_per_byte(v)
    return f"{v:.4g}"


def _delta(unit: str, d: float | None) -> str:
    return "unbounded" if d is None or math.isinf(d) else "+" + _value(unit, d)


def blocks(out: dict[str, Any], chain: int) -> list[Any]:
    """The headline, the critical path's make-up and steps, the slopes and tolerances,
    and the curves, as tables."""
    t0 = out["makespan_ps"]
    cp = out["critical_path"]
    head = TextLine(
        ("makespan ", None),
        (format_time(round(t0)), "bold"),
        (f"; critical path through {cp['steps']} operations", None),
    )
    result: list[Any] = [head]
    if out["timing_dependent"]:
        note = "matching can depend on timing (a wildcard receive): check with full runs"
        result.append(TextLine((note, None)))
    if out.get("link_waits_held_fixed"):
        note = (
            "on a topology: slopes and curves hold each message's link time (route latency, "
            "transmission, queueing) fixed; the tolerances are confirmed by full runs"
        )
        result.append(TextLine((note, None)))
    parts = TextTable(title="critical path: where its time goes")
    parts.add_column("part")
    parts.add_column("time", justify="right")
    parts.add_column("share", justify="right")
    for p in sorted(cp["parts"], key=lambda p: -p["ps"]):
        parts.add_row(p["part"], format_time(round(p["ps"])), f"{100 * p['share']:.1f}%")
    if cp["nic_wait_ps"]:
        parts.add_row("(of g, G: behind a busy NIC)", format_time(round(cp["nic_wait_ps"])), "")
    result.append(parts)
    if chain and cp["chain"]:
        steps = TextTable(
            title=f"critical path: first {len(cp['chain'][:chain])} of {cp['steps']} steps"
        )
        for column in ("rank", "operation", "until"):
            steps.add_column(column, justify="right" if column != "operation" else "left")
        for s in cp["chain"][:chain]:
            steps.add_row(str(s["rank"]), s["what"], format_time(round(s["until_ps"])))
        result.append(steps)
    eps = [t["epsilon"] for t in out["params"][0]["tolerance"]] if out["params"] else []
    table = TextTable(title="slopes dT/dx and tolerances (largest increase with T <= (1+eps) T0)")
    for column in ("param", "value", "slope down", "slope up"):
        table.add_column(column, justify="left" if column == "param" else "right")
    for e in eps:
        table.add_column(f"{100 * e:g}%", justify="right")
    for p in out["params"]:
        unit = p["unit"]
        cells = [
            p["param"],
            _value(unit, p["value"]),
            f"{p['slope_down']:.6g}",
            f"{p['slope_up']:.6g}",
        ]
        for t in p["tolerance"]:
            if t.get("confirmed") is False:
                cells.append(_delta(unit, t["delta_by_runs"]) + " (runs)")
            else:
                cells.append(_delta(unit, t["delta"]))
        table.add_row(*cells)
    result.append(table)
    for c in out["curves"]:
        curve = TextTable(title=f"T({c['param']}): exact corners")
        curve.add_column(c["param"], justify="right")
        curve.add_column("T", justify="right")
        for x, t in c["points"]:
            curve.add_row(_value(c["unit"], x), format_time(round(t)))
        result.append(curve)
    for a in out["at"]:
        values = TextTable(title=f"T({a['param']}) at the values asked")
        values.add_column(a["param"], justify="right")
        values.add_column("T", justify="right")
        for x, t in zip(a["values"], a["makespan_ps"], strict=True):
            values.add_row(_value(a["unit"], x), format_time(round(t)))
        result.append(values)
    return result
