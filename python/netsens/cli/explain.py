"""``netsens explain STUDY.toml|RESULTS_DIR``: per workload, the parameter it is most
sensitive to and how well each fit and each of Martin's models explains its curves.

The results are read with :func:`netsens.study.store.results` (which says, as for
``netsens report``, when there is no such study or directory or no stored points); the
numbers come from :func:`netsens.models.martin.explain` (fits: :mod:`netsens.models.fit`; models:
:mod:`netsens.models.martin`). Errors are one line, exit code 2, as every netsens command's.
"""

import json
import math
from pathlib import Path
from typing import Any

import click

from netsens.cli.console import stdout_console
from netsens.units import format_time

# How each model adds to the baseline run time, for the table.
FORMULAS = {
    "overhead": "T0 + 2·m·Δo",
    "gap": "T0 + m·(max(g, 2·o0) - max(g0, 2·o0))",
    "latency": "T0 + h·ΔL (h: one-way latencies on the busiest rank's chain)",
    "bulk": "T0 + B·ΔG",
    "per_byte_overhead": "T0 + B·(ΔO + max(O, G0) - max(O0, G0))",
}
COUNT_SYMBOLS = {"messages_max": ("m", "messages"), "bytes_max": ("B", "B")}
COUNT_SYMBOLS["latency_hops"] = ("h", "hops")


def _number(value: float, digits: int = 4) -> str:
    if value == 0:
        return "0"
    text = f"{value:,.{digits}g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return text


def _x(value: float | None, unit: str) -> str:
    if value is None:
        return "none"
    if unit == "B":
        return f"{value:,.0f} B"
    return f"{_number(value)} {unit}"


def _slope(seconds_per_unit: float, unit: str) -> str:
    """Run time per unit of x: ``6.198 ms/us``, ``16.63 us/(ns/B)``."""
    per = f"({unit})" if "/" in unit else unit
    return f"{format_time(round(seconds_per_unit * 1e12))}/{per}"


def _r2(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _percent(fraction: float | None) -> str:
    return "n/a" if fraction is None else f"{100 * fraction:.2f} %"


def _print(explanations: list[Any]) -> None:
    from rich.table import Table

    console = stdout_console()
    for e in explanations:
        where = f"size {e.size}, " if e.size else ""
        console.print(
            f"[bold]{e.workload}[/bold] ({where}{e.ranks} ranks): baseline run time "
            f"{format_time(round(e.baseline_makespan_ps))}"
        )
        if e.most_sensitive is None:
            console.print("  no swept parameter with two or more values")
            console.print()
            continue
        at = _x(e.at_value, e.at_unit)
        console.print(
            f"  most sensitive to [bold]{e.most_sensitive}[/bold] (largest slowdown over its "
            f"range): {e.max_slowdown:.3g}x at {at}"
        )
        fits = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0))
        for column in ("x", "swept", "slowdown", "line dT/dx", "R²", "hinge R²"):
            left = column in ("x", "swept")
            fits.add_column(column, justify="left" if left else "right", no_wrap=not left)
        fits.add_column("elasticity", justify="right")
        fits.add_column("knee", justify="right")
        for a in e.axes:
            unit = a["x_unit"]
            elasticity = "n/a" if a["elasticity"] is None else f"{a['elasticity']:.3g} %/%"
            fits.add_row(
                a["x_name"],
                f"{_number(a['x_min'])}–{_x(a['x_max'], unit)}",
                f"{a['max_slowdown']:.3g}x",
                _slope(a["slope"], unit),
                _r2(a["r2"]),
                "n/a" if a["hinge_breakpoint"] is None else _r2(a["hinge_r2"]),
                elasticity,
                _x(a["knee"], unit),
            )
        console.print(fits)
        if e.models:
            models = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0))
            for column in ("model", "x", "counter", "max |error|", "mean |error|"):
                models.add_column(column, justify="right" if "error" in column else "left")
            for m in e.models:
                symbol, unit = COUNT_SYMBOLS.get(m["count_name"], ("n", ""))
                models.add_row(
                    m["model"],
                    m["axis"],
                    f"{symbol} = {m['count']:,.0f} {unit}",
                    _percent(m["max_abs_rel_error"]),
                    _percent(m["mean_abs_rel_error"]),
                )
            console.print(models)
            for name in dict.fromkeys(m["model"] for m in e.models):
                console.print(f"  {name}: T = {FORMULAS[name]}")
        else:
            console.print("  no model applies to the swept parameters")
        console.print()


def _finite(value: Any) -> Any:
    """JSON-safe: non-finite floats become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def results(*args: Any, **kwargs: Any) -> Any:
    """:func:`netsens.study.store.results`, imported when a study is read (the store imports
    polars, which the other commands do without)."""
    from netsens.study.store import results as stored_results

    return stored_results(*args, **kwargs)


@click.command("explain")
@click.argument("study", metavar="STUDY.toml|RESULTS_DIR", type=click.Path(path_type=Path))
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the explanations as one JSON array (times in ps, fit values in the "
    "units each row names) and nothing else.",
)
def explain_command(study: Path, as_json: bool) -> None:
    """Say what each workload is most sensitive to and how well the models explain it.

    \b
    Per workload (and size, ranks) of a study's results:
      - the parameter it is most sensitive to: the largest measured slowdown over
        that parameter's swept range;
      - per swept parameter x: a least-squares line T = a + b·x (slope as run time
        per unit of x, R²), the elasticity at the baseline (b·x0/T0, % of run time per
        % of x), a one-breakpoint piecewise-linear fit and the knee where a flat
        region ends;
      - per model (overhead, gap, latency, bulk gap, per-byte overhead: Martin et
        al.'s simple models from the baseline's counters): its largest and mean
        relative error over the swept points.

    x is in µs for L, o, g and wan_latency, ns/B for G and O, B for S, ns/B of
    1/bandwidth for wan_bandwidth, and 1/speed for cpu_speed.
    """
    from netsens.models.martin import explain
    from netsens.report.wan import gaps

    frame = results(study, require_points=True)
    explanations = explain(frame)
    wide_area = gaps(frame)
    if as_json:
        click.echo(json.dumps(_finite([e.to_dict() for e in explanations])))
    else:
        _print(explanations)
        _print_gaps(wide_area)


def _print_gaps(rows: list[dict[str, Any]]) -> None:
    """The seed's gap figures (report_wan.gaps): where relative speedup T_L/T_M falls
    below 60 % and 40 %, and local over wide-area bandwidth / wide-area over local
    latency there."""
    from rich.table import Table

    if not rows:
        return
    table = Table(title="wide-area gaps: relative speedup below 60 % / 40 %")
    table.add_column("workload")
    for pct in (60, 40):
        table.add_column(f"bandwidth <{pct}% at 3 ms", justify="right")
        table.add_column("bandwidth gap", justify="right")
    for pct in (60, 40):
        table.add_column(f"latency <{pct}% at 3 MB/s", justify="right")
        table.add_column("latency gap", justify="right")
    for r in rows:
        cells = [r["workload"]]
        for pct in (60, 40):
            bw, gap = r[f"bandwidth_{pct}_Bps"], r[f"bandwidth_gap_{pct}"]
            low = "below throughout" if r[f"bandwidth_{pct}_throughout"] else "none"
            cells += [
                low if bw is None else f"{bw / 1e6:g} MB/s",
                "none" if gap is None else f"{gap:.0f}x",
            ]
        for pct in (60, 40):
            lat, gap = r[f"latency_{pct}_ps"], r[f"latency_gap_{pct}"]
            low = "below throughout" if r[f"latency_{pct}_throughout"] else "none"
            cells += [
                low if lat is None else format_time(round(lat)),
                "none" if gap is None else f"{gap:.0f}x",
            ]
        table.add_row(*cells)
    stdout_console().print(table)
