"""The report's matplotlib figures keep their text on the canvas: every title, axis
label, tick label and legend entry of the PNG lies inside the image (the "models
against measurement" figures once had their title cut at the left edge, "odels
against measurement: overhead o", beside a legend of 26 entries that crowded the
plot). The figures are the report's own, from its figure functions, for the whole
suite: 13 workloads, each measured and with a model."""

import matplotlib

matplotlib.use("Agg")

import polars as pl
import pytest
from matplotlib.text import Text
from PIL import Image

from netsens.parameters import PARAMETERS
from netsens.report.draw import draw_matplotlib
from netsens.report.figures import (
    HistogramFigure,
    colours,
    heatmap_figure,
    model_figure,
)

SUITE = ["radix", "radb", "sample", "em3d-write", "em3d-read", "barnes", "pray", "murphi",
         "connect", "nowsort", "ft", "is", "mg"]  # fmt: skip
MODEL = {"o": "overhead", "L": "latency", "g": "gap", "G": "bulk gap"}
DPI = 200  # the PNG's, as save_matplotlib writes it


def model_rows(axis: str, label_size: str) -> tuple[pl.DataFrame, dict, dict]:
    """model_table's rows for every application of the suite on one axis: measured and
    predicted slowdowns at 5 values; the labels as the report writes them."""
    rows = []
    for i, app in enumerate(SUITE):
        for j, value in enumerate([1.0, 10.0, 20.0, 50.0, 100.0]):
            rows.append(
                {"workload": app, "size": label_size, "ranks": 32, "axis": axis,
                 "value": value * 1e6, "model": MODEL[axis],
                 "measured_slowdown": 1 + i * j, "predicted_slowdown": 1.1 + i * j}
            )  # fmt: skip
    labels = {(app, label_size, 32): f"{app} ({label_size}, 32 ranks)" for app in SUITE}
    return pl.DataFrame(rows), labels, colours(list(labels.values()))


def undrawn_ticks(figure) -> set[Text]:
    """Tick labels matplotlib keeps but does not draw: their tick lies outside the
    axis's view (the locator's first and last ticks often do)."""
    out = set()
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            span = (hi - lo) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - span <= tick.get_loc() <= hi + span:
                    out |= {tick.label1, tick.label2}
    return out


def text_off_canvas(figure) -> list[str]:
    """The texts of ``figure`` drawn at the PNG's resolution whose extent leaves the
    canvas (half a pixel of rounding allowed)."""
    figure.set_dpi(DPI)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    canvas = figure.bbox
    off = []
    for text in figure.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or text in undrawn_ticks(figure):
            continue
        box = text.get_window_extent(renderer)
        if (box.x0 < canvas.x0 - 0.5 or box.y0 < canvas.y0 - 0.5
                or box.x1 > canvas.x1 + 0.5 or box.y1 > canvas.y1 + 0.5):  # fmt: skip
            off.append(text.get_text())
    return off


@pytest.mark.parametrize("axis", ["o", "L", "g", "G"])
@pytest.mark.parametrize("size", ["small", "paper"])
def test_model_figures_keep_their_text_on_the_png(axis, size, tmp_path):
    table, labels, style = model_rows(axis, size)
    fig = model_figure(table, labels, axis, style)
    figure = draw_matplotlib(fig)
    assert text_off_canvas(figure) == []
    # the extents were measured on the PNG's own canvas
    png = tmp_path / "f.png"
    figure.savefig(png, dpi=DPI)
    assert Image.open(png).size == (round(figure.bbox.width), round(figure.bbox.height))
    title = figure.get_suptitle()
    assert title == f"Models against measurement: {PARAMETERS[axis].label}"


def test_the_model_legend_names_each_workload_once_and_leaves_the_plot_alone():
    table, labels, style = model_rows("o", "small")
    figure = draw_matplotlib(model_figure(table, labels, "o", style))
    (ax,) = figure.axes
    legend = ax.get_legend()
    entries = [t.get_text() for t in legend.get_texts()]
    # 13 workloads, then the two line styles: 15 entries, not 26
    assert entries == [*sorted(labels.values()), "measured", "overhead model"]
    renderer = figure.canvas.get_renderer()
    assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))


def test_heatmap_and_histogram_keep_their_text_on_the_png():
    import numpy as np

    ranks = 32
    matrix = [{"src": s, "dst": d, "messages": s + d, "bytes": 8 * (s + d)}
              for s in range(ranks) for d in range(ranks) if s != d]  # fmt: skip
    heat = heatmap_figure("em3d-write (small, 32 ranks)", matrix, ranks)
    lo = [2**k for k in range(24)]
    hist = HistogramFigure(
        name="h", title="Message sizes: em3d-write (small, 32 ranks)", lo=lo,
        hi=[2 * x - 1 for x in lo], messages=list(np.arange(24) * 10),
        bytes=list(np.arange(24)), colour="#1f77b4",
    )  # fmt: skip
    for fig in (heat, hist):
        assert text_off_canvas(draw_matplotlib(fig)) == [], fig.title


def test_the_check_sees_text_that_leaves_the_canvas():
    table, labels, style = model_rows("o", "small")
    figure = draw_matplotlib(model_figure(table, labels, "o", style))
    figure.text(-0.05, 0.5, "cut at the left")
    figure.text(0.5, 1.02, "cut at the top")
    assert sorted(text_off_canvas(figure)) == ["cut at the left", "cut at the top"]
