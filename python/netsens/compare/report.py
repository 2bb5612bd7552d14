"""The comparison as one self-contained HTML page (plotly inlined, works offline) with
three figures -- run time per network, the critical path stacked per network, the
busiest link of each class per network -- and the tables of the terminal; each figure
also as PNG and PDF (matplotlib) in ``figures/`` beside the page, as the study report
has them.

    from netsens.compare.report import write_report
    write_report(doc, Path("report"))      # doc: netsens.compare.summary.document(...)
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

from netsens.compare.summary import (
    TOLERANCES,
    busiest,
    columns,
    label,
    part_shares,
    path_parts,
    tolerance_text,
)
from netsens.units_format import format_time

FIGURES = ("run-time", "critical-path", "link-load")
CSS = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
main { max-width: 1100px; margin: 0 auto; padding: 1rem 2rem 4rem; }
table { border-collapse: collapse; margin: .6rem 0 1.2rem; font-size: .9rem; }
th, td { border-bottom: 1px solid #ddd; padding: .25rem .6rem; text-align: right; }
th:first-child, td:first-child, td.text { text-align: left; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: .6rem 1rem; }
figcaption { font-size: .85rem; color: #555; }
"""


def _color(i: int) -> str:
    palette = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860",
               "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"]  # fmt: skip
    return palette[i % len(palette)]


def _bars(names: list[str], series: dict[str, list[float]], barmode: str, y_title: str) -> Any:
    """One bar per network for each named series, in percent (stacked or grouped)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for i, (name, values) in enumerate(series.items()):
        fig.add_bar(
            x=names, y=values, name=name, marker_color=_color(i),
            hovertemplate=f"{name}: %{{y:.1f}} %<extra></extra>",
        )  # fmt: skip
    fig.update_layout(barmode=barmode, yaxis_title=y_title)
    return fig


def figure_data(doc: dict[str, Any]) -> dict[str, Any]:
    """The three figures' numbers: the same for the page and for the PNG/PDF."""
    rows = doc["networks"]
    names = [label(r) for r in rows]
    # Shares of each network's path (%): networks whose run times differ a hundredfold
    # still show their make-up side by side; the link queueing per class of links.
    paths = [path_parts(r) for r in rows]
    totals = [sum(cp.values()) or 1 for cp in paths]
    shown = columns(rows)
    stacked = {
        p: [100 * cp.get(p, 0) / t for cp, t in zip(paths, totals, strict=True)]
        for p in shown
        if p != "other"
    }
    if "other" in shown:
        other = [sum(v for k, v in cp.items() if k not in shown) for cp in paths]
        stacked["other"] = [100 * v / t for v, t in zip(other, totals, strict=True)]
    classes: list[str] = []
    for r in rows:
        for c in (r.get("links") or {}).get("classes", []):
            if c.get("flows", 0) > 0 and c["class"] not in classes:
                classes.append(c["class"])
    load = {
        c: [
            100
            * next(
                (
                    x.get("max_utilization", 0)
                    for x in (r.get("links") or {}).get("classes", [])
                    if x["class"] == c
                ),
                0,
            )
            for r in rows
        ]
        for c in classes
    }
    return {
        "names": names,
        "run_time_us": [r["makespan_ps"] / 1e6 for r in rows],
        "ratio": [r["ratio_to_best"] for r in rows],
        "stacked_pct": stacked,
        "log_scale": _wide([r["makespan_ps"] for r in rows]),
        "link_load_pct": load,
    }


def _wide(values: list[int]) -> bool:
    """Run times that differ fiftyfold or more are drawn on a log scale."""
    low = min(values) if values else 0
    return low > 0 and max(values) / low >= 50


def _plotly(doc: dict[str, Any]) -> list[tuple[str, Any, str]]:
    import plotly.graph_objects as go

    d = figure_data(doc)
    run = go.Figure(
        go.Bar(
            x=d["names"],
            y=d["run_time_us"],
            text=[f"{r:.2f}x" for r in d["ratio"]],
            textposition="outside",
            marker_color="#4c72b0",
            hovertemplate="%{x}: %{y:.3f} us<extra></extra>",
        )
    )
    run.update_layout(yaxis_title="predicted run time (us)", title="Run time per network")
    if d["log_scale"]:
        run.update_yaxes(type="log")
    path = _bars(d["names"], d["stacked_pct"], "stack", "share of the critical path (%)")
    path.update_layout(title="Where the critical path's time goes")
    load = _bars(
        d["names"], d["link_load_pct"], "group", "busiest link of the class (% of the run)"
    )
    load.update_layout(title="Link load: the busiest link of each class")
    captions = {
        "run-time": "Predicted run time per network; the label is the ratio to the best.",
        "critical-path": "The critical path's make-up per network, as shares of its run "
        "time (compute, CPU overhead o, latency L, the NIC's gap g and per-byte gap G, "
        "the route's link latency, a link slower than the NIC, waits behind other flows "
        "on shared links per class of the links that held them back, the wide-area links).",
        "link-load": "Per class of links, the busiest link's busy time as a share of the run "
        "(networks without a topology have no shared links and no bars).",
    }
    for fig in (run, path, load):
        fig.update_layout(height=420, margin={"t": 50, "b": 90}, template="plotly_white")
    return [(n, f, captions[n]) for n, f in zip(FIGURES, (run, path, load), strict=True)]


def _matplotlib(doc: dict[str, Any], directory: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = figure_data(doc)
    x = list(range(len(d["names"])))
    out: list[Path] = []

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        for ext in ("png", "pdf"):
            p = directory / f"{name}.{ext}"
            fig.savefig(p, dpi=150)
            out.append(p)
        plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4))
    bars = ax.bar(x, d["run_time_us"], color="#4c72b0")
    for b, r in zip(bars, d["ratio"], strict=True):
        ax.annotate(f"{r:.2f}x", (b.get_x() + b.get_width() / 2, b.get_height()),
                    ha="center", va="bottom", fontsize=8)  # fmt: skip
    ax.set_ylabel("predicted run time (us)")
    if d["log_scale"]:
        ax.set_yscale("log")
    _ticks(ax, x, d["names"])
    save(fig, "run-time")

    fig, ax = plt.subplots(figsize=(8, 4))
    bottom = [0.0] * len(x)
    for i, (part, values) in enumerate(d["stacked_pct"].items()):
        ax.bar(x, values, bottom=bottom, label=part, color=_color(i))
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_ylabel("share of the critical path (%)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    _ticks(ax, x, d["names"])
    save(fig, "critical-path")

    fig, ax = plt.subplots(figsize=(8, 4))
    n = max(len(d["link_load_pct"]), 1)
    width = 0.8 / n
    for i, (cls, values) in enumerate(d["link_load_pct"].items()):
        ax.bar(
            [v + i * width - 0.4 + width / 2 for v in x], values, width, label=cls, color=_color(i)
        )
    ax.set_ylabel("busiest link (% of the run)")
    if d["link_load_pct"]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    _ticks(ax, x, d["names"])
    save(fig, "link-load")
    return out


def _ticks(ax: Any, x: list[int], names: list[str]) -> None:
    ax.set_xticks(x)
    ax.set_xticklabels(names, rotation=20, ha="right", fontsize=8)
    ax.grid(alpha=0.3, axis="y")


def _tables_html(doc: dict[str, Any]) -> str:
    rows = doc["networks"]
    e = html.escape
    main = ["<table id='networks'><tr><th>network</th><th>hosts</th><th>run time</th>"
            "<th>x best</th><th>busiest links</th><th>what would help most</th></tr>"]  # fmt: skip
    for r in rows:
        main.append(
            f"<tr><td>{e(label(r))}</td><td>{r['hosts'] or '-'}</td>"
            f"<td>{e(format_time(r['makespan_ps']))}</td><td>{r['ratio_to_best']:.2f}</td>"
            f"<td class='text'>{e(busiest(r))}</td><td class='text'>{e(r['advice'])}</td></tr>"
        )
    main.append("</table>")
    shares = [part_shares(r) for r in rows]
    parts = columns(rows)
    path = ["<table id='critical-path'><tr><th>network</th>"]
    path += [f"<th>{e(p)} (%)</th>" for p in parts] + ["</tr>"]
    for r, s in zip(rows, shares, strict=True):
        cells = "".join(f"<td>{100 * s.get(p, 0):.1f}</td>" for p in parts)
        path.append(f"<tr><td>{e(label(r))}</td>{cells}</tr>")
    path.append("</table>")
    params = [p for p in TOLERANCES if any(p in r["tolerance"] for r in rows)]
    tol = ["<table id='tolerance'><tr><th>network</th>"]
    tol += [f"<th>{p}: 1 % / 5 %</th>" for p in params] + ["</tr>"]
    for r in rows:
        cells = ""
        for p in params:
            t = r["tolerance"].get(p)
            text = f"{tolerance_text(t, '1%')} / {tolerance_text(t, '5%')}" if t else "-"
            cells += f"<td>{e(text)}</td>"
        tol.append(f"<tr><td>{e(label(r))}</td>{cells}</tr>")
    tol.append("</table>")
    out = "<h2>Networks</h2>" + "".join(main)
    out += "<h2>The critical path</h2>" + "".join(path)
    out += (
        "<h2>Tolerance</h2><p>The largest increase of each parameter that keeps the run "
        "within 1 % and 5 % of its time on that network (the links' waits held at the "
        "run's values).</p>" + "".join(tol)
    )
    bg = [r for r in rows if r.get("background")]
    if bg:
        out += "<h2>Beside a background job</h2><table id='background'><tr><th>network</th>"
        out += "<th>background</th><th>run time beside it</th><th>slowdown</th></tr>"
        for r in bg:
            b = r["background"]
            out += (
                f"<tr><td>{e(label(r))}</td><td class='text'>{e(b['job'])}</td>"
                f"<td>{e(format_time(b['makespan_ps']))}</td><td>{b['slowdown']:.3f}x</td></tr>"
            )
        out += "</table>"
    return out


def render_html(doc: dict[str, Any]) -> str:
    import plotly.io as pio
    from plotly.offline import get_plotlyjs

    from netsens import __version__

    figs = []
    for name, fig, caption in _plotly(doc):
        div = pio.to_html(
            fig, full_html=False, include_plotlyjs=False, div_id=f"fig-{name}",
            config={"displaylogo": False, "responsive": True},
        )  # fmt: skip
        figs.append(
            f'<figure class="netsens-figure">{div}<figcaption>{html.escape(caption)} '
            f'<a href="figures/{name}.pdf">PDF</a> · <a href="figures/{name}.png">PNG</a>'
            "</figcaption></figure>"
        )
    title = html.escape(doc["workload"]["label"])
    notes = [doc["computation"][0].upper() + doc["computation"][1:] + "."]
    for r in doc["networks"]:
        if not r.get("shared_links"):
            notes.append(f"{r['network']}: no topology, so no shared links (LogGP's pipe).")
    manifest = json.dumps([f"fig-{n}" for n in FIGURES])
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>netsens compare: {title}</title>\n<style>{CSS}</style>\n"
        f'<script type="text/javascript">{get_plotlyjs()}</script>\n</head>\n<body>\n<main>\n'
        f"<h1>Which network for {title}</h1>\n"
        f"<p>Predicted by netsens {html.escape(__version__)} (docs/guides/compare.md).</p>\n"
        + "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes)
        + "\n".join(figs)
        + _tables_html(doc)
        + "\n</main>\n"
        f'<script type="application/json" id="netsens-figures">{manifest}</script>\n'
        "</body>\n</html>\n"
    )


def write_report(doc: dict[str, Any], out_dir: Path) -> Path:
    """``report.html``, ``compare.json`` and ``figures/*.png|pdf`` in ``out_dir``."""
    figures = out_dir / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    _matplotlib(doc, figures)
    (out_dir / "compare.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    page = out_dir / "report.html"
    tmp = page.with_name(f"{page.name}.tmp-{os.getpid()}")
    tmp.write_text(render_html(doc), encoding="utf-8")
    os.replace(tmp, page)
    return page
