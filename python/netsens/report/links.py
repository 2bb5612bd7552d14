"""The links section of a report, for a study on a platform with a ``[topology]``
(docs/guides/topology.md): where the network was the bottleneck. Per workload, the
busiest link of each class (fat-tree level, dragonfly host/local/global links, ...)
as a share of the run, at each point of the study; one figure, PNG and PDF.
"""

import html
import json
from pathlib import Path

import polars as pl

from netsens.report.wan import _save


def link_loads(df: pl.DataFrame) -> pl.DataFrame:
    """(workload, point label, class, busiest link's utilization) of every stored
    point that ran on a topology; empty when none did."""
    if df.is_empty() or "link_classes" not in df.columns:
        return pl.DataFrame()
    points = df.filter(pl.col("link_classes").list.len() > 0).unique("point_id", keep="first")
    if points.is_empty():
        return pl.DataFrame()
    labelled = points.with_columns(
        label=pl.col("overrides").map_elements(_label, return_dtype=pl.String)
    )
    return (
        labelled.select("workload", "label", "link_classes")
        .explode("link_classes")
        .unnest("link_classes")
        .filter(pl.col("flows") > 0)
        .group_by("workload", "label", "class")
        .agg(pl.col("max_utilization").mean())
        .sort("workload", "label", "class")
    )


def _label(overrides: str) -> str:
    over = json.loads(overrides or "{}")
    return ", ".join(f"{k.removeprefix('topology.')}={v}" for k, v in over.items()) or "baseline"


def load_figure(loads: pl.DataFrame, directory: Path) -> list[Path]:
    """Busiest link per class (% of the run) at each point, a panel per workload."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = loads["workload"].unique(maintain_order=True).to_list()
    classes = loads["class"].unique(maintain_order=True).to_list()
    cols = min(3, len(workloads))
    rows = -(-len(workloads) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
    for ax, workload in zip(axes.flat, workloads, strict=False):
        mine = loads.filter(pl.col("workload") == workload)
        labels = mine["label"].unique(maintain_order=True).to_list()
        width = 0.8 / max(len(classes), 1)
        for k, cls in enumerate(classes):
            values = [
                100
                * sum(
                    mine.filter((pl.col("label") == lab) & (pl.col("class") == cls))[
                        "max_utilization"
                    ].to_list()
                )
                for lab in labels
            ]
            ax.bar([i + k * width for i in range(len(labels))], values, width, label=cls)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))])
        ax.set_xticklabels(labels, fontsize=6, rotation=20)
        ax.set_ylabel("busiest link (% of run time)", fontsize=7)
        ax.set_title(workload, fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    for ax in list(axes.flat)[len(workloads) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=6)
    fig.tight_layout()
    return _save(fig, directory, "link-load")


def section_html(df: pl.DataFrame, figure_dir: Path) -> str:
    """The links section (its figure written to ``figure_dir``), or "" when no point
    ran on a topology."""
    loads = link_loads(df)
    if loads.is_empty():
        return ""
    name = load_figure(loads, figure_dir)[0].stem
    return (
        "<section><h2>Links</h2><p>The busiest link of each class of the topology's "
        "links, as a share of the run (docs/guides/topology.md).</p>"
        f'<figure><img src="figures/{name}.png" width="900"><figcaption>'
        f'{html.escape(name)} <a href="figures/{name}.pdf">PDF</a> · '
        f'<a href="figures/{name}.png">PNG</a></figcaption></figure></section>'
    )
