"""The one-run section of a report: for every workload of a study, what one recorded
run gives (:func:`netsens.sensitivity.analyze`, docs/guides/sensitivity.md) beside the
swept curves, the difference at every swept point, and where they differ, why. The
record is asked only at the swept values and a few between them (``at``: all in the
same batched passes), and the workloads are analysed in parallel processes.

The record is exact while the run's order of events holds: far from the platform's
values, arrivals from several ranks can reach a receiver in another order (the swept
run then follows a path the record does not hold), a wildcard receive or probe can
match another message, and on a ``[topology]`` the links' time is held at the run's.
"""

import json
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
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


# The one-run line is drawn through the swept values and this many between each two:
# the record's makespan there, evaluated in the same batched passes as the swept ones.
BETWEEN = 3


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
    # The one-run line: the swept x and BETWEEN values in each gap, the record's T there.
    line_x: list[float]
    line_ps: list[float]


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


@dataclass
class _Task:
    """One workload's recorded run and the values its record is asked at."""

    series: str
    workload: dict[str, Any]
    platform: str
    overrides: dict[str, str]
    seed: int
    at: list[tuple[str, list[float]]]  # per swept axis: the analysis's name, values
    cost_s: float = 0.0  # the stored baseline run's wall time: the longest start first


def _analyse(task: _Task) -> dict[str, Any] | str:
    """The record's makespans at the task's values (in a worker), or why the workload
    could not be analysed."""
    from netsens.sensitivity import analyze

    try:
        out = analyze(
            **task.workload,
            platform=task.platform,
            overrides=task.overrides,
            seed=task.seed,
            params=[],
            epsilons=[],
            at=task.at,
            chain=0,
            confirm=False,
        )
    except NetsensError as e:
        return str(e)
    keep = ("timing_dependent", "link_waits_held_fixed")
    return {**{k: out.get(k) for k in keep}, "at": [a["makespan_ps"] for a in out["at"]]}


def line_values(xs: list[float]) -> list[float]:
    """The swept values (increasing) and BETWEEN evenly spaced values in each gap."""
    out = []
    for x0, x1 in zip(xs, xs[1:], strict=False):
        out += [x0 + (x1 - x0) * i / (BETWEEN + 1) for i in range(BETWEEN + 1)]
    return out + xs[-1:]


def _analyse_all(
    tasks: list[_Task], jobs: int | None, say: Callable[[str], None]
) -> list[dict[str, Any] | str]:
    """Every task's answer, in the tasks' order: on ``jobs`` worker processes (default:
    every core; in this process where one is enough), a line through ``say`` as each
    workload finishes."""
    from netsens.study.sweep import default_jobs

    jobs = max(1, min(jobs or default_jobs(), len(tasks)))
    found: list[dict[str, Any] | str] = [""] * len(tasks)
    start = time.perf_counter()

    def done(i: int, n: int) -> None:
        s = tasks[i].series
        say(f"one run: {s} ({n}/{len(tasks)}, {time.perf_counter() - start:.1f} s)")

    if jobs == 1:
        for i, t in enumerate(tasks):
            found[i] = _analyse(t)
            done(i, i + 1)
        return found
    # spawn, as the sweep's workers: polars keeps threads that fork would copy half-alive.
    context = multiprocessing.get_context("spawn")
    # The longest first, so that no long one starts last while the other cores idle.
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i].cost_s)
    try:
        with ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = {pool.submit(_analyse, tasks[i]): i for i in order}
            for n, future in enumerate(as_completed(futures), 1):
                i = futures[future]
                found[i] = future.result()
                done(i, n)
    except BrokenProcessPool:
        raise NetsensError(
            "one run against the sweep: a worker process died (out of memory?); "
            "run the report again with fewer --jobs"
        ) from None
    return found


def compare(
    df: pl.DataFrame,
    study_dir: Path | None = None,
    jobs: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Comparison | str]:
    """Every workload's comparisons (one per swept axis the record follows), or a line
    saying why a workload could not be analysed. Each workload's record is asked for
    its makespan at the swept values and between them only, on ``jobs`` processes
    (default: every core); ``progress`` hears of each workload as it finishes."""
    df = F.with_series(df)
    axes = [a for a in F.axes_of(df) if a in ANALYSED]
    if not axes:
        return []
    tasks: list[_Task] = []
    # Per task: its baseline row, swept points and line values, by axis.
    swept: list[tuple[dict[str, Any], dict[str, pl.DataFrame], dict[str, list[float]]]] = []
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
        points = {a: p for a, p in points.items() if p["x"].n_unique() > 1}
        if not points:
            continue
        workload: dict[str, Any] = (
            {"goal": _resolve(r["workload"], study_dir), "ranks": r["ranks"]}
            if r["workload_kind"] == "goal"
            else {"app": r["workload"], "ranks": r["ranks"], "size": r["size"]}
        )
        lines = {
            a: line_values(p["x"].unique(maintain_order=True).to_list()) for a, p in points.items()
        }
        at = [(ANALYSED[a], [_param_x(a, v) for v in xs]) for a, xs in lines.items()]
        platform = _resolve(r["platform"], study_dir)
        overrides = json.loads(r["overrides"] or "{}")
        cost = float(r.get("wall_s") or 0.0)
        tasks.append(_Task(series, workload, platform, overrides, r["seed"], at, cost))
        swept.append((r, points, lines))
    out: list[Comparison | str] = []
    answers = _analyse_all(tasks, jobs, progress or (lambda _msg: None))
    for task, (r, points, lines), result in zip(tasks, swept, answers, strict=True):
        if isinstance(result, str):
            out.append(f"{task.series}: not analysed ({result})")
            continue
        for (a, p), (_, values), ts in zip(points.items(), task.at, result["at"], strict=True):
            line = dict(zip(values, ts, strict=True))
            x = p["x"].to_list()
            swept_ps = p["makespan_ps"].to_list()
            mine = [line[_param_x(a, v)] for v in x]
            agree = [_agree(s, m) for s, m in zip(swept_ps, mine, strict=True)]
            first = agree.index(False) if False in agree else None
            where = "" if first is None else f"{a} = {x[first]:g} {PARAMETERS[a].unit}"
            base = [ok for v, ok in zip(x, agree, strict=True) if v == r[PARAMETERS[a].column]]
            why = _why(result, where, agree, all(base))
            out.append(Comparison(task.series, a, x, swept_ps, mine, why, lines[a], ts))
    return out


def _param_x(axis: str, value: float) -> float:
    """A study axis's value as the analysis's parameter (the CPU's is 1/speed)."""
    return 1.0 / value if axis == "cpu_speed" else float(value)


def figure(axis: str, rows: list[Comparison], style: dict[str, tuple[str, str]]) -> F.LineFigure:
    """Swept makespans (markers) and the one-run curve (dashed) per workload."""
    p = PARAMETERS[axis]
    unit, div = F.display_unit(p.unit, [x for c in rows for x in c.x])
    # The run times in the unit that suits the largest (s for the default study).
    y_unit, y_div = F.display_unit("ps", [t for c in rows for t in [*c.swept_ps, *c.line_ps]])
    series = []
    for c in rows:
        colour, marker = style.get(c.series, ("#444444", "o"))
        xs = [x / div for x in c.x]
        swept = [t / y_div for t in c.swept_ps]
        series.append(F.Series(f"{c.series}: swept", xs, swept, colour, marker, group=c.series))
        series.append(
            F.Series(
                f"{c.series}: one run",
                [x / div for x in c.line_x],
                [t / y_div for t in c.line_ps],
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
        y_title=f"run time ({y_unit})",
        series=series,
        caption=(
            "Markers: full runs of the study; dashed: one recorded run's makespan at the "
            f"swept values and {BETWEEN} between each two."
        ),
    )


def build(
    df: pl.DataFrame,
    study_dir: Path | None = None,
    jobs: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[F.LineFigure], Table | None, list[str]]:
    """The section's figures (one per axis), its table of every point's difference with
    the reason where they differ, and a line per workload not analysed; all empty when
    no swept axis is one the record follows. ``jobs`` and ``progress`` as :func:`compare`."""
    found = compare(df, study_dir, jobs, progress)
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
