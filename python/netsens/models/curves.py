"""Measured curves and baselines out of a study's results frame (``netsens.study.store.load``).

A loaded frame has one row per (point, axis): the swept parameter's ``value`` in its
canonical unit (ps, ps/B, B, B/s, ratio; the number of clusters), the run's
``makespan_ps`` and counters, ``is_baseline`` on the baseline point's rows, the
``baseline_makespan_ps`` of the same (workload, size, ranks, seed) and the
``slowdown``. This module reduces it to what the models and fits need:

- :func:`curves`: per (workload, size, ranks, axis, value) the median over seeds of the
  makespan and of the slowdown; product-mode rows and rows without a value are left out
  (a curve is one parameter varied with the others at the baseline).
- :func:`baselines`: per (workload, size, ranks) the baseline point (the rows
  ``is_baseline`` marks): the median over seeds of its makespan and counters, and its
  resolved parameters.

Each parameter's stored column and the variable its fits use are in
:data:`netsens.parameters.PARAMETERS`.
"""

import math
from typing import Any

import polars as pl

from netsens.errors import InputError
from netsens.parameters import PARAMETERS

# A curve belongs to one (workload, size, ranks); seeds are folded by the median.
KEYS = ["workload", "size", "ranks"]
# Collective primitives whose latency depth is ceil(log2 P) one-way hops with the
# small-message algorithms of netsens's collectives (dissemination barrier; binomial
# bcast, reduce, gather, scatter; recursive-doubling allreduce and allgather; split is
# an allgather). Pairwise all-to-all takes P - 1 steps.
LOG_DEPTH_COLLECTIVES = (
    "barrier",
    "bcast",
    "reduce",
    "allreduce",
    "gather",
    "scatter",
    "allgather",
    "split",
)
LINEAR_DEPTH_COLLECTIVES = ("alltoall", "alltoallv")

# The columns of netsens.study.store.load that the models and fits read.
REQUIRED = [
    "workload",
    "workload_kind",
    "size",
    "ranks",
    "seed",
    "axis",
    "value",
    "value_unit",
    "is_baseline",
    "makespan_ps",
    "baseline_makespan_ps",
    "slowdown",
    "messages_max",
    "recv_messages_max",
    "bytes_max",
    "primitives",
    *(p.column for p in PARAMETERS.values()),
]


def check_frame(df: pl.DataFrame) -> None:
    """Raise :class:`InputError` (one line) when ``df`` lacks a column the models need."""
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise InputError(
            f"results frame: missing column(s) {', '.join(missing)} "
            "(expected the frame of netsens.study.store.load)"
        )


def curves(df: pl.DataFrame) -> pl.DataFrame:
    """Per (workload, size, ranks, axis, value): ``makespan_ps`` and ``slowdown`` (the
    median over seeds, f64), ``seeds`` (how many) and ``value_unit``. Sorted by key."""
    check_frame(df)
    return (
        df.filter(~pl.col("axis").is_in(["baseline", "product"]) & pl.col("value").is_not_null())
        .group_by([*KEYS, "axis", "value"])
        .agg(
            pl.col("makespan_ps").cast(pl.Float64).median().alias("makespan_ps"),
            pl.col("slowdown").cast(pl.Float64).median().alias("slowdown"),
            pl.col("seed").n_unique().alias("seeds"),
            pl.col("value_unit").first(),
        )
        .sort([*KEYS, "axis", "value"], nulls_last=True)
    )


def _primitive_max(row: dict[str, Any]) -> dict[str, int]:
    """The primitives column of one row as {primitive: max over ranks}."""
    out: dict[str, int] = {}
    for item in row["primitives"] or []:
        out[item["primitive"]] = int(item["max"] or 0)
    return out


def latency_hops(primitives: dict[str, int], ranks: int) -> int:
    """One-way latencies on the busiest rank's chain, from its primitive counts.

    A get (blocking read) and a put (write acknowledged by a reply) are each a round
    trip: 2 hops. A store_sync waits for the last store to land: 1 hop. A collective
    is as deep as its algorithm: ceil(log2 P) hops for the tree and doubling ones,
    P - 1 for pairwise all-to-all. Point-to-point sends are not counted: a program
    that only streams messages overlaps their latency (the seed's latency model is
    for reads and synchronisation).
    """
    depth = math.ceil(math.log2(ranks)) if ranks > 1 else 0
    hops = 2 * (primitives.get("get", 0) + primitives.get("put", 0))
    hops += primitives.get("store_sync", 0)
    hops += depth * sum(primitives.get(c, 0) for c in LOG_DEPTH_COLLECTIVES)
    hops += (ranks - 1) * sum(primitives.get(c, 0) for c in LINEAR_DEPTH_COLLECTIVES)
    return hops


def _baseline_of(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The baseline point's row among the rows of one (workload, size, ranks, seed)."""
    return next((r for r in rows if r["is_baseline"]), None)


def baselines(df: pl.DataFrame) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Per (workload, size, ranks): the baseline as a dict. A workload whose baseline
    point is not stored (not run yet, or its file found damaged) has no entry: the
    models and fits leave it out rather than compare against nothing.

    ``makespan_ps`` and the counters ``messages_max``, ``recv_messages_max``,
    ``bytes_max`` and ``hops`` (:func:`latency_hops`) are medians over seeds (floats);
    ``seeds`` counts them; ``params`` maps each parameter's column to the baseline's
    resolved value (the same for every seed); ``kind`` is the workload kind ("app" or
    "goal"); ``primitives`` is {primitive: median over seeds of the max over ranks}.
    """
    check_frame(df)
    per_seed: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in df.iter_rows(named=True):
        per_seed.setdefault((*(row[k] for k in KEYS), row["seed"]), []).append(row)
    chosen: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for key, rows in per_seed.items():
        if (baseline := _baseline_of(rows)) is not None:
            chosen.setdefault(key[:-1], []).append(baseline)
    out = {}
    for key, rows in chosen.items():
        first = rows[0]
        prims = [_primitive_max(r) for r in rows]
        names = sorted({p for d in prims for p in d})
        median_prims = {p: _median([d.get(p, 0) for d in prims]) for p in names}
        ranks = int(first["ranks"])
        out[key] = {
            "makespan_ps": _median([r["makespan_ps"] for r in rows]),
            "messages_max": _median([r["messages_max"] for r in rows]),
            "recv_messages_max": _median([r["recv_messages_max"] for r in rows]),
            "bytes_max": _median([r["bytes_max"] for r in rows]),
            "hops": _median([latency_hops(p, ranks) for p in prims]),
            "primitives": median_prims,
            "seeds": len(rows),
            "kind": first["workload_kind"],
            "params": {p.column: first[p.column] for p in PARAMETERS.values()},
        }
    return out


def _median(values: list[float]) -> float:
    ordered = sorted(float(v) for v in values)
    n = len(ordered)
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2
