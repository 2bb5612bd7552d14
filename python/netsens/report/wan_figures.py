"""Figures of the wide-area section beyond relative speedup: the seed's Figure 3
left (wide-area traffic per cluster, MB/s against messages/s, at 3 MB/s and 0.3 ms)
from the links' traffic each point stores, and the cluster structures (relative
speedup on 8x4, 4x8, 2x16 full, 4x8 star and ring). PNG and PDF each."""

from pathlib import Path

import polars as pl

from netsens.report.wan import _save

# The seed's Figure 3 left: 3 MB/s a link, 0.3 ms one way.
TRAFFIC_BANDWIDTH_BPS = 3e6
TRAFFIC_LATENCY_PS = 3 * 10**8


def traffic_per_cluster(grid: pl.DataFrame) -> pl.DataFrame:
    """Per point of ``grid`` with stored links: wide-area MB/s and messages/s per
    cluster (everything its links carried over the run time, over the clusters)."""
    if "wan_links" not in grid.columns:
        return pl.DataFrame()
    rows = []
    for r in grid.filter(pl.col("wan_links").is_not_null()).iter_rows(named=True):
        links = r["wan_links"]
        if not links:
            continue
        clusters = 1 + max(max(x["from_cluster"], x["to_cluster"]) for x in links)
        seconds = r["makespan_ps"] * 1e-12
        rows.append(
            {
                "workload": r["workload"],
                "wan_bandwidth_Bps": r["wan_bandwidth_Bps"],
                "wan_latency_ps": r["wan_latency_ps"],
                "MBps": sum(x["bytes"] for x in links) / clusters / seconds / 1e6,
                "messages_per_s": sum(x["messages"] for x in links) / clusters / seconds,
            }
        )
    return pl.DataFrame(rows)


def traffic_figure(grid: pl.DataFrame, directory: Path) -> list[Path]:
    """Figure 3 left: per workload, wide-area MB/s against messages/s per cluster at
    3 MB/s and 0.3 ms."""
    traffic = traffic_per_cluster(grid)
    if traffic.is_empty():
        return []
    near = (pl.col("wan_bandwidth_Bps") / TRAFFIC_BANDWIDTH_BPS - 1).abs() < 1e-6
    at = traffic.filter(near & (pl.col("wan_latency_ps") == TRAFFIC_LATENCY_PS))
    if at.is_empty():
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means = at.group_by("workload").agg(pl.col("MBps", "messages_per_s").mean()).sort("workload")
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for r in means.iter_rows(named=True):
        ax.plot(r["messages_per_s"], r["MBps"], "o")
        ax.annotate(r["workload"], (r["messages_per_s"], r["MBps"]), fontsize=6)
    # Log axes: the programs' traffic spans four orders of magnitude.
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("wide-area messages per cluster (messages/s)", fontsize=8)
    ax.set_ylabel("wide-area traffic per cluster (MB/s)", fontsize=8)
    ax.set_title("wide-area traffic at 3 MB/s, 0.3 ms", fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return _save(fig, directory, "wan-traffic")


def _structure_order(kind: str) -> tuple[int, int]:
    clusters, _, shape = kind.partition(" ")
    return (["full", "star", "ring"].index(shape), -int(clusters.split("x")[0]))


def structures_figure(speedups: pl.DataFrame, directory: Path) -> list[Path]:
    """Relative speedup of each workload on each cluster structure, grouped bars."""
    if speedups.is_empty():
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = sorted(speedups["workload"].unique().to_list())
    # More, smaller clusters first, then the shared-link shapes.
    kinds = sorted(speedups["structure"].unique().to_list(), key=_structure_order)
    value = {(r["workload"], r["structure"]): r["speedup"] for r in speedups.iter_rows(named=True)}
    width = 0.8 / len(kinds)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(workloads)), 3.8))
    for i, kind in enumerate(kinds):
        xs = [k + i * width for k in range(len(workloads))]
        ax.bar(xs, [value.get((w, kind), 0.0) for w in workloads], width, label=kind)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(workloads))], workloads)
    ax.tick_params(axis="x", labelsize=6, rotation=45)
    ax.set_ylabel("relative speedup T_L/T_M (ratio)", fontsize=8)
    ax.set_title("cluster structures at 1 MB/s, 3 ms (32 ranks)", fontsize=9)
    ax.legend(fontsize=6)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    return _save(fig, directory, "wan-structures")
