"""The jobs section of a report, for a study whose workloads ran beside other jobs on
one network (``beside``, docs/guides/topology.md): each workload's makespan beside
them against alone on the same hosts, at each point of the study, as a table.
"""

import html

import polars as pl

from netsens.report.links import _label
from netsens.units_format import format_time


def interference(df: pl.DataFrame) -> pl.DataFrame:
    """(workload, point label, makespan, alone, interference) of every stored point
    that ran beside other jobs; empty when none did."""
    if df.is_empty() or "alone_makespan_ps" not in df.columns:
        return pl.DataFrame()
    points = df.filter(pl.col("alone_makespan_ps").is_not_null()).unique("point_id", keep="first")
    if points.is_empty():
        return pl.DataFrame()
    return points.select(
        "workload",
        pl.col("overrides").map_elements(_label, return_dtype=pl.String).alias("label"),
        pl.col("jobs")
        .list.eval(pl.element().struct.field("workload"))
        .list.slice(1)
        .list.join(", ")
        .alias("beside"),
        "makespan_ps",
        "alone_makespan_ps",
        (pl.col("makespan_ps") / pl.col("alone_makespan_ps")).alias("interference"),
    ).sort("workload", "label")


def section_html(df: pl.DataFrame) -> str:
    """The jobs section, or "" when no point ran beside other jobs."""
    rows = interference(df)
    if rows.is_empty():
        return ""
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(v))}</td>"
            for v in (
                r["workload"],
                r["label"],
                r["beside"],
                format_time(r["makespan_ps"]),
                format_time(r["alone_makespan_ps"]),
                f"{r['interference']:.3f}x",
            )
        )
        + "</tr>"
        for r in rows.iter_rows(named=True)
    )
    return (
        "<section><h2>Jobs on one network</h2><p>Each workload's makespan beside the "
        "study's other jobs against alone on the same hosts (docs/guides/topology.md).</p>"
        "<table><tr><th>workload</th><th>point</th><th>beside</th><th>makespan</th>"
        f"<th>alone</th><th>interference</th></tr>{body}</table></section>"
    )
