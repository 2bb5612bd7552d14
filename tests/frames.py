"""Results frames for the model and fit tests, built exactly as ISSUE6-SPEC describes
``netsens.store.load``'s output, without the store: from real runs (``netsens.run``)
or from made-up numbers.

A stored point is one row of the spec's columns; :func:`loaded_frame` turns stored
points into the loaded frame: one row per (point, axis), the baseline point of each
(workload, size, ranks, seed) folded into every axis's curve (its ``value`` the
baseline's own value of that parameter), plus ``value``, ``value_unit``,
``baseline_makespan_ps`` and ``slowdown``.
"""

import hashlib
import json
from typing import Any

import polars as pl

import netsens
from netsens.api import RunResult

# Axis -> (stored column, canonical unit).
PARAMS = {
    "L": ("L_ps", "ps"),
    "o": ("o_ps", "ps"),
    "g": ("g_ps", "ps"),
    "G": ("G_ps_per_B", "ps/B"),
    "O": ("O_ps_per_B", "ps/B"),
    "S": ("S_B", "B"),
    "wan_latency": ("wan_latency_ps", "ps"),
    "wan_bandwidth": ("wan_bandwidth_Bps", "B/s"),
    "cpu_speed": ("cpu_speed", "ratio"),
    "clusters": ("clusters", None),
}
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
PRIMITIVE_TYPE = pl.List(pl.Struct({"primitive": pl.String, "total": pl.Int64, "max": pl.Int64}))


def point_id(row: dict[str, Any]) -> str:
    key = {k: row[k] for k in ("workload", "size", "ranks", "platform", "seed", "overrides")}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def stored_row(
    result: RunResult, *, axis: str, overrides: dict[str, str], study: str = "test"
) -> dict[str, Any]:
    """The stored point of one run (the spec's columns)."""
    p = result.platform
    cluster, wan = p["cluster"], p.get("wan")
    shape = (p.get("shape") or {}).get("clusters")
    ranks, prims = result.ranks, result.primitives
    per_prim = prims.group_by("primitive").agg(
        pl.col("count").sum().alias("total"), pl.col("count").max().alias("max")
    )
    w = result.workload
    row = {
        "study": study,
        "workload": w.get("app") or w.get("file"),
        "workload_kind": w["kind"],
        "size": result.size,
        "ranks": result.num_ranks,
        "platform": result.platform_name,
        "seed": result.seed,
        "overrides": json.dumps(overrides, sort_keys=True),
        "axis": axis,
        "L_ps": float(cluster["latency"]),
        "o_ps": float(cluster["overhead"]),
        "g_ps": float(cluster["gap"]),
        "G_ps_per_B": cluster["gap_per_byte"] / 1000,
        "O_ps_per_B": cluster["overhead_per_byte"] / 1000,
        "S_B": float(cluster["eager_limit"]),
        "wan_latency_ps": float(wan["latency"]) if wan else None,
        "wan_bandwidth_Bps": 1e15 / wan["per_byte"] if wan else None,
        "cpu_speed": float(p["cpu_speed"]),
        "clusters": "x".join(map(str, shape)) if shape else None,
        "makespan_ps": result.makespan_ps,
        "verified": result.verified,
        "messages": result.messages,
        "bytes": result.bytes,
        "events": result.events,
        "wall_s": 0.0,
        "messages_max": int(ranks["sent_messages"].max()),
        "messages_mean": float(ranks["sent_messages"].mean()),
        "recv_messages_max": int(ranks["recv_messages"].max()),
        "bytes_max": int(ranks["sent_bytes"].max()),
        "bytes_mean": float(ranks["sent_bytes"].mean()),
        "primitives": per_prim.sort("primitive").to_dicts(),
        "matrix": result.matrix.to_dicts(),
        "histogram": result.histogram.to_dicts(),
        "netsens_version": netsens.__version__,
    }
    row["point_id"] = point_id(row)
    return row


def loaded_frame(stored: list[dict[str, Any]], keep_baseline_rows: bool = False) -> pl.DataFrame:
    """What ``netsens.store.load`` returns for these stored points (see the module's
    text); ``keep_baseline_rows`` also keeps each baseline point as an axis
    "baseline" row with a null value (the spec allows either)."""
    group = ("workload", "size", "ranks", "seed")
    base = {tuple(r[k] for k in group): r for r in stored if r["axis"] == "baseline"}
    axes: dict[tuple[Any, ...], set[str]] = {}
    for r in stored:
        if r["axis"] not in ("baseline", "product"):
            axes.setdefault(tuple(r[k] for k in group[:3]), set()).add(r["axis"])
    out = []

    def add(r: dict[str, Any], axis: str) -> None:
        b = base[tuple(r[k] for k in group)]
        column, unit = PARAMS.get(axis, (None, None))
        value = r[column] if column and axis != "clusters" else None
        out.append(
            {
                **r,
                "axis": axis,
                "value": None if value is None else float(value),
                "value_unit": unit,
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
    return pl.DataFrame(
        out,
        schema_overrides={"primitives": PRIMITIVE_TYPE, "value": pl.Float64},
        infer_schema_length=None,
    )


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
                if row[PARAMS[axis][0]] != b[PARAMS[axis][0]]:
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
        r["point_id"] = point_id(r)
        return r

    stored = [row("baseline", {}, baseline_makespan_ps)]
    for axis, points in curves.items():
        column = PARAMS[axis][0]
        for value, makespan in points:
            stored.append(row(axis, {column: value}, makespan))
    return loaded_frame(stored, keep_baseline_rows)
