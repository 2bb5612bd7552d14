"""The one-run section of a report: for every workload of a study, the curves that one
recorded run gives (:func:`netsens.sensitivity.analyze`, docs/guides/sensitivity.md)
beside the swept ones, the difference at every swept point, and where they differ, why.

The record is exact while the run's order of events holds: far from the platform's
values, arrivals from several ranks can reach a receiver in another order (the swept
run then follows a path the record does not hold), a wildcard receive or probe can
match another message, and on a ``[topology]`` the links' time is held at the run's.
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from netsens.errors import NetsensError
from netsens.parameters import PARAMETERS
from netsens.report import figures as F
from netsens.report.tables import Table

# Study axes the record follows, and the analysis's name for each (cpu: 1/cpu_speed).
ANALYSED = {
    "L": "L",
    "o": "o",
    "g": "g",
    "G": "G",
    "O": "O",
    "wan_latency": "wan.L",
    "cpu_speed": "cpu",
}

# A swept and a one-run makespan within this many ps (the engine's rounding), or this
# fraction of the run, agree.
AGREE_PS = 1.0
AGREE_SHARE = 1e-9


def _agree(swept: float, one_run: float) -> bool:
    return abs(swept - one_run) <= max(AGREE_PS, AGREE_SHARE * swept)


@dataclass
class Comparison:
    """One workload's swept points on one axis against its one-run curve."""

    series: str
    axis: str
    x: list[float]  # the axis's canonical values (ps, ps/B, or the CPU speed)
    swept_ps: list[int]
    one_run_ps: list[float]
    why: str  # empty where every point agrees


def _at(corners: list[list[float]], x: float) -> float:
    """The piecewise-linear curve through ``corners`` ([x, T], increasing x) at ``x``."""
    for (x0, t0), (x1, t1) in zip(corners, corners[1:], strict=False):
        if x0 <= x <= x1:
            return t0 if x1 == x0 else t0 + (t1 - t0) * (x - x0) / (x1 - x0)
    return corners[0][1] if x < corners[0][0] else corners[-1][1]


def _resolve(name: str, base: Path | None) -> str:
    """A study's relative file name against its directory (presets and absolute
    paths as they are)."""
    if base is None or os.path.isabs(name) or not (base / name).exists():
        return name
    return str(base / name)


def _why(out: dict[str, Any], where: str, agree: list[bool], at_baseline: bool) -> str:
    """Why the one-run curve leaves the swept one from point ``where`` on (empty where
    it does not); ``at_baseline``: they agree at the platform's own value."""
    if all(agree):
        return ""
    if not at_baseline:
        return (
            "the stored baseline run is not the one recorded now (results of another "
            "netsens version, or the platform or workload changed since)"
        )
    reasons = []
    if out.get("timing_dependent"):
        reasons.append("a wildcard receive or probe: which message matches depends on timing")
    if out.get("link_waits_held_fixed"):
        reasons.append("on a topology the links' time is held at the run's values")
    reasons.append(
        "the record is exact while the run's order of events holds; from "
        f"{where} on, arrivals reach a receiver in another order"
    )
    return "; ".join(reasons)


def compare(df: pl.DataFrame, study_dir: Path | None = None) -> list[Comparison | str]:
    """Every workload's comparisons (one per swept axis the record follows), or a line
    saying why a workload could not be analysed."""
    from netsens.sensitivity import analyze

    df = F.with_series(df)
    axes = [a for a in F.axes_of(df) if a in ANALYSED]
    out: list[Comparison | str] = []
    if not axes:
        return out
    for r in (
        F.baseline_rows(df)
        .unique("series", keep="first", maintain_order=True)
        .iter_rows(named=True)
    ):
        series = r["series"]
        points = {a: F.curve_points(df, a) for a in axes}
        points = {
            a: p.filter((pl.col("series") == series) & (pl.col("seed") == r["seed"])).sort("x")
            for a, p in points.items()
        }
        curves = []
        for a, p in points.items():
            xs = [_param_x(a, v) for v in p["x"].to_list()]
            if len(xs) > 1:
                curves.append((ANALYSED[a], (min(xs), max(xs))))
        if not curves:
            continue
        workload: dict[str, Any] = (
            {"goal": _resolve(r["workload"], study_dir), "ranks": r["ranks"]}
            if r["workload_kind"] == "goal"
            else {"app": r["workload"], "ranks": r["ranks"], "size": r["size"]}
        )
        try:
            result = analyze(
                **workload,
                platform=_resolve(r["platform"], study_dir),
                overrides=json.loads(r["overrides"] or "{}"),
                seed=r["seed"],
                params=[c[0] for c in curves],
                epsilons=[],
                curves=curves,
                chain=0,
                confirm=False,
            )
        except NetsensError as e:
            out.append(f"{series}: not analysed ({e})")
            continue
        corners = {c["param"]: c["points"] for c in result["curves"]}
        for a, p in points.items():
            name = ANALYSED[a]
            if name not in corners:
                continue
            x = p["x"].to_list()
            swept = p["makespan_ps"].to_list()
            mine = [_at(corners[name], _param_x(a, v)) for v in x]
            agree = [_agree(s, m) for s, m in zip(swept, mine, strict=True)]
            first = agree.index(False) if False in agree else None
            where = "" if first is None else f"{a} = {x[first]:g} {PARAMETERS[a].unit}"
            base = [ok for v, ok in zip(x, agree, strict=True) if v == r[PARAMETERS[a].column]]
            why = _why(result, where, agree, all(base))
            out.append(Comparison(series, a, x, swept, mine, why))
    return out


def _param_x(axis: str, value: float) -> float:
    """A study axis's value as the analysis's parameter (the CPU's is 1/speed)."""
    return 1.0 / value if axis == "cpu_speed" else float(value)


def figure(axis: str, rows: list[Comparison], style: dict[str, tuple[str, str]]) -> F.LineFigure:
    """Swept makespans (markers) and the one-run curve (dashed) per workload."""
    p = PARAMETERS[axis]
    unit, div = F.display_unit(p.unit, [x for c in rows for x in c.x])
    series = []
    for c in rows:
        colour, marker = style.get(c.series, ("#444444", "o"))
        xs = [x / div for x in c.x]
        series.append(
            F.Series(f"{c.series}: swept", xs, [t / 1e6 for t in c.swept_ps], colour, marker)
        )
        series.append(
            F.Series(
                f"{c.series}: one run",
                xs,
                [t / 1e6 for t in c.one_run_ps],
                colour,
                marker,
                dashed=True,
                group=c.series,
                show_markers=False,
            )
        )
    return F.LineFigure(
        name=f"one_run_{axis}",
        title=f"Run time against {p.label}: swept and from one run",
        x_title=f"{p.label} ({unit})" if unit else p.label,
        y_title="run time (µs)",
        series=series,
        caption="Markers: full runs of the study; dashed: the curve one recorded run gives.",
    )


def build(
    df: pl.DataFrame, study_dir: Path | None = None
) -> tuple[list[F.LineFigure], Table | None, list[str]]:
    """The section's figures (one per axis), its table of every point's difference with
    the reason where they differ, and a line per workload not analysed; all empty when
    no swept axis is one the record follows."""
    found = compare(df, study_dir)
    rows = [c for c in found if isinstance(c, Comparison)]
    notes = [c for c in found if isinstance(c, str)]
    style = F.colours(sorted({c.series for c in rows}))
    axes = dict.fromkeys(c.axis for c in rows)
    figures = [figure(a, [c for c in rows if c.axis == a], style) for a in axes]
    return figures, _table(rows) if rows else None, notes


def _table(rows: list[Comparison]) -> Table:

    body = []
    for c in rows:
        unit = PARAMETERS[c.axis].unit
        for x, s, m in zip(c.x, c.swept_ps, c.one_run_ps, strict=True):
            diff = m - s
            body.append(
                [
                    c.series,
                    f"{c.axis} = {x:g} {unit}",
                    f"{s / 1e6:.3f}",
                    f"{m / 1e6:.3f}",
                    f"{diff / 1e6:+.3f}",
                    f"{100 * diff / s:+.2f}" if s else "",
                    "" if _agree(s, m) else c.why,
                ]
            )
    headers = [
        ("workload", ""),
        ("point", ""),
        ("swept", "µs"),
        ("one run", "µs"),
        ("difference", "µs"),
        ("difference", "%"),
        ("why they differ", ""),
    ]
    numeric = [False, False, True, True, True, True, False]
    caption = (
        "Every swept point of every workload: the full run, the one-run curve there, "
        "and their difference."
    )
    return Table(headers, body, numeric, caption)
