"""The report's figures drawn: :func:`to_plotly` for the HTML report and
:func:`save_matplotlib` as PNG and PDF for papers, from the descriptions of
:mod:`netsens.report.figures` (every axis titled with its unit there)."""

import math
from pathlib import Path
from typing import Any

import numpy as np

from netsens.report.figures import (
    Figure,
    HeatmapFigure,
    HistogramFigure,
    LineFigure,
    byte_label,
)


def bin_labels(fig: HistogramFigure) -> list[str]:
    return [byte_label(lo) for lo in fig.lo]


def bin_ranges(fig: HistogramFigure) -> list[str]:
    return [
        f"{lo:,} B" if lo == hi else f"{lo:,}–{hi:,} B"
        for lo, hi in zip(fig.lo, fig.hi, strict=True)
    ]


# --- plotly (the HTML report) ----------------------------------------------------

# matplotlib's marker codes (figures.MARKERS) as plotly names them.
PLOTLY_MARKERS = {
    "o": "circle", "s": "square", "^": "triangle-up", "v": "triangle-down", "D": "diamond",
    "P": "cross", "X": "x", "*": "star", "<": "triangle-left", ">": "triangle-right",
    "h": "hexagon", "p": "pentagon",
}  # fmt: skip

PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}


def hover_unit(y_title: str) -> str:
    """What a line figure's hover text puts after a value: the unit in its y axis
    title's last parentheses, "×" for a slowdown (nothing for a title without one)."""
    if not y_title.endswith(")") or "(" not in y_title:
        return ""
    unit = y_title[y_title.rindex("(") + 1 : -1]
    return unit if unit == "×" else f" {unit}"


def to_plotly(fig: Figure) -> Any:
    """A plotly figure of the description."""
    import plotly.graph_objects as go

    if isinstance(fig, LineFigure):
        out = go.Figure()
        unit = hover_unit(fig.y_title)
        for s in fig.series:
            hover = f"{s.label}<br>%{{x}}: %{{y:.4g}}{unit}<extra></extra>"
            error = None
            if s.y_lo is not None and s.y_hi is not None:
                error = {
                    "type": "data",
                    "symmetric": False,
                    "array": [hi - y for hi, y in zip(s.y_hi, s.y, strict=True)],
                    "arrayminus": [y - lo for lo, y in zip(s.y_lo, s.y, strict=True)],
                    "thickness": 1,
                    "width": 3,
                }
            if fig.bars:
                bar = go.Bar(x=s.x, y=s.y, name=s.label, marker_color=s.colour, error_y=error)
                out.add_trace(bar.update(hovertemplate=hover))
                continue
            out.add_trace(
                go.Scatter(
                    x=s.x,
                    y=s.y,
                    name=s.label,
                    mode="lines+markers" if s.show_markers else "lines",
                    line={"color": s.colour, "dash": "dash" if s.dashed else "solid"},
                    marker={"symbol": PLOTLY_MARKERS.get(s.marker, "circle"), "size": 7},
                    error_y=error,
                    legendgroup=s.group,
                    hovertemplate=hover,
                )
            )
        out.update_xaxes(
            title_text=fig.x_title,
            type="log" if fig.x_log else ("category" if fig.categorical else "linear"),
        )
        out.update_yaxes(title_text=fig.y_title, rangemode="tozero")
        out.update_layout(legend_title_text="workload", height=460, barmode="group")
    elif isinstance(fig, HeatmapFigure):
        n = fig.messages.shape[0]
        ranks = list(range(n))
        hover = "sender %{y} → receiver %{x}<br>%{z:,} "
        out = go.Figure(
            go.Heatmap(
                z=fig.messages.tolist(),
                x=ranks,
                y=ranks,
                colorscale="Viridis",
                colorbar={"title": {"text": "messages"}},
                hovertemplate=hover + "messages<extra></extra>",
            )
        )
        out.update_xaxes(title_text="receiver rank", constrain="domain", dtick=_rank_tick(n))
        out.update_yaxes(
            title_text="sender rank", autorange="reversed", scaleanchor="x", dtick=_rank_tick(n)
        )
        out.update_layout(
            height=500,
            title_y=0.97,
            updatemenus=[
                {
                    "type": "buttons",
                    "direction": "right",
                    "x": 1.0,
                    "xanchor": "right",
                    "y": 1.01,
                    "yanchor": "bottom",
                    "pad": {"t": 0, "b": 0},
                    "showactive": True,
                    "buttons": [
                        _heatmap_button("messages", fig.messages, hover + "messages"),
                        _heatmap_button("bytes (B)", fig.bytes, hover + "B"),
                    ],
                }
            ],
        )
    else:
        out = go.Figure(
            go.Bar(
                x=bin_labels(fig),
                y=fig.messages,
                customdata=[[r, b] for r, b in zip(bin_ranges(fig), fig.bytes, strict=True)],
                marker_color=fig.colour,
                hovertemplate="%{customdata[0]}: %{y:,} messages, %{customdata[1]:,} B"
                "<extra></extra>",
            )
        )
        out.update_xaxes(title_text="message size (B)", type="category")
        out.update_yaxes(title_text="messages", rangemode="tozero")
        out.update_layout(height=460, bargap=0.1)
    out.update_layout(
        title={"text": fig.title},
        template="plotly_white",
        margin={"l": 70, "r": 30, "t": 90, "b": 60},
    )
    return out


def _rank_tick(n: int) -> int:
    return max(1, math.ceil(n / 16))


def _heatmap_button(label: str, z: np.ndarray, hover: str) -> dict[str, Any]:
    return {
        "label": label,
        "method": "restyle",
        "args": [
            {
                "z": [z.tolist()],
                "colorbar.title.text": label,
                "hovertemplate": hover + "<extra></extra>",
            }
        ],
    }


# --- matplotlib (PNG and PDF for papers) -----------------------------------------


# The figures' style for papers; pdf.fonttype embeds the fonts as TrueType.
MPL_STYLE = {
    "font.size": 10,
    "axes.titlesize": 11,
    "legend.fontsize": 8,
    "pdf.fonttype": 42,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def draw_matplotlib(fig: Figure) -> Any:
    """The description drawn as a matplotlib figure in the report's style; the caller
    saves and closes it (:func:`save_matplotlib` does both)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context(MPL_STYLE):
        if isinstance(fig, LineFigure):
            return _mpl_lines(plt, fig)
        if isinstance(fig, HeatmapFigure):
            return _mpl_heatmap(plt, fig)
        return _mpl_histogram(plt, fig)


def save_matplotlib(fig: Figure, directory: Path) -> list[Path]:
    """Draw the description with matplotlib and save ``<name>.png`` (200 dpi) and
    ``<name>.pdf`` (fonts embedded as TrueType) in ``directory``; return both paths."""
    import matplotlib.pyplot as plt

    figure = draw_matplotlib(fig)
    paths = [directory / f"{fig.name}.png", directory / f"{fig.name}.pdf"]
    with plt.rc_context(MPL_STYLE):
        figure.savefig(paths[0], dpi=200, metadata={"Software": None})
        figure.savefig(paths[1], metadata={"CreationDate": None})
    plt.close(figure)
    return paths


def _legend_entries(ax: Any, fig: LineFigure) -> tuple[list[Any], list[str]]:
    """The legend's handles and labels: one per line, or, where the lines come in
    groups (a workload's measured line and its models' dashed ones), one per group in
    its colour and marker and then one per line style, so 13 workloads with a model
    each make 15 entries instead of 26."""
    from matplotlib.lines import Line2D

    if not any(s.group for s in fig.series):
        return ax.get_legend_handles_labels()
    handles, labels, styles = [], [], {}
    for s in fig.series:
        if s.group not in labels:
            handles.append(Line2D([], [], color=s.colour, marker=s.marker, markersize=5))
            labels.append(s.group)
        styles.setdefault(s.label.removeprefix(f"{s.group}: "), "--" if s.dashed else "-")
    for style, linestyle in styles.items():
        handles.append(Line2D([], [], color="0.35", linestyle=linestyle))
        labels.append(style)
    return handles, labels


def _mpl_lines(plt: Any, fig: LineFigure) -> Any:
    figure, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    categories: list[Any] = []
    if fig.categorical:
        for s in fig.series:
            categories += [x for x in s.x if x not in categories]
    width = 0.8 / max(len(fig.series), 1)
    for k, s in enumerate(fig.series):
        x = [categories.index(v) for v in s.x] if fig.categorical else s.x
        if fig.bars:
            shift = [i - 0.4 + (k + 0.5) * width for i in x]
            yerr = None
            if s.y_lo is not None and s.y_hi is not None:
                yerr = [
                    [y - lo for lo, y in zip(s.y_lo, s.y, strict=True)],
                    [hi - y for hi, y in zip(s.y_hi, s.y, strict=True)],
                ]
            ax.bar(shift, s.y, width, yerr=yerr, color=s.colour, label=s.label, capsize=2)
            continue
        style = {
            "color": s.colour,
            "marker": s.marker if s.show_markers else None,
            "linestyle": "--" if s.dashed else "-",
            "markersize": 5,
            "linewidth": 1.4,
            "label": s.label,
        }
        if s.y_lo is not None and s.y_hi is not None:
            yerr = [
                [y - lo for lo, y in zip(s.y_lo, s.y, strict=True)],
                [hi - y for hi, y in zip(s.y_hi, s.y, strict=True)],
            ]
            ax.errorbar(x, s.y, yerr=yerr, capsize=2, elinewidth=0.8, **style)
        else:
            ax.plot(x, s.y, **style)
    if fig.categorical:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
    if fig.x_log:
        ax.set_xscale("log")
    ax.set_xlabel(fig.x_title)
    ax.set_ylabel(fig.y_title)
    ax.set_ylim(bottom=0)
    # Over the whole figure, not the axes: a title wider than the axes beside a wide
    # legend was cut at the figure's left edge.
    figure.suptitle(fig.title, fontsize="large")
    ax.grid(True, alpha=0.3, linewidth=0.5)
    if fig.series:
        handles, labels = _legend_entries(ax, fig)
        ax.legend(
            handles,
            labels,
            title="workload",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            frameon=False,
            ncols=1 if len(labels) <= 16 else 2,
        )
    return figure


def _mpl_heatmap(plt: Any, fig: HeatmapFigure) -> Any:
    from matplotlib.ticker import MaxNLocator

    figure, axes = plt.subplots(1, 2, figsize=(9.0, 4.0), layout="constrained")
    for ax, z, what in zip(axes, (fig.messages, fig.bytes), ("messages", "bytes (B)"), strict=True):
        image = ax.imshow(z, cmap="viridis", origin="upper", interpolation="nearest")
        ax.set_xlabel("receiver rank")
        ax.set_ylabel("sender rank")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
        ax.spines[:].set_visible(False)
        figure.colorbar(image, ax=ax, shrink=0.85, label=what)
    figure.suptitle(fig.title)
    return figure


def _mpl_histogram(plt: Any, fig: HistogramFigure) -> Any:
    figure, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    positions = list(range(len(fig.lo)))
    ax.bar(positions, fig.messages, color=fig.colour, width=0.85)
    labels = bin_labels(fig)
    step = max(1, math.ceil(len(labels) / 16))
    ax.set_xticks(positions[::step], labels[::step], rotation=45 if len(labels) > 8 else 0)
    ax.set_xlabel("message size (B)")
    ax.set_ylabel("messages")
    ax.set_title(fig.title)
    ax.grid(True, axis="y", alpha=0.3, linewidth=0.5)
    return figure
