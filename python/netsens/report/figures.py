"""The report's figures: first as data, then drawn twice.

A study's results (the frame of :func:`netsens.study.store.load`) become figure
descriptions — :class:`LineFigure` (slowdown against a parameter, Martin's Figures
3.x, and model against measurement), :class:`HeatmapFigure` (a communication
balance matrix, Figure 3.1) and :class:`HistogramFigure` (message sizes in
power-of-two bins, Figures 4.1/4.2) — which :mod:`netsens.report.draw` draws for
the HTML report (plotly) and as PNG and PDF for papers (matplotlib). Every axis
names its unit; parameters are shown in the unit that suits their range (the frame
keeps them in canonical units: ps, ps/B, B, B/s).
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from netsens.parameters import PARAMETERS

# --- parameters and units --------------------------------------------------------


# Display units of each canonical unit: (name, canonical units per display unit).
SCALES: dict[str, list[tuple[str, float]]] = {
    "ps": [("ps", 1), ("ns", 1e3), ("µs", 1e6), ("ms", 1e9), ("s", 1e12)],
    "ps/B": [("ps/B", 1), ("ns/B", 1e3), ("µs/B", 1e6)],
    "B": [("B", 1), ("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30)],
    "B/s": [("B/s", 1), ("kB/s", 1e3), ("MB/s", 1e6), ("GB/s", 1e9)],
    "ratio": [("×", 1)],
}


def display_unit(unit: str, values: Sequence[float | None]) -> tuple[str, float]:
    """The display unit for canonical ``values``: the largest that keeps the largest
    magnitude at or above 1 (µs for 2.9-103 µs given in ps). Returns (name, divisor)."""
    scales = SCALES.get(unit)
    if not scales:
        return unit, 1.0
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    top = max(finite, default=0.0)
    chosen = scales[0]
    for scale in scales:
        if top >= scale[1]:
            chosen = scale
    return chosen[0], float(chosen[1])


def number(value: float | None, digits: int = 4) -> str:
    """A number for people: ``digits`` significant digits, no exponent in the usual
    range, thousands separators on large values; ``—`` for a missing one."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude >= digits - 1:
        return f"{value:,.0f}"
    if magnitude < -4:
        return f"{value:.{digits - 1}e}"
    text = f"{value:,.{max(digits - 1 - magnitude, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def quantity(value: float | None, unit: str) -> str:
    """A canonical value with its unit, in the unit that suits it: ``2.9 µs``."""
    if value is None:
        return "—"
    if unit == "ratio":
        return f"{number(value)}×"
    name, divisor = display_unit(unit, [value])
    return f"{number(value / divisor)} {name}".rstrip()


def axis_title(label: str, unit: str) -> str:
    """``overhead o (µs)``: a quantity's name with its display unit."""
    return f"{label} ({unit})" if unit else label


def byte_label(count: int) -> str:
    """A power-of-two byte count, short: 512, 1 Ki, 64 Ki, 2 Mi."""
    for suffix, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if count >= size and count % size == 0:
            return f"{count // size} {suffix}"
    return str(count)


# --- figure descriptions ---------------------------------------------------------


@dataclass
class Series:
    """One line of a line figure; ``y_lo``/``y_hi`` are the spread over seeds."""

    label: str
    x: list[Any]
    y: list[float]
    colour: str
    marker: str = "o"
    dashed: bool = False
    y_lo: list[float] | None = None
    y_hi: list[float] | None = None
    group: str | None = None
    show_markers: bool = True


@dataclass
class LineFigure:
    name: str  # file stem and HTML id, e.g. "slowdown_o"
    title: str
    x_title: str
    y_title: str
    series: list[Series]
    caption: str = ""
    x_log: bool = False
    categorical: bool = False
    # Unordered categories (placements): grouped bars, since a line between them means nothing.
    bars: bool = False
    kind: str = "line"


@dataclass
class HeatmapFigure:
    """A communication balance matrix: ``messages[s, d]`` and ``bytes[s, d]`` sent
    from rank s to rank d."""

    name: str
    title: str
    messages: np.ndarray
    bytes: np.ndarray
    caption: str = ""
    kind: str = "heatmap"


@dataclass
class HistogramFigure:
    """Message sizes: one bar per power-of-two bin [lo, hi] bytes."""

    name: str
    title: str
    lo: list[int]
    hi: list[int]
    messages: list[int]
    bytes: list[int]
    colour: str
    caption: str = ""
    kind: str = "histogram"


Figure = LineFigure | HeatmapFigure | HistogramFigure

# Colour-blind-friendly and distinct in grey scale thanks to the markers (Tableau 10,
# then its light variants for suites of more than ten workloads).
PALETTE = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
    "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
]  # fmt: skip
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p"]


def file_stem(text: str) -> str:
    """A string safe as a file name and an HTML id."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


# --- from the results frame to figures -------------------------------------------

SERIES_KEYS = ["workload", "size", "ranks"]


def _series_key() -> pl.Expr:
    return pl.concat_str(
        [pl.col("workload"), pl.col("size").fill_null(""), pl.col("ranks").cast(pl.String)],
        separator="\x1f",
    )


def with_series(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with a ``series`` column naming its (workload, size, ranks): the
    workload's name, plus the size and ranks where the study has several."""
    combos = df.select(SERIES_KEYS + ["workload_kind"]).unique(subset=SERIES_KEYS)
    combos = combos.sort(SERIES_KEYS, nulls_last=True).with_columns(_key=_series_key())
    many_sizes = combos["size"].drop_nulls().n_unique() > 1
    many_ranks = combos["ranks"].n_unique() > 1
    labels = {}
    for row in combos.iter_rows(named=True):
        name = row["workload"]
        if row["workload_kind"] == "goal":
            name = Path(name).name
        extra = []
        if many_sizes and row["size"] is not None:
            extra.append(str(row["size"]))
        if many_ranks:
            extra.append(f"{row['ranks']} ranks")
        labels[row["_key"]] = f"{name} ({', '.join(extra)})" if extra else name
    return df.with_columns(series=_series_key().replace_strict(labels, return_dtype=pl.String))


def baseline_rows(df: pl.DataFrame) -> pl.DataFrame:
    """The baseline point of each (series, seed): one row each (``is_baseline``)."""
    keys = ["series", "seed"]
    return (
        df.filter(pl.col("is_baseline"))
        .unique(subset=keys, keep="first", maintain_order=True)
        .sort(keys)
    )


# The seed's figures come in this order; the other parameters follow as PARAMETERS lists them.
FIGURE_ORDER = ["o", "g", "L", *(name for name in PARAMETERS if name not in ("o", "g", "L"))]


def axes_of(df: pl.DataFrame) -> list[str]:
    """The swept parameters, in the order of the seed's figures (o, g, L, G, ...)."""
    names = {a for a in df["axis"].unique().to_list() if a not in ("baseline", "product")}
    if "product" in df["axis"].to_list():
        names |= set(_product_parameters(df))
    return [name for name in FIGURE_ORDER if name in names]


def _product_parameters(df: pl.DataFrame) -> list[str]:
    rows = df.filter(pl.col("axis") == "product")
    return [name for name, p in PARAMETERS.items() if rows[p.column].n_unique() > 1]


def curve_points(df: pl.DataFrame, axis: str) -> pl.DataFrame:
    """Every run on the curve of ``axis``: columns series, seed, x (the parameter's
    canonical value), makespan_ps, slowdown. The baseline point is on every curve.

    In a product study, the curve of a parameter is the slice where every other swept
    parameter is at its baseline value (or its smallest value when the grid does not
    hold the baseline's)."""
    x = PARAMETERS[axis].column
    base = baseline_rows(df)
    rows = df.filter(pl.col("axis") == axis)
    if not len(rows) and "product" in df["axis"].to_list():
        rows = df.filter(pl.col("axis") == "product")
        for other in _product_parameters(df):
            if other == axis:
                continue
            column = PARAMETERS[other].column
            wanted = base[column].drop_nulls().unique().to_list()
            present = set(rows[column].to_list())
            keep = [v for v in wanted if v in present] or [min(present)]
            rows = rows.filter(pl.col(column).is_in(keep))
    columns = ["series", "seed", x, "makespan_ps", "slowdown"]
    base = base.filter(pl.col("series").is_in(rows["series"].unique().implode()))
    both = pl.concat([rows.select(columns), base.select(columns)], how="vertical_relaxed")
    both = both.rename({x: "x"})
    if axis == "clusters" and both.schema["x"] == pl.String:
        both = both.with_columns(pl.col("x").fill_null("1"))  # one cluster
    both = both.filter(pl.col("x").is_not_null())
    return both.unique(subset=["series", "seed", "x"], keep="first").sort(["series", "x", "seed"])


def curve(points: pl.DataFrame) -> pl.DataFrame:
    """Median slowdown over seeds per (series, x), with the smallest and largest."""
    return (
        points.group_by(["series", "x"])
        .agg(
            slowdown=pl.col("slowdown").median(),
            slowdown_min=pl.col("slowdown").min(),
            slowdown_max=pl.col("slowdown").max(),
            seeds=pl.col("seed").n_unique(),
        )
        .sort(["series", "x"])
    )


def colours(series: Sequence[str]) -> dict[str, tuple[str, str]]:
    """A (colour, marker) per series, the same in every figure of the report."""
    return {
        s: (PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)])
        for i, s in enumerate(sorted(series))
    }


def _scaled(values: list[Any], divisor: float) -> list[Any]:
    return [v / divisor if isinstance(v, int | float) else v for v in values]


def slowdown_figure(df: pl.DataFrame, axis: str, style: dict[str, tuple[str, str]]) -> LineFigure:
    """Slowdown against one parameter, a line per workload (Martin's Figures 3.x).
    Lines are ordered by their slowdown at the largest value, as the seed's legends."""
    p = PARAMETERS[axis]
    data = curve(curve_points(df, axis))
    categorical = data.schema["x"] == pl.String
    unit, divisor = ("", 1.0) if categorical else display_unit(p.unit, data["x"].to_list())
    series = []
    for (label,), part in data.group_by(["series"], maintain_order=True):
        colour, marker = style[label]
        spread = int(part["seeds"].max() or 1) > 1
        series.append(
            Series(
                label=label,
                x=_scaled(part["x"].to_list(), divisor),
                y=part["slowdown"].to_list(),
                y_lo=part["slowdown_min"].to_list() if spread else None,
                y_hi=part["slowdown_max"].to_list() if spread else None,
                colour=colour,
                marker=marker,
            )
        )
    # A curve without its baseline point (not run yet, or its file damaged) has no
    # slowdowns: it sorts last.
    series.sort(key=lambda s: (-(s.y[-1] if s.y and s.y[-1] is not None else 0), s.label))
    xs = [v for v in data["x"].to_list() if isinstance(v, int | float)]
    positive = [v for v in xs if v > 0]
    x_log = bool(positive) and len(positive) == len(xs) and max(xs) / min(positive) >= 100
    seeds = int(data["seeds"].max() or 1) if len(data) else 1
    caption = (
        f"Run time relative to the baseline as {p.label} varies, the other parameters at "
        "the baseline."
        + (f" Median of {seeds} seeds; bars span the smallest to the largest." if seeds > 1 else "")
    )
    return LineFigure(
        name=f"slowdown_{file_stem(axis)}",
        title=f"Sensitivity to {p.label}",
        x_title=axis_title(p.label, unit),
        y_title="slowdown (×)",
        series=series,
        caption=caption,
        x_log=x_log,
        categorical=categorical,
        # Cluster shapes are ordered (more, smaller clusters); placements are not.
        bars=categorical and p.text and p.name != "clusters",
    )


def model_figure(
    table: pl.DataFrame,
    labels: dict[tuple[Any, ...], str],
    axis: str,
    style: dict[str, tuple[str, str]],
) -> LineFigure:
    """Measured slowdown (solid) and each model's prediction (dashed) against one
    parameter, a colour per workload, from the rows of
    :func:`netsens.models.martin.model_table`; ``labels`` names each (workload, size, ranks)."""
    p = PARAMETERS[axis]
    rows = table.filter(pl.col("axis") == axis).sort([*SERIES_KEYS, "value"], nulls_last=True)
    unit, divisor = display_unit(p.unit, rows["value"].to_list())
    series: list[Series] = []
    for key, part in rows.group_by(SERIES_KEYS, maintain_order=True):
        label = labels[tuple(key)]
        colour, marker = style[label]
        measured = part.unique(subset=["value"], keep="first", maintain_order=True)
        series.append(
            Series(
                label=f"{label}: measured",
                x=_scaled(measured["value"].to_list(), divisor),
                y=measured["measured_slowdown"].to_list(),
                colour=colour,
                marker=marker,
                group=label,
            )
        )
        for (model,), m in part.group_by(["model"], maintain_order=True):
            series.append(
                Series(
                    label=f"{label}: {model} model",
                    x=_scaled(m["value"].to_list(), divisor),
                    y=m["predicted_slowdown"].to_list(),
                    colour=colour,
                    marker=marker,
                    dashed=True,
                    group=label,
                    show_markers=False,
                )
            )
    return LineFigure(
        name=f"model_{file_stem(axis)}",
        title=f"Models against measurement: {p.label}",
        x_title=axis_title(p.label, unit),
        y_title="slowdown (×)",
        series=series,
        caption=(
            f"Measured slowdown (solid, median over seeds) and each model's prediction "
            f"(dashed, same colour) as {p.label} varies."
        ),
        kind="model",
    )


def dense_matrix(entries: Sequence[dict[str, int]] | None, ranks: int) -> tuple[np.ndarray, ...]:
    """The (src, dst) list of a stored point as two ranks × ranks arrays (messages,
    bytes); a pair that exchanged nothing is 0."""
    messages = np.zeros((ranks, ranks), dtype=np.int64)
    volume = np.zeros((ranks, ranks), dtype=np.int64)
    for e in entries or []:
        messages[e["src"], e["dst"]] += e["messages"]
        volume[e["src"], e["dst"]] += e["bytes"]
    return messages, volume


def heatmap_figure(
    label: str, entries: Sequence[dict[str, int]] | None, ranks: int
) -> HeatmapFigure:
    messages, volume = dense_matrix(entries, ranks)
    return HeatmapFigure(
        name=f"matrix_{file_stem(label)}",
        title=f"Communication balance: {label}",
        messages=messages,
        bytes=volume,
        caption=(
            f"Messages (colour; the menu switches to bytes) sent from each rank to each "
            f"rank at the baseline, {messages.sum():,} messages and {volume.sum():,} B in all."
        ),
    )


def histogram_bins(entries: Sequence[dict[str, int]] | None) -> pl.DataFrame:
    """The size histogram of a stored point on its full run of power-of-two bins
    ([0, 0], [1, 1], [2, 3], [4, 7], ...) from the smallest to the largest non-empty
    one, empty bins included so the bars sit on an even log2 scale."""
    schema = {"lo_bytes": pl.Int64, "hi_bytes": pl.Int64, "messages": pl.Int64, "bytes": pl.Int64}
    given = pl.DataFrame(list(entries or []), schema=schema).filter(pl.col("messages") > 0)
    if not len(given):
        return given
    given = given.group_by("lo_bytes").agg(pl.col("messages").sum(), pl.col("bytes").sum())

    def bin_of(lo: int) -> int:  # 0 for [0,0], k+1 for [2^k, 2^(k+1)-1]
        return 0 if lo == 0 else lo.bit_length()

    first = bin_of(int(given["lo_bytes"].min()))
    last = bin_of(int(given["lo_bytes"].max()))
    los = [0 if b == 0 else 1 << (b - 1) for b in range(first, last + 1)]
    his = [0 if b == 0 else (1 << b) - 1 for b in range(first, last + 1)]
    full = pl.DataFrame(
        {"lo_bytes": los, "hi_bytes": his}, schema={"lo_bytes": pl.Int64, "hi_bytes": pl.Int64}
    )
    return (
        full.join(given, on="lo_bytes", how="left")
        .with_columns(pl.col("messages").fill_null(0), pl.col("bytes").fill_null(0))
        .sort("lo_bytes")
    )


def histogram_figure(
    label: str, entries: Sequence[dict[str, int]] | None, colour: str
) -> HistogramFigure:
    bins = histogram_bins(entries)
    return HistogramFigure(
        name=f"sizes_{file_stem(label)}",
        title=f"Message sizes: {label}",
        lo=bins["lo_bytes"].to_list(),
        hi=bins["hi_bytes"].to_list(),
        messages=bins["messages"].to_list(),
        bytes=bins["bytes"].to_list(),
        colour=colour,
        caption=(
            "Messages per power-of-two size bin at the baseline; a bar labelled n holds "
            "the messages of n to 2n−1 bytes."
        ),
    )
