"""Results frames for the model, fit and report tests, built as ``netsens.study.store.load``
returns them, without a results directory: from real runs (``netsens.run``) or from
made-up numbers.

A stored point is one row of ``netsens.study.store.SCHEMA`` (from a run, the store's own
``point_row``); :func:`loaded_frame` turns stored points into the loaded frame: one
row per (point, axis), the baseline point of each (workload, size, ranks, seed) folded
into every axis's curve (its ``value`` the baseline's own value of that parameter),
plus ``value`` (for ``clusters`` the number of clusters), ``value_unit``,
``is_baseline``, ``baseline_makespan_ps`` and ``slowdown``, each derived here by hand
as docs/reference/study-file.md describes them.
"""

import json
from typing import Any

import polars as pl

import netsens
from netsens.api import RunResult
from netsens.parameters import PARAMETERS
from netsens.study import store
from netsens.study.definition import Point, point_id

# The resolved parameters of the now1997 preset, in the stored units.
NOW1997 = {
    "L_ps": 5_000_000.0,
    "o_ps": 2_900_000.0,
    "g_ps": 5_800_000.0,
    "G_ps_per_B": 26_315.789,
    "O_ps_per_B": 0.0,
    "S_B": 65_536.0,
    "wan_latency_ps": None,
    "wan_bandwidth_Bps": None,
    "cpu_speed": 1.0,
    "clusters": None,
}


def row_id(row: dict[str, Any]) -> str:
    """The point id of a stored row (the store's: netsens.study.definition.point_id)."""
    keys = ("workload", "size", "ranks", "platform", "seed")
    return point_id(*(row[k] for k in keys), json.loads(row["overrides"]))


def stored_row(
    result: RunResult,
    *,
    axis: str,
    overrides: dict[str, str],
    study: str = "test",
    wall_s: float = 0.0,
) -> dict[str, Any]:
    """The stored point of one run, as a sweep stores it (``netsens.study.store.point_row``)."""
    w = result.workload
    point = Point(
        workload=w.get("app") or w["file"],
        kind=w["kind"],
        size=result.size,
        ranks=result.num_ranks,
        platform=result.platform_name,
        seed=result.seed,
        overrides=overrides,
        axes=[axis],
    )
    return store.point_row(point, study, result.to_dict(), wall_s, netsens.__version__)


def clusters_count(shape: str | None) -> float:
    """The number of clusters of a stored shape: null is one, ``4x8`` four, ``8+8+16``
    three."""
    if shape is None:
        return 1.0
    count, times, _ = shape.partition("x")
    return float(count) if times else float(len(shape.split("+")))


def _value(row: dict[str, Any], axis: str) -> float | None:
    """The row's value of the parameter ``axis`` swept, in its stored unit."""
    if axis not in PARAMETERS:  # baseline, product
        return None
    if axis == "clusters":
        return clusters_count(row["clusters"])
    value = row[PARAMETERS[axis].column]
    return None if value is None else float(value)


def loaded_frame(stored: list[dict[str, Any]], keep_baseline_rows: bool = False) -> pl.DataFrame:
    """What ``netsens.study.store.load`` returns for these stored points (see the module's
    text); ``keep_baseline_rows`` also keeps each baseline point as an axis
    "baseline" row with a null value, as the store does."""
    group = ("workload", "size", "ranks", "seed")
    base = {tuple(r[k] for k in group): r for r in stored if r["axis"] == "baseline"}
    axes: dict[tuple[Any, ...], set[str]] = {}
    for r in stored:
        if r["axis"] not in ("baseline", "product"):
            axes.setdefault(tuple(r[k] for k in group[:3]), set()).add(r["axis"])
    out = []

    def add(r: dict[str, Any], axis: str) -> None:
        b = base[tuple(r[k] for k in group)]
        out.append(
            {
                **r,
                "axis": axis,
                "value": _value(r, axis),
                "value_unit": PARAMETERS[axis].unit if axis in PARAMETERS else None,
                "is_baseline": r["axis"] == "baseline",
                "baseline_makespan_ps": b["makespan_ps"],
                "slowdown": r["makespan_ps"] / b["makespan_ps"],
            }
        )

    for r in stored:
        if r["axis"] == "baseline":
            for axis in sorted(axes.get(tuple(r[k] for k in group[:3]), ())):
                add(r, axis)
            if keep_baseline_rows:
                add(r, "baseline")
        else:
            add(r, r["axis"])
    return pl.DataFrame(out, schema=store.SCHEMA | store.DERIVED)


def run_curves(
    workload: str,
    sweeps: dict[str, list[str]],
    *,
    platform: str = "now1997",
    ranks: int | None = None,
    size: str = "tiny",
    seeds: tuple[int, ...] = (0,),
    baseline: dict[str, str] | None = None,
    keep_baseline_rows: bool = False,
) -> pl.DataFrame:
    """Run the baseline (the platform with the ``baseline`` overrides) and every
    (axis, value) of ``sweeps`` (values with units, as a study gives them) for each
    seed; return the loaded frame. A value that resolves to the baseline's own is not
    run again (the baseline point stands for it)."""
    stored = []
    baseline = dict(baseline or {})
    for seed in seeds:
        base = netsens.run(workload, platform, ranks, size, seed, baseline)
        stored.append(stored_row(base, axis="baseline", overrides=baseline))
        b = stored[-1]
        for axis, values in sweeps.items():
            for value in values:
                overrides = {**baseline, axis: value}
                r = netsens.run(workload, platform, ranks, size, seed, overrides)
                row = stored_row(r, axis=axis, overrides=overrides)
                column = PARAMETERS[axis].column
                if row[column] != b[column]:
                    stored.append(row)
    return loaded_frame(stored, keep_baseline_rows)


def synthetic_frame(
    curves: dict[str, list[tuple[float, float]]],
    *,
    baseline_makespan_ps: float,
    params: dict[str, float | None] | None = None,
    workload: str = "synth",
    ranks: int = 4,
    messages_max: int = 100,
    recv_messages_max: int = 100,
    bytes_max: int = 1000,
    primitives: dict[str, int] | None = None,
    seed: int = 0,
    keep_baseline_rows: bool = False,
) -> pl.DataFrame:
    """A loaded frame from made-up numbers: ``curves`` maps an axis to its (value in the
    stored unit, makespan in ps) points, the baseline excluded (it is the point at
    ``params``' value, with ``baseline_makespan_ps``)."""
    params = {**NOW1997, **(params or {})}
    prims = [{"primitive": k, "total": v * ranks, "max": v} for k, v in (primitives or {}).items()]

    def row(axis: str, overrides: dict[str, Any], makespan: float) -> dict[str, Any]:
        r = {
            "study": "synthetic",
            "workload": workload,
            "workload_kind": "app",
            "size": "tiny",
            "ranks": ranks,
            "platform": "now1997",
            "seed": seed,
            "overrides": json.dumps(overrides, sort_keys=True),
            "axis": axis,
            **params,
            **overrides,
            "makespan_ps": int(round(makespan)),
            "verified": True,
            "messages": messages_max * ranks,
            "bytes": bytes_max * ranks,
            "events": 0,
            "wall_s": 0.0,
            "messages_max": messages_max,
            "messages_mean": float(messages_max),
            "recv_messages_max": recv_messages_max,
            "bytes_max": bytes_max,
            "bytes_mean": float(bytes_max),
            "primitives": prims,
            "matrix": [],
            "histogram": [],
            "netsens_version": "test",
        }
        r["point_id"] = row_id(r)
        return r

    stored = [row("baseline", {}, baseline_makespan_ps)]
    for axis, points in curves.items():
        column = PARAMETERS[axis].column
        for value, makespan in points:
            stored.append(row(axis, {column: value}, makespan))
    return loaded_frame(stored, keep_baseline_rows)
