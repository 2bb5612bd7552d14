"""``netsens report``: a study's results as one self-contained HTML page and figures.

    from netsens.report.page import write_report
    write_report("results/isca97", "results/isca97/report")   # -> .../report.html

The page works offline (plotly's JavaScript is inlined once, each figure is a div)
and holds, in order: the study (platform, workloads, ranks, axes with units, seeds,
dates, netsens version); slowdown against each swept parameter, a line per workload
(Martin et al.'s Figures 3.x); the models of :mod:`netsens.models.martin` against the
measurements; each workload's communication at the baseline — balance matrix as a
heatmap and message-size histogram (Figures 3.1, 4.1, 4.2) and the characterisation
table (Tables 3.2 / 4.1); and the fitted models of :mod:`netsens.models.fit`. Beside it,
``figures/`` holds every figure as PNG and PDF drawn with matplotlib for papers.

The source is a results directory, a study file (its results directory is read) or
the frame of :func:`netsens.study.store.load` itself.
"""

import html
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from netsens import __version__
from netsens.errors import InputError
from netsens.models.fit import fit_table
from netsens.models.martin import model_table
from netsens.report import draw as D
from netsens.report import figures as F
from netsens.report.one_run import build as build_one_run
from netsens.report.tables import (
    Table,
    communication_rows,
    communication_table,
    fit_tables,
    model_error_table,
    study_table,
)
from netsens.study import store

Progress = Callable[[str], None]


@dataclass
class Source:
    """Where a report's results come from."""

    frame: pl.DataFrame
    results_dir: Path | None = None
    study_file: Path | None = None


# --- reading the results ---------------------------------------------------------


def read_source(source: Any) -> Source:
    """The results behind ``source``: a results directory, a study file (``.toml``), a
    :class:`netsens.study.definition.Study`, or an already loaded frame. The store says when a
    path is neither or holds no stored points (:func:`netsens.study.store.load`)."""
    if isinstance(source, pl.DataFrame):
        return Source(source)
    root = store.results_dir(source)
    study_file = Path(source) if isinstance(source, str | os.PathLike) else None
    if study_file is not None and study_file.is_dir():
        study_file = None
    return Source(store.load(root, require_points=True), root, study_file)


# --- the page --------------------------------------------------------------------

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
  color: #222; background: #fff; line-height: 1.45; }
main { max-width: 1180px; margin: 0 auto; padding: 1.5rem 2rem 4rem; }
h1 { font-size: 1.7rem; margin-bottom: .2rem; }
h2 { margin-top: 2.5rem; border-bottom: 1px solid #ddd; padding-bottom: .3rem; }
h3 { margin-top: 1.8rem; }
nav ol { columns: 2; }
.lead { color: #555; }
figure { margin: 1rem 0 2rem; }
figcaption { color: #555; font-size: .9rem; margin-top: .3rem; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
@media (max-width: 900px) { .pair { grid-template-columns: 1fr; } }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: .88rem; margin: .5rem 0 1rem; }
caption { caption-side: bottom; text-align: left; color: #555; padding-top: .4rem; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #e5e5e5; vertical-align: bottom; }
th { background: #f6f6f6; font-weight: 600; }
th .unit { display: block; font-weight: 400; color: #666; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num, table.data td:first-child { white-space: nowrap; }
table.kv td:first-child { font-weight: 600; white-space: nowrap; }
table.kv thead { display: none; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: .6rem 1rem; }
"""


def _figure_html(fig: F.Figure) -> str:
    import plotly.io as pio

    div = pio.to_html(
        D.to_plotly(fig),
        full_html=False,
        include_plotlyjs=False,
        div_id=f"fig-{fig.name}",
        config=D.PLOTLY_CONFIG,
    )
    caption = (
        f"<figcaption>{html.escape(fig.caption)} "
        f'<a href="figures/{html.escape(fig.name)}.pdf">PDF</a> · '
        f'<a href="figures/{html.escape(fig.name)}.png">PNG</a></figcaption>'
    )
    return f'<figure class="netsens-figure" data-kind="{fig.kind}">{div}{caption}</figure>'


def _note(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return "window.PlotlyConfig = {MathJaxConfig: 'local'};\n" + get_plotlyjs()


@dataclass
class Report:
    """Everything the page shows, before it is written."""

    title: str
    study: Table
    slowdown: list[F.LineFigure]
    models: list[F.LineFigure]
    model_errors: Table | None
    models_note: str | None
    communication: Table
    comm_figures: list[tuple[F.HeatmapFigure, F.HistogramFigure]]
    fits: list[tuple[str, Table]]
    fits_note: str | None
    # One recorded run's curves beside the swept ones (netsens.report.one_run).
    one_run: list[F.LineFigure] = field(default_factory=list)
    one_run_table: Table | None = None
    one_run_notes: list[str] = field(default_factory=list)

    @property
    def figures(self) -> list[F.Figure]:
        out: list[F.Figure] = [*self.slowdown, *self.models]
        for pair in self.comm_figures:
            out += list(pair)
        return out + list(self.one_run)


def _models(
    df: pl.DataFrame, labels: dict[tuple[Any, ...], str], style: dict[str, tuple[str, str]]
) -> tuple[list[F.LineFigure], Table | None, str | None]:
    """Model overlays and their error table, or a note when no model applies."""
    table = model_table(df)
    if table.is_empty():
        return [], None, "No model overlays: no model applies to the swept parameters."
    modelled = set(table["axis"].to_list())
    figures = [
        F.model_figure(table, labels, axis, style) for axis in F.axes_of(df) if axis in modelled
    ]
    return figures, model_error_table(table, labels), None


def _fits(
    df: pl.DataFrame, labels: dict[tuple[Any, ...], str], axes: list[str]
) -> tuple[list[tuple[str, Table]], str | None]:
    """The fitted-model tables, or a note when no curve can be fitted."""
    table = fit_table(df)
    if table.is_empty():
        return [], "No fitted models: no curve has enough points to fit."
    return fit_tables(table, labels, axes), None


def build_report(
    source: Source, progress: Progress | None = None, one_run: bool = False, jobs: int | None = None
) -> Report:
    """Every table and figure description of the report (nothing is drawn yet);
    ``one_run`` adds each workload's one-run curves (one recorded run per workload, on
    ``jobs`` processes; default every core)."""
    say = progress or (lambda _msg: None)
    df = F.with_series(source.frame)
    base = F.baseline_rows(df)
    series = sorted(df["series"].unique().to_list())
    style = F.colours(series)
    labels = {
        tuple(r[:-1]): r[-1] for r in df.select(*F.SERIES_KEYS, "series").unique().iter_rows()
    }
    generated = datetime.now(UTC)
    axes = F.axes_of(df)
    say(f"{df['point_id'].n_unique()} runs, "
        f"{len(series)} workloads, axes {', '.join(axes) or 'none'}")  # fmt: skip
    say(f"slowdown figures ({len(axes)})")
    slowdown = [F.slowdown_figure(df, axis, style) for axis in axes]
    say("model overlays")
    models, model_errors, models_note = _models(df, labels, style)
    say(f"communication figures ({len(base['series'].unique()) if len(base) else 0} workloads)")
    rows = communication_rows(base) if len(base) else []
    comm_figures = []
    first = base.sort(["series", "seed"]).unique(
        subset=["series"], keep="first", maintain_order=True
    )
    for r in first.iter_rows(named=True):
        label = r["series"]
        comm_figures.append(
            (
                F.heatmap_figure(label, r["matrix"], int(r["ranks"])),
                F.histogram_figure(label, r["histogram"], style[label][0]),
            )
        )
    say("fitted models")
    fits, fits_note = _fits(df, labels, axes)
    title = ", ".join(sorted(set(df["study"].drop_nulls().to_list())))
    one_run_parts: tuple[list[F.LineFigure], Table | None, list[str]] = ([], None, [])
    if one_run:
        say("one run against the sweep (a recorded run per workload)")
        study_dir = source.study_file.parent if source.study_file else source.results_dir
        one_run_parts = build_one_run(source.frame, study_dir, jobs, say)
    return Report(
        title=title or "study",
        study=study_table(source, df, base, generated),
        slowdown=slowdown,
        models=models,
        model_errors=model_errors,
        models_note=models_note,
        communication=communication_table(rows),
        comm_figures=comm_figures,
        fits=fits,
        fits_note=fits_note,
        one_run=one_run_parts[0],
        one_run_table=one_run_parts[1],
        one_run_notes=one_run_parts[2],
    )


def render_html(report: Report) -> str:
    """The whole page: plotly's JavaScript inlined once, then each section."""
    parts = []
    parts.append('<section id="study"><h2>1. The study</h2>')
    parts.append(report.study.to_html("kv") + "</section>")
    parts.append('<section id="slowdown"><h2>2. Slowdown against each parameter</h2>')
    parts.append(
        '<p class="lead">Run time of each workload relative to its baseline run as one '
        "parameter of the network varies and the others stay at the baseline (Martin et "
        "al., Figures 3.x).</p>"
    )
    if report.slowdown:
        parts += [_figure_html(f) for f in report.slowdown]
    else:
        parts.append(_note("The study sweeps no parameter: there is only the baseline."))
    parts.append("</section>")
    parts.append('<section id="models"><h2>3. Models against measurement</h2>')
    if report.models_note:
        parts.append(_note(report.models_note))
    parts += [_figure_html(f) for f in report.models]
    if report.model_errors is not None and report.model_errors.rows:
        parts.append(report.model_errors.to_html())
    parts.append("</section>")
    parts.append('<section id="communication"><h2>4. How each workload communicates</h2>')
    parts.append(report.communication.to_html())
    for heatmap, histogram in report.comm_figures:
        label = heatmap.title.split(": ", 1)[-1]
        parts.append(f"<h3>{html.escape(label)}</h3>")
        parts.append(f'<div class="pair">{_figure_html(heatmap)}{_figure_html(histogram)}</div>')
    parts.append("</section>")
    parts.append('<section id="fits"><h2>5. Fitted models</h2>')
    if report.fits_note:
        parts.append(_note(report.fits_note))
    for title, table in report.fits:
        parts.append(f"<h3>{html.escape(title)}</h3>{table.to_html()}")
    parts.append("</section>")
    sections = [
        ("study", "The study"),
        ("slowdown", "Slowdown against each parameter"),
        ("models", "Models against measurement"),
        ("communication", "How each workload communicates"),
        ("fits", "Fitted models"),
    ]
    if report.one_run_table is not None or report.one_run_notes:
        sections.append(("one-run", "One run against the sweep"))
        parts.append('<section id="one-run"><h2>6. One run against the sweep</h2>')
        parts.append(
            '<p class="lead">Each workload recorded once at its baseline '
            "(docs/guides/sensitivity.md): the curve that record gives for every swept "
            "parameter, beside the study's full runs, and their difference; where they "
            "differ, why.</p>"
        )
        parts += [_note(n) for n in report.one_run_notes]
        parts += [_figure_html(f) for f in report.one_run]
        if report.one_run_table is not None:
            parts.append(report.one_run_table.to_html())
        parts.append("</section>")
    manifest = json.dumps([f"fig-{f.name}" for f in report.figures])
    toc = "".join(f'<li><a href="#{i}">{t}</a></li>' for i, t in sections)
    title = html.escape(report.title)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>netsens report: {title}</title>\n<style>{CSS}</style>\n"
        f'<script type="text/javascript">{_plotly_js()}</script>\n</head>\n<body>\n<main>\n'
        f"<h1>netsens report: {title}</h1>\n"
        f'<p class="lead">How each workload responds to its network, simulated under the '
        f"LogGOPS model by netsens {html.escape(__version__)}.</p>\n"
        f"<nav><ol>{toc}</ol></nav>\n" + "\n".join(parts) + "\n</main>\n"
        f'<script type="application/json" id="netsens-figures">{manifest}</script>\n'
        "</body>\n</html>\n"
    )


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_report(
    source: Any,
    out_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
) -> Path:
    """Write ``report.html`` and ``figures/*.png`` + ``figures/*.pdf`` for ``source``
    (a results directory, a study file, or the frame of ``netsens.study.store.load``) into
    ``out_dir`` (default: ``<results dir>/report``); return the HTML file's path.

    ``progress(message)`` is told about each group of figures as it is made; the
    one-run section's recorded runs take ``jobs`` processes (default: every core)."""
    say = progress or (lambda _msg: None)
    src = read_source(source)
    from netsens.report.jobs import section_html as jobs_section
    from netsens.report.links import section_html as links_section
    from netsens.report.live import section_html as live_section
    from netsens.report.live import validations
    from netsens.report.wan import report_section as wan_section

    found = validations(src.results_dir)  # a damaged one stops the report before any work
    if out_dir is None:
        if src.results_dir is None:
            raise InputError("out_dir: required when the results are given as a DataFrame")
        out_dir = src.results_dir / "report"
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a directory")
    report = build_report(src, say, one_run=True, jobs=jobs)
    figure_dir = out / "figures"
    figure_dir.mkdir(parents=True, exist_ok=True)
    say(f"PNG and PDF figures ({len(report.figures)}) in {figure_dir}")
    written = set()
    for fig in report.figures:
        written |= {p.name for p in D.save_matplotlib(fig, figure_dir)}
    for stale in figure_dir.iterdir():  # figures of an earlier report of other workloads
        if stale.suffix in (".png", ".pdf") and stale.name not in written:
            stale.unlink()
    say("HTML page")
    # The wide-area section, when the study sweeps a wide area, the links one, when it
    # ran on a topology, and the live one, when validations were written into the
    # study, close the page.
    extra = wan_section(src.frame, out) + links_section(src.frame, figure_dir)
    extra += jobs_section(src.frame)
    extra += live_section(found, figure_dir)
    page = out / "report.html"
    _write_atomic(page, render_html(report).replace("</body>", extra + "</body>", 1))
    return page


__all__ = ["Report", "Source", "build_report", "read_source", "render_html", "write_report"]
