"""The run drawn as ranks × time: each rank's computation and overhead as bars (the
gaps are waiting), messages as lines from the sender's start to the arrival, the
critical path over them; an interactive HTML figure (plotly, self-contained) or a
PNG/PDF (matplotlib). The engine sends only the ranks and time window asked for (at
most a set number of bars and messages), so a run of hundreds of ranks is drawn
from a window of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# Bars, messages and the critical path: colours of the report's palette.
COLOURS = {"compute": "#4c72b0", "overhead": "#dd8452", "message": "#8c8c8c", "critical": "#c44e52"}
US = 1e6  # ps per µs: the figures' time axis is in µs


def write_timeline(out: dict[str, Any], path: str | Path) -> Path:
    """Write ``out["timeline"]`` (from :func:`netsens.sensitivity.analyze` with a
    ``timeline``) as ``.html``, ``.png`` or ``.pdf`` by the path's suffix."""
    from netsens.errors import InputError

    p = Path(path)
    t = out.get("timeline")
    if not t:
        raise InputError("timeline: the analysis was run without one (pass timeline=...)")
    suffix = p.suffix.lower()
    if suffix == ".html":
        _html(t, p)
    elif suffix in (".png", ".pdf"):
        _image(t, p)
    else:
        raise InputError(f'timeline: "{path}" must end in .html, .png or .pdf')
    return p


def _title(t: dict[str, Any]) -> str:
    a, b = t["ranks"]
    lo, hi = (x / US for x in t["window_ps"])
    more = f"; {t['left_out']} bars and messages left out" if t["left_out"] else ""
    return f"ranks {a}-{b}, {lo:.3f} to {hi:.3f} us{more}"


def _segments(items: list[list[float]]) -> tuple[list[float | None], list[float | None]]:
    """Bars ``[rank, start, end]`` as one polyline broken by ``None``: x in µs, y the rank."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for rank, start, end in items:
        xs += [start / US, end / US, None]
        ys += [rank, rank, None]
    return xs, ys


def _html(t: dict[str, Any], path: Path) -> None:
    import plotly.graph_objects as go

    fig = go.Figure()
    for name in ("compute", "overhead"):
        xs, ys = _segments(t[name])
        fig.add_trace(
            go.Scattergl(
                x=xs, y=ys, mode="lines", name=name, line={"color": COLOURS[name], "width": 8}
            )
        )
    mx: list[float | None] = []
    my: list[float | None] = []
    for src, sent, dst, arrived in t["messages"]:
        mx += [sent / US, arrived / US, None]
        my += [src, dst, None]
    fig.add_trace(
        go.Scattergl(
            x=mx, y=my, mode="lines", name="message", line={"color": COLOURS["message"], "width": 1}
        )
    )
    cx = [time / US for _, time in t["critical"]]
    cy = [rank for rank, _ in t["critical"]]
    fig.add_trace(
        go.Scatter(
            x=cx,
            y=cy,
            mode="lines+markers",
            name="critical path",
            line={"color": COLOURS["critical"], "width": 2},
        )
    )
    fig.update_layout(
        title=_title(t),
        xaxis_title="time (us)",
        yaxis_title="rank",
        yaxis={"autorange": "reversed"},
        template="simple_white",
    )
    fig.write_html(path, include_plotlyjs=True, full_html=True)


def _image(t: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    a, b = t["ranks"]
    fig, ax = plt.subplots(figsize=(10, max(3.0, min(12.0, 0.25 * (b - a + 1) + 2))))
    for name in ("compute", "overhead"):
        segs = [[(s / US, r), (e / US, r)] for r, s, e in t[name]]
        ax.add_collection(LineCollection(segs, colors=COLOURS[name], linewidths=6, label=name))
    msgs = [[(s / US, src), (e / US, dst)] for src, s, dst, e in t["messages"]]
    ax.add_collection(
        LineCollection(msgs, colors=COLOURS["message"], linewidths=0.6, label="message")
    )
    if t["critical"]:
        ax.plot(
            [time / US for _, time in t["critical"]],
            [rank for rank, _ in t["critical"]],
            color=COLOURS["critical"],
            linewidth=1.5,
            label="critical path",
        )
    lo, hi = (x / US for x in t["window_ps"])
    ax.set_xlim(lo, hi)
    ax.set_ylim(b + 0.5, a - 0.5)
    ax.set_xlabel("time (us)")
    ax.set_ylabel("rank")
    ax.set_title(_title(t), fontsize=9)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    if path.suffix.lower() == ".png":
        fig.savefig(path, dpi=200, metadata={"Software": None})
    else:
        fig.savefig(path, metadata={"CreationDate": None})
    plt.close(fig)
