"""``netsens sensitivity``: one run, every sensitivity, as tables or ``--json``; with
``--timeline FILE.html|.png|.pdf`` the run drawn as ranks × time with its critical
path over it.

Loaded by :mod:`netsens.cli.main` when the command runs.
"""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any, TextIO

import click

from netsens.cli.console import print_blocks
from netsens.cli.options import CONTEXT, EPILOG, overrides_from, platform_options, seed_option
from netsens.cli.text_table import TextLine, TextTable
from netsens.sensitivity.analyze import (
    EPSILONS,
    AnalysisInterrupted,
    analyze,
    parse_curve,
    parse_epsilon,
)
from netsens.units_format import format_per_byte, format_time


@click.command("sensitivity", context_settings=CONTEXT, epilog=EPILOG)
@click.argument("workload", required=False, metavar="[FILE.goal|TRACE.otf2]")
@click.option("--app", metavar="NAME", help="Rank program to analyse (netsens apps lists them).")
@click.option("--ranks", type=int, metavar="P", help="Number of ranks of the --app program.")
@click.option("--size", default="small", show_default=True, metavar="tiny|small|paper")
@click.option(
    "--variant",
    metavar="original|optimized|original-messages",
    help="Form of a wide-area --app program.",
)
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
    (NETSENS_ANALYSIS_THREADS=1 keeps it on one). Every search has a bound on its
    steps: where one is reached the tolerance is an interval ("+a to +b") or
    ">= +a". Progress shows on stderr; Ctrl-C during the confirming runs prints
    what is known and exits with code 130.
    """
    if (workload is None) == (app is None):
        raise click.UsageError("give either a GOAL file or trace, or --app NAME --ranks P")
    eps = [parse_epsilon(e) for e in epsilons] if epsilons else list(EPSILONS)
    ask = {
        "app": app,
        "ranks": ranks,
        "size": size,
        "variant": variant,
        "platform": platform,
        "overrides": overrides_from(flags),
        "seed": seed,
        "params": list(params) or None,
        "epsilons": eps,
        "curves": [parse_curve(c) for c in curves],
        "at": list(at),
        "chain": max(chain, 0),
        "confirm": confirm,
        "timeline": timeline is not None,
        "timeline_ranks": _pair("--timeline-ranks", timeline_ranks, int),
        "timeline_window": _window(timeline_window),
    }
    reporter = _Progress(sys.stderr)
    try:
        out = analyze(workload, **ask, progress=reporter.run, confirm_progress=reporter.confirming)
    except AnalysisInterrupted as e:
        # Ctrl-C during the full runs: what is known, then the CLI's interruption (130).
        reporter.close()
        _print(e.partial, chain, as_json)
        tolerances = [t for p in e.partial["params"] for t in p["tolerance"]]
        checked = sum("interrupted" not in t for t in tolerances)
        click.echo(
            f"netsens: sensitivity: stopped during the full runs; {checked} of "
            f"{len(tolerances)} tolerances done (the others are the record's, not checked)",
            err=True,
        )
        raise KeyboardInterrupt from None
    finally:
        reporter.close()
    if timeline:
        from netsens.sensitivity.timeline import write_timeline

        write_timeline(out, timeline)
    _print(out, chain, as_json)


def _print(out: dict[str, Any], chain: int, as_json: bool) -> None:
    if as_json:
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return
    print_blocks(blocks(out, chain))


# Plain progress lines (stderr not a terminal) come at most this often, in s, and
# only once the confirmation has taken that long (as ``netsens sweep``'s).
PLAIN_EVERY_S = 2.0


class _Progress:
    """The recording run and the confirmation's full runs on stderr, as ``netsens
    sweep`` shows its points: a rich bar on a terminal (the run's from the engine's
    first report, every 2^20 events), else a plain line every few s once the
    confirmation has taken that long; nothing for a short analysis."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.tty = stream, stream.isatty()
        self.bar: Any = None
        self.tasks: dict[str, Any] = {}
        self.started: float | None = None
        self.last = 0.0

    def _task(self, name: str, total: int | None) -> Any:
        if self.bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[detail]}"),
                TimeElapsedColumn(),
                console=Console(file=self.stream),
                transient=True,
            )
            self.bar.start()
        if name not in self.tasks:
            for other in self.tasks.values():
                self.bar.update(other, visible=False)
            self.tasks[name] = self.bar.add_task(name, total=total, detail="")
        return self.tasks[name]

    def run(self, events: int, now_ps: int, ops_done: int, ops_total: int) -> None:
        """The recording run's progress (the engine's callback)."""
        if self.tty:
            task = self._task("recording the run", ops_total or None)
            detail = f"{events:,} events, virtual time {format_time(now_ps)}"
            self.bar.update(task, completed=ops_done, total=ops_total or None, detail=detail)

    def confirming(self, done: int, planned: int, what: str) -> None:
        """After each of the confirmation's full runs."""
        now = time.perf_counter()
        if self.started is None:
            self.started = self.last = now
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = f"{(planned - done) / rate:.0f} s" if rate > 0 else "?"
        line = f"{done}/{planned} full runs ({what}), {rate:.1f} runs/s, ETA {eta}"
        if self.tty:
            task = self._task("confirming", planned)
            self.bar.update(task, completed=done, total=planned, detail=line)
        elif now - self.last >= PLAIN_EVERY_S:
            print(f"sensitivity: confirming: {line}", file=self.stream, flush=True)
            self.last = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


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


def _tolerance(unit: str, t: dict[str, Any]) -> str:
    """A tolerance's cell: the record's, or the runs' where they did not confirm it;
    an interval, or "at least", where a search stopped at its bound."""
    if t.get("confirmed") is False and "delta_by_runs" in t:
        if t["delta_by_runs"] is None:
            return ">= " + _delta(unit, t["delta_by_runs_at_least"]) + " (runs)"
        text = _delta(unit, t["delta_by_runs"])
        if "delta_by_runs_at_most" in t:
            text += " to " + _delta(unit, t["delta_by_runs_at_most"])
        return text + " (runs)"
    text = _delta(unit, t["delta"])
    if "delta_at_most" in t:
        most = t["delta_at_most"]
        text = ">= " + text if most is None else f"{text} to {_delta(unit, most)}"
    if t.get("interrupted"):
        text += " (not checked)"
    return text


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
        cells.extend(_tolerance(unit, t) for t in p["tolerance"])
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
