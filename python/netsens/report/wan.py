"""The wide-area section of a report (Plaat, Bal and Hofman 1998): for a study whose
points sweep ``wan_bandwidth`` x ``wan_latency`` against a single-cluster baseline
(studies/das1998.toml), the relative speedup T_L / T_M of every workload (T_L: the
baseline on one cluster, T_M: the same ranks over the wide area; the store's
``slowdown`` is T_M / T_L), as the seed's Figure 2 (against bandwidth, a line per
latency, a panel per workload), Figure 1 (the geometric mean of water, bh, tsp and
asp as a bandwidth x latency map) and Figure 3's middle and right (the share of run
time spent on wide-area communication), and the "gap" table of ``netsens explain``;
Figure 3 left, the cluster structures (``figures_wan``) and Tables 1 and 2
(``tables_wan``). Every figure is written as PNG and PDF.
"""

import html
import math
from pathlib import Path
from typing import Any

import polars as pl

# The seed's Figure 1 averages these (optimized variants, where a run has them).
MAP_APPS = ("water", "bh", "tsp", "asp")
THRESHOLDS = (0.6, 0.4)
# The seed's gap figures read bandwidth at 3 ms and latency at 3 MB/s.
AT_LATENCY_PS = 3 * 10**9
AT_BANDWIDTH_BPS = 3e6


def wide_area_points(df: pl.DataFrame) -> pl.DataFrame:
    """The points of a bandwidth x latency sweep with their relative speedup; empty
    when the study has none."""
    needed = {"wan_bandwidth_Bps", "wan_latency_ps", "slowdown", "axis"}
    if df.is_empty() or not needed <= set(df.columns):
        return df.clear()
    grid = df.filter(
        (pl.col("axis") == "product")
        & pl.col("wan_bandwidth_Bps").is_not_null()
        & pl.col("slowdown").is_not_null()
    )
    return grid.with_columns(speedup=1.0 / pl.col("slowdown"))


def _mean_over_seeds(grid: pl.DataFrame) -> pl.DataFrame:
    keys = ["workload", "wan_bandwidth_Bps", "wan_latency_ps"]
    return grid.group_by(keys).agg(pl.col("speedup").mean()).sort(keys)


def _latency_label(ps: float) -> str:
    ms = ps / 1e9
    return f"{ms:g} ms"


def speedup_figure(grid: pl.DataFrame, directory: Path) -> list[Path]:
    """Figure 2: relative speedup against wide-area bandwidth, a line per latency, a
    panel per workload. Returns the PNG and PDF paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means = _mean_over_seeds(grid)
    workloads = sorted(means["workload"].unique().to_list())
    cols = min(4, len(workloads))
    rows = math.ceil(len(workloads) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), squeeze=False)
    latencies = sorted(means["wan_latency_ps"].unique().to_list())
    cmap = plt.get_cmap("viridis", max(len(latencies), 2))
    for k, workload in enumerate(workloads):
        ax = axes[k // cols][k % cols]
        for i, lat in enumerate(latencies):
            line = means.filter(
                (pl.col("workload") == workload) & (pl.col("wan_latency_ps") == lat)
            )
            mbps = [b / 1e6 for b in line["wan_bandwidth_Bps"].to_list()]
            ax.plot(
                mbps,
                line["speedup"].to_list(),
                "o-",
                ms=3,
                color=cmap(i),
                label=_latency_label(lat),
            )
        ax.set_xscale("log")
        # Above 1 the wide-area run beats one cluster (asp's two-level forwarding).
        top = means.filter(pl.col("workload") == workload)["speedup"].max()
        ax.set_ylim(0, max(1.05, 1.05 * float(top or 0)))
        ax.set_title(workload, fontsize=9)
        ax.set_xlabel("wide-area bandwidth (MB/s)", fontsize=8)
        ax.set_ylabel("relative speedup T_L/T_M (ratio)", fontsize=8)
        ax.grid(alpha=0.3)
    for k in range(len(workloads), rows * cols):
        axes[k // cols][k % cols].axis("off")
    axes[0][0].legend(title="one-way latency", fontsize=6, title_fontsize=7)
    fig.tight_layout()
    return _save(fig, directory, "wan-speedup-bandwidth")


def map_figure(grid: pl.DataFrame, directory: Path) -> list[Path]:
    """Figure 1: the geometric mean relative speedup of water, bh, tsp and asp (their
    optimized variants where present) over bandwidth x latency."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means = _mean_over_seeds(grid).with_columns(
        app=pl.col("workload").str.split(":").list.first(),
        variant=pl.col("workload").str.split(":").list.get(1, null_on_oob=True),
    )
    chosen = means.filter(
        pl.col("app").is_in(MAP_APPS)
        & (pl.col("variant").is_null() | (pl.col("variant") == "optimized"))
    )
    if chosen.is_empty():
        return []
    geo = (
        chosen.group_by(["wan_bandwidth_Bps", "wan_latency_ps"])
        .agg(pl.col("speedup").log().mean().exp().alias("geomean"))
        .sort(["wan_bandwidth_Bps", "wan_latency_ps"])
    )
    bws = sorted(geo["wan_bandwidth_Bps"].unique().to_list(), reverse=True)
    lats = sorted(geo["wan_latency_ps"].unique().to_list())
    value = {
        (r["wan_bandwidth_Bps"], r["wan_latency_ps"]): r["geomean"]
        for r in geo.iter_rows(named=True)
    }
    z = [[value.get((b, lat), float("nan")) for lat in lats] for b in bws]
    fig, ax = plt.subplots(figsize=(6, 4))
    image = ax.imshow(z, vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
    for i, row in enumerate(z):
        for j, v in enumerate(row):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6)
    ax.set_xticks(range(len(lats)), [_latency_label(x) for x in lats], fontsize=7, rotation=45)
    ax.set_yticks(range(len(bws)), [f"{b / 1e6:g}" for b in bws], fontsize=7)
    ax.set_xlabel("one-way wide-area latency (ms)")
    ax.set_ylabel("wide-area bandwidth (MB/s)")
    apps = ", ".join(sorted(chosen["app"].unique().to_list()))
    ax.set_title(f"geometric mean relative speedup (ratio) of {apps}", fontsize=9)
    fig.colorbar(image, ax=ax, label="T_L/T_M (ratio)")
    fig.tight_layout()
    return _save(fig, directory, "wan-speedup-map")


def wide_area_share_figure(grid: pl.DataFrame, directory: Path) -> list[Path]:
    """Figure 3 (middle and right): the share of run time spent on wide-area
    communication, (T_M - T_L) / T_M = 1 - speedup, against bandwidth at 3 ms and
    against latency at 3 MB/s, a line per workload."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means = _mean_over_seeds(grid).with_columns(share=1.0 - pl.col("speedup"))
    near = (pl.col("wan_bandwidth_Bps") / AT_BANDWIDTH_BPS - 1).abs() < 1e-6
    at_lat = means.filter(pl.col("wan_latency_ps") == AT_LATENCY_PS)
    at_bw = means.filter(near)
    if at_lat.is_empty() and at_bw.is_empty():
        return []
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    for workload in sorted(means["workload"].unique().to_list()):
        a = at_lat.filter(pl.col("workload") == workload)
        left.plot([b / 1e6 for b in a["wan_bandwidth_Bps"]], a["share"], "o-", ms=3, label=workload)
        b = at_bw.filter(pl.col("workload") == workload)
        right.plot([x / 1e9 for x in b["wan_latency_ps"]], b["share"], "o-", ms=3, label=workload)
    for ax, xlabel, title in (
        (left, "wide-area bandwidth (MB/s)", "at 3 ms"),
        (right, "one-way wide-area latency (ms)", "at 3 MB/s"),
    ):
        ax.set_xscale("log")
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel("wide-area share of run time (T_M-T_L)/T_M (ratio)", fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    right.legend(fontsize=6)
    fig.tight_layout()
    return _save(fig, directory, "wan-share")


def _save(fig: Any, directory: Path, name: str) -> list[Path]:
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"{name}.png", directory / f"{name}.pdf"]
    fig.savefig(paths[0], dpi=200)
    fig.savefig(paths[1])
    plt.close(fig)
    return paths


def _first_below(points: list[tuple[float, float]], threshold: float) -> float | None:
    """The first x (in the given order) whose speedup is below ``threshold``, after
    one at or above it: ``None`` when it never falls below, or is below from the start
    (see ``_throughout``)."""
    if not points or points[0][1] < threshold:
        return None
    return next((x for x, s in points if s < threshold), None)


def _throughout(points: list[tuple[float, float]], threshold: float) -> bool:
    return bool(points) and points[0][1] < threshold


def gaps(df: pl.DataFrame) -> list[dict[str, Any]]:
    """Per workload, the seed's gap figures: the wide-area bandwidth (at 3 ms) and the
    one-way latency (at 3 MB/s) at which relative speedup first falls below 60 % and
    40 %, and the gap they mean: local bandwidth over that bandwidth, that latency over
    the local one-way latency L + 2o. ``None`` where the sweep never falls that low or
    is that low from its first point (``<kind>_<pct>_throughout``)."""
    grid = wide_area_points(df)
    if grid.is_empty():
        return []
    means = _mean_over_seeds(grid)
    base = df.row(0, named=True)
    local_bw = 1e12 / base["G_ps_per_B"] if base.get("G_ps_per_B") else None
    local_lat = base["L_ps"] + 2 * base["o_ps"]
    out = []
    for workload in sorted(means["workload"].unique().to_list()):
        mine = means.filter(pl.col("workload") == workload)
        at_lat = mine.filter(pl.col("wan_latency_ps") == AT_LATENCY_PS)
        # Stored bandwidths come back from ps per byte: compare to a part in a million.
        near = (pl.col("wan_bandwidth_Bps") / AT_BANDWIDTH_BPS - 1).abs() < 1e-6
        at_bw = mine.filter(near)
        by_bw = sorted(
            zip(at_lat["wan_bandwidth_Bps"], at_lat["speedup"], strict=True), reverse=True
        )
        by_lat = sorted(zip(at_bw["wan_latency_ps"], at_bw["speedup"], strict=True))
        row: dict[str, Any] = {"workload": workload}
        for t in THRESHOLDS:
            bw = _first_below(by_bw, t)
            lat = _first_below(by_lat, t)
            pct = round(100 * t)
            row[f"bandwidth_{pct}_throughout"] = _throughout(by_bw, t)
            row[f"latency_{pct}_throughout"] = _throughout(by_lat, t)
            row[f"bandwidth_{pct}_Bps"] = bw
            row[f"bandwidth_gap_{pct}"] = local_bw / bw if bw and local_bw else None
            row[f"latency_{pct}_ps"] = lat
            row[f"latency_gap_{pct}"] = lat / local_lat if lat else None
        out.append(row)
    return out


def section_html(df: pl.DataFrame, figure_dir: Path, results_dir: Path | None = None) -> str:
    """The wide-area section (figures written to ``figure_dir``), or "" when the study
    sweeps no wide area. Tables 1 and 2 and the cluster structures come from the
    companion studies stored next to ``results_dir`` (``tables_wan``)."""
    from netsens.report import wan_figures as figures_wan
    from netsens.report import wan_tables as tables_wan

    grid = wide_area_points(df)
    if grid.is_empty():
        return ""
    found = tables_wan.companions(results_dir)
    made = [speedup_figure(grid, figure_dir), map_figure(grid, figure_dir)]
    made.append(wide_area_share_figure(grid, figure_dir))
    made.append(figures_wan.traffic_figure(grid, figure_dir))
    made.append(figures_wan.structures_figure(tables_wan.structures(df, found), figure_dir))
    names = [paths[0].stem for paths in made if paths]
    parts = ["<section><h2>Wide area</h2>"]
    for name in names:
        parts.append(
            f'<figure><img src="figures/{name}.png" width="900">'
            f'<figcaption>{html.escape(name)} <a href="figures/{name}.pdf">PDF</a> · '
            f'<a href="figures/{name}.png">PNG</a></figcaption></figure>'
        )
    rows = gaps(df)
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "workload",
            "bandwidth < 60 % (MB/s)",
            "gap (ratio)",
            "bandwidth < 40 % (MB/s)",
            "gap (ratio)",
            "latency < 60 % (ms)",
            "gap (ratio)",
            "latency < 40 % (ms)",
            "gap (ratio)",
        )
    )
    body = ""
    for r in rows:
        cells = [r["workload"]]
        for kind, scale in (("bandwidth", 1e6), ("latency", 1e9)):
            for pct in (60, 40):
                unit_key = f"{kind}_{pct}_Bps" if kind == "bandwidth" else f"{kind}_{pct}_ps"
                v, gap = r[unit_key], r[f"{kind}_gap_{pct}"]
                low = "below throughout" if r[f"{kind}_{pct}_throughout"] else "none"
                cells += [
                    low if v is None else f"{v / scale:g}",
                    "none" if gap is None else f"{gap:.0f}",
                ]
        body += "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>"
    parts.append(f'<table class="data"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')
    study = str(df["study"][0]) if "study" in df.columns and not df.is_empty() else "das1998"
    parts.append(tables_wan.tables_html(grid, found, study))
    parts.append("</section>")
    return "".join(parts)


def report_section(df: pl.DataFrame, out: Path) -> str:
    """The wide-area section of a report written to ``out`` (its figures in
    ``out/figures``, next to the others), or "" when the study sweeps no wide area. A
    report in ``<results>/report/`` finds the companion studies next to ``<results>``."""
    results = out.parent
    stored = (results / "study.json").is_file()
    return section_html(df, out / "figures", results if stored else None)
