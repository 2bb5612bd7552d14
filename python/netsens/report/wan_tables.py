"""The wide-area study's tables (Plaat, Bal and Hofman 1998) and the companion
studies they read: Table 1 (speedup on 8 and 32 ranks of one cluster, total traffic
and run time on 32) from ``das1998-reference``, Table 2 (speedup over one rank of the
optimized and the original variant at 1 MB/s and 3 ms, 4 x 8) from the sweep and the
reference, and the cluster structures (``-structures``, ``-star``, ``-ring``).

A companion study's results sit next to the sweep's: ``results/das1998-reference``
beside ``results/das1998`` (the study files say so), and the report finds them there.
"""

import html
from pathlib import Path
from typing import Any

import polars as pl

from netsens.study import store

COMPANIONS = ("reference", "structures", "star", "ring")
# The seed's Table 1 (one cluster: speedup on 32 and 8, traffic on 32 in MB/s, run
# time on 32 in s) and Table 2 (speedup over one rank at 1 MB/s and 3 ms: optimized,
# original), shown beside netsens's.
SEED_TABLE1 = {
    "water": (31.2, 7.8, 3.8, 9.1),
    "bh": (27.2, 7.1, 17.8, 1.8),
    "tsp": (31.1, 7.9, 0.48, 5.9),
    "asp": (31.3, 7.8, 0.75, 6.0),
    "awari": (7.8, 4.6, 4.1, 2.3),
    "fft1d": (26.7, 5.3, 128.0, 0.3),
}
# How Table 1's columns print (speedups, traffic, run time).
FORMATS1 = (".1f", ".1f", ".2f", ".3f")
SEED_TABLE2 = {
    "water": (27.2, 0.2),
    "bh": (19.3, 0.12),
    "tsp": (20.0, 5.95),
    "asp": (24.0, 6.37),
    "awari": (1.57, 0.94),
    "fft1d": (None, 1.16),
}
# Table 2's point: the seed's 1 MB/s and 3 ms.
TABLE2_BANDWIDTH_BPS = 1e6
TABLE2_LATENCY_PS = 3 * 10**9


def companions(results_dir: Path | None) -> dict[str, pl.DataFrame]:
    """The stored points of each companion study found next to ``results_dir``."""
    if results_dir is None:
        return {}
    found = {}
    for suffix in COMPANIONS:
        sibling = results_dir.with_name(f"{results_dir.name}-{suffix}")
        if (sibling / store.POINTS).is_dir():
            frame = store.load(sibling)
            if not frame.is_empty():
                found[suffix] = frame.unique("point_id", keep="first")
    return found


def _times(reference: pl.DataFrame, ranks: int) -> dict[str, tuple[int, int]]:
    """(makespan_ps, bytes) per workload of the one-cluster runs on ``ranks`` ranks
    (the first seed's, for a deterministic table)."""
    rows = reference.filter(pl.col("ranks") == ranks).sort("seed")
    return {r["workload"]: (r["makespan_ps"], r["bytes"]) for r in rows.iter_rows(named=True)}


def table1(reference: pl.DataFrame) -> list[dict[str, Any]]:
    """Per workload: speedup T_1/T_8 and T_1/T_32 on one cluster, the total traffic on
    32 ranks (all bytes sent over the run time, MB/s) and that run time (s)."""
    one, eight, full = _times(reference, 1), _times(reference, 8), _times(reference, 32)
    out = []
    for workload in sorted(one.keys() & full.keys()):
        t1 = one[workload][0]
        t32, sent = full[workload]
        out.append(
            {
                "workload": workload,
                "speedup_32": t1 / t32,
                "speedup_8": t1 / eight[workload][0] if workload in eight else None,
                "traffic_MBps": sent / (t32 * 1e-12) / 1e6,
                "runtime_s": t32 * 1e-12,
            }
        )
    return out


def table2(grid: pl.DataFrame, reference: pl.DataFrame) -> list[dict[str, Any]]:
    """Per application: speedup T_1/T_M over one rank of each variant at 1 MB/s and
    3 ms (``None`` for a variant it has not)."""
    one = _times(reference, 1)
    near = (pl.col("wan_bandwidth_Bps") / TABLE2_BANDWIDTH_BPS - 1).abs() < 1e-6
    at = grid.filter(near & (pl.col("wan_latency_ps") == TABLE2_LATENCY_PS)).sort("seed")
    speedup: dict[tuple[str, str], float] = {}
    for r in at.iter_rows(named=True):
        app, _, variant = r["workload"].partition(":")
        if r["workload"] in one and (app, variant) not in speedup:
            speedup[(app, variant or "original")] = one[r["workload"]][0] / r["makespan_ps"]
    apps = sorted({app for app, _ in speedup})
    return [
        {
            "app": app,
            "optimized": speedup.get((app, "optimized")),
            "original": speedup.get((app, "original")),
        }
        for app in apps
    ]


def structures(df: pl.DataFrame, found: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Relative speedup T_L/T_M of each workload on each cluster structure (8x4, 4x8
    and 2x16 on a full wide area, 4x8 on a star and a ring), T_L the sweep's
    one-cluster baseline of the same workload, ranks, size and seed."""
    base = df.filter(pl.col("is_baseline")).unique("point_id")
    base = base.select([*store.MATCH, pl.col("makespan_ps").alias("t_l")])
    parts = []
    for suffix, shape in (("structures", "full"), ("star", "star"), ("ring", "ring")):
        frame = found.get(suffix)
        if frame is not None:
            parts.append(
                frame.select([*store.MATCH, "clusters", "makespan_ps"]).with_columns(
                    structure=pl.col("clusters") + f" {shape}"
                )
            )
    if not parts or base.is_empty():
        return pl.DataFrame()
    joined = pl.concat(parts).join(base, on=store.MATCH)
    return (
        joined.with_columns(speedup=pl.col("t_l") / pl.col("makespan_ps"))
        .group_by(["workload", "structure"])
        .agg(pl.col("speedup").mean())
        .sort(["workload", "structure"])
    )


def _num(v: float | None, fmt: str) -> str:
    return "—" if v is None else format(v, fmt)


def _table(head: list[str], rows: list[list[str]]) -> str:
    h = "".join(f"<th>{html.escape(x)}</th>" for x in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f'<table class="data"><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>'


def tables_html(grid: pl.DataFrame, found: dict[str, pl.DataFrame], study: str) -> str:
    """Tables 1 and 2, or a line naming the companion study they need."""
    reference = found.get("reference")
    if reference is None:
        return (
            f"<p>Tables 1 and 2 need the one-cluster references: sweep "
            f"studies/{html.escape(study)}-reference.toml (results next to this study's).</p>"
        )
    rows1 = []
    for r in table1(reference):
        seed = SEED_TABLE1.get(r["workload"].partition(":")[0], (None,) * 4)
        ours = (r["speedup_32"], r["speedup_8"], r["traffic_MBps"], r["runtime_s"])
        cells = [
            f"{_num(a, f)} ({_num(b, f)})" for a, b, f in zip(ours, seed, FORMATS1, strict=True)
        ]
        rows1.append([r["workload"], *cells])
    head1 = ["workload", "speedup 32 (ratio)", "speedup 8 (ratio)", "traffic 32 (MB/s)"]
    parts = [
        "<h3>Table 1: one cluster (the seed's in parentheses)</h3>",
        _table([*head1, "run time 32 (s)"], rows1),
    ]
    rows2 = []
    for r in table2(grid, reference):
        seed_opt, seed_orig = SEED_TABLE2.get(r["app"], (None, None))
        rows2.append(
            [
                r["app"],
                f"{_num(r['optimized'], '.2f')} ({_num(seed_opt, '.2f')})",
                f"{_num(r['original'], '.2f')} ({_num(seed_orig, '.2f')})",
            ]
        )
    parts.append(
        "<h3>Table 2: speedup over one rank at 1 MB/s, 3 ms (the seed's in parentheses)</h3>"
    )
    parts.append(_table(["app", "optimized (ratio)", "original (ratio)"], rows2))
    return "".join(parts)
