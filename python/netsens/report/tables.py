"""The report's tables (:mod:`netsens.report.page`): the study itself, the communication
characterisation of each workload at the baseline (Martin's Tables 3.2 / 4.1), the
models' errors and the fitted models, each an HTML table whose headers carry units."""

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from netsens import __version__
from netsens.models.profile import CLASSES, class_shares, median_bin
from netsens.parameters import PARAMETERS
from netsens.report import figures as F
from netsens.study import store

if TYPE_CHECKING:
    from netsens.report.page import Source

# --- tables ----------------------------------------------------------------------


@dataclass
class Table:
    """An HTML table: headers (each with its unit, or "" for none) and text cells."""

    headers: list[tuple[str, str]]
    rows: list[list[str]]
    numeric: list[bool]
    caption: str = ""

    def to_html(self, css_class: str = "data") -> str:
        head = "".join(
            f'<th class="{"num" if n else "txt"}">{html.escape(h)}'
            + (f'<span class="unit">({html.escape(u)})</span>' if u else "")
            + "</th>"
            for (h, u), n in zip(self.headers, self.numeric, strict=True)
        )
        body = "".join(
            "<tr>"
            + "".join(
                f'<td class="{"num" if n else "txt"}">{html.escape(c)}</td>'
                for c, n in zip(row, self.numeric, strict=True)
            )
            + "</tr>"
            for row in self.rows
        )
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        return (
            f'<div class="table-wrap"><table class="{css_class}">{caption}'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        )


def _shares(primitives: Sequence[dict[str, Any]] | None) -> dict[str, float] | None:
    """Share of reads, writes, bulk and collective messages from a stored point's
    primitive totals; None when it has none (a GOAL schedule)."""
    totals: dict[str, int] = {}
    for p in primitives or []:
        totals[p["primitive"]] = totals.get(p["primitive"], 0) + int(p["total"] or 0)
    return class_shares(totals)


def communication_rows(base: pl.DataFrame) -> list[dict[str, Any]]:
    """Martin's Table 3.2 / 4.1 per series from its baseline point (smallest seed):
    plain numbers in fixed units (ps, B, fractions)."""
    rows = []
    first = base.sort(["series", "seed"]).unique(
        subset=["series"], keep="first", maintain_order=True
    )
    for r in first.iter_rows(named=True):
        ranks = int(r["ranks"])
        messages_mean = r["messages_mean"]
        makespan_ms = r["makespan_ps"] / 1e9
        rows.append(
            {
                "series": r["series"],
                "workload": r["workload"],
                "ranks": ranks,
                "seed": r["seed"],
                "makespan_ps": r["makespan_ps"],
                "messages_mean": messages_mean,
                "messages_max": r["messages_max"],
                "bytes_mean": r["bytes_mean"],
                "bytes_max": r["bytes_max"],
                "shares": _shares(r["primitives"]),
                "messages_per_ms": messages_mean / makespan_ms if makespan_ms else 0.0,
                "median_bin": median_bin(r["histogram"] or []),
                "mean_bytes": r["bytes"] / r["messages"] if r["messages"] else 0.0,
            }
        )
    return rows


def communication_table(rows: list[dict[str, Any]]) -> Table:
    time_unit, divisor = F.display_unit("ps", [r["makespan_ps"] for r in rows])
    headers = [
        ("workload", ""),
        ("ranks", ""),
        ("run time", time_unit),
        ("messages per rank, mean", "messages"),
        ("messages per rank, max", "messages"),
        ("bytes per rank, mean", "B"),
        ("bytes per rank, max", "B"),
        *((f"{c} share", "%") for c in CLASSES),
        ("messages per rank per ms", "messages/ms"),
        ("median message size", "B, bin"),
        ("mean message size", "B"),
    ]
    body = []
    for r in rows:
        shares = r["shares"]
        median = r["median_bin"]
        body.append(
            [
                r["series"],
                str(r["ranks"]),
                F.number(r["makespan_ps"] / divisor),
                F.number(r["messages_mean"], 5),
                "—" if r["messages_max"] is None else f"{r['messages_max']:,}",
                F.number(r["bytes_mean"], 5),
                "—" if r["bytes_max"] is None else f"{r['bytes_max']:,}",
                *(("—" if shares is None else f"{100 * shares[c]:.1f}") for c in CLASSES),
                F.number(r["messages_per_ms"]),
                "—" if median is None else _bin_text(*median),
                F.number(r["mean_bytes"]),
            ]
        )
    numeric = [False] + [True] * (len(headers) - 1)
    return Table(
        headers,
        body,
        numeric,
        caption="Each workload's communication at the baseline (Martin's Table 3.2): per "
        "rank, messages and bytes sent; the share of reads (gets, one per round trip), "
        "writes (stores, puts, active messages), bulk (point-to-point sends) and collective "
        "messages; the message rate per rank over the run time; message sizes.",
    )


def _bin_text(lo: int, hi: int) -> str:
    return f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"


def _pretty_unit(unit: str) -> str:
    return {"us": "µs", "x": "×", "ratio": "×"}.get(unit, unit)


# The columns of netsens.models.fit.fit_table shown, in order: (column, header, unit): "x" is
# the unit of the fitted variable (``x_unit``, e.g. µs), "slope" the slope's
# (``slope_unit``, seconds of run time per x unit).
FIT_COLUMNS = [
    ("points", "points", ""),
    ("x_min", "range", "x"),  # with x_max: "2.9–103"
    ("slope", "slope", "slope"),
    ("r2", "R²", ""),
    ("elasticity", "elasticity", "%/% at baseline"),
    ("hinge_breakpoint", "breakpoint", "x"),
    ("hinge_slope_left", "slope below", "slope"),
    ("hinge_slope_right", "slope above", "slope"),
    ("hinge_r2", "two-piece R²", ""),
    ("knee", "knee", "x"),
    ("max_slowdown", "max slowdown", "×"),
]


def fit_tables(
    table: pl.DataFrame, labels: dict[tuple[Any, ...], str], axes: list[str]
) -> list[tuple[str, Table]]:
    """The fitted-model table of :func:`netsens.models.fit.fit_table` as one table per swept
    parameter (a row per workload), so that every column has one unit: values of the
    parameter in the unit the fit used (``x_unit``, e.g. µs), slopes as seconds of run
    time per that unit (``slope_unit``)."""
    out = []
    fitted = set(table["axis"].to_list())
    for axis in (a for a in axes if a in fitted):
        rows = table.filter(pl.col("axis") == axis)
        p = PARAMETERS[axis]
        first = rows.row(0, named=True)
        units = {
            "x": _pretty_unit(first["x_unit"]),
            "slope": _pretty_slope_unit(first["slope_unit"]),
        }
        headers = [("workload", "")] + [(h, units.get(u, u)) for _, h, u in FIT_COLUMNS]
        body = []
        for r in rows.iter_rows(named=True):
            cells = [labels[_series_key(r)]]
            for column, *_ in FIT_COLUMNS:
                v = r[column]
                if v is None or (isinstance(v, float) and not math.isfinite(v)):
                    cells.append("—")
                elif column == "points":
                    cells.append(str(v))
                elif column == "x_min":
                    cells.append(f"{F.number(v)}–{F.number(r['x_max'])}")
                elif column in ("r2", "hinge_r2"):
                    cells.append(f"{v:.4f}")
                else:
                    cells.append(F.number(v))
            body.append(cells)
        against = first["x_name"]
        title = p.label + (f", fitted against {against}" if against != p.name else "")
        caption = (
            f"Run time against {p.label}: a straight line (slope, R²), the elasticity at the "
            "baseline (relative change in run time per relative change in the parameter), "
            "a two-piece fit with one breakpoint, and the knee where a flat region ends "
            "(— when there is none)."
        )
        out.append((title, Table(headers, body, [False] + [True] * len(FIT_COLUMNS), caption)))
    return out


def _series_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """A model or fit table row's (workload, size, ranks): the key of its label."""
    return tuple(row[k] for k in F.SERIES_KEYS)


def _pretty_slope_unit(unit: str) -> str:
    for ascii_unit, pretty in ((" us", " µs"), (" x", " ×")):
        if unit.endswith(ascii_unit):
            unit = unit[: -len(ascii_unit)] + pretty
    return unit


def model_error_table(table: pl.DataFrame, labels: dict[tuple[Any, ...], str]) -> Table:
    """How well each model explains each curve (the rows of
    :func:`netsens.models.martin.model_table`): mean and largest |relative error|."""
    err = pl.col("rel_error").abs()
    summary = table.group_by([*F.SERIES_KEYS, "axis", "model"], maintain_order=True).agg(
        points=pl.len(), mean=err.mean(), largest=err.max()
    )
    body = []
    for r in summary.iter_rows(named=True):
        body.append(
            [
                labels[_series_key(r)],
                PARAMETERS[r["axis"]].label,
                r["model"],
                str(r["points"]),
                "—" if r["mean"] is None else f"{100 * r['mean']:.1f}",
                "—" if r["largest"] is None else f"{100 * r['largest']:.1f}",
            ]
        )
    headers = [
        ("workload", ""),
        ("parameter", ""),
        ("model", ""),
        ("points", ""),
        ("mean |relative error|", "%"),
        ("largest |relative error|", "%"),
    ]
    return Table(
        headers,
        body,
        [False, False, False, True, True, True],
        caption="Each model's error against the measured run time (median over seeds).",
    )


# --- the study -------------------------------------------------------------------


def _mtimes(results_dir: Path | None) -> tuple[datetime, datetime] | None:
    if results_dir is None:
        return None
    times = [f.stat().st_mtime for f in (results_dir / store.POINTS).glob("*.parquet")]
    if not times:
        return None
    return (
        datetime.fromtimestamp(min(times), UTC),
        datetime.fromtimestamp(max(times), UTC),
    )


def _manifest(results_dir: Path | None) -> dict[str, Any]:
    """The study as the sweep recorded it (``study.json``: name, description, axes as
    written, baseline overrides), or {} when the results have none."""
    manifest = store.read_manifest(results_dir) if results_dir is not None else None
    return manifest["study"] if manifest is not None else {}


def _values_text(values: list[Any], unit: str) -> str:
    if not values:
        return "—"
    name, divisor = F.display_unit(unit, values)
    if unit == "ratio":
        return ", ".join(f"{F.number(v)}×" for v in values)
    return ", ".join(F.number(v / divisor) for v in values) + f" {name}"


def study_table(
    source: "Source", df: pl.DataFrame, base: pl.DataFrame, generated: datetime
) -> Table:
    rows: list[list[str]] = []

    def add(name: str, text: str) -> None:
        rows.append([name, text])

    add("study", ", ".join(sorted(set(df["study"].drop_nulls().to_list()))) or "—")
    manifest = _manifest(source.results_dir)
    if manifest.get("description"):
        add("description", str(manifest["description"]))
    if source.study_file is not None:
        add("study file", str(source.study_file))
    if source.results_dir is not None:
        add("results", str(source.results_dir))
    add("platform", ", ".join(sorted(set(df["platform"].drop_nulls().to_list()))))
    if manifest.get("baseline"):
        add(
            "baseline overrides",
            ", ".join(f"{k} = {v}" for k, v in sorted(manifest["baseline"].items())),
        )
    if len(base):
        first = base.row(0, named=True)
        shown = []
        for p in PARAMETERS.values():
            v = first[p.column]
            if v is None or p.text:
                continue
            shown.append(f"{p.name} = {F.quantity(v, p.unit)}")
        shown += [
            f"{p.name} = {first[p.column]}"
            for p in PARAMETERS.values()
            if p.text and first[p.column]
        ]
        add("baseline parameters", ", ".join(shown))
    workloads = df.select("workload", "workload_kind", "size").unique().sort("workload")
    add(
        "workloads",
        ", ".join(
            w["workload"] + (f" ({w['size']})" if w["size"] else f" ({w['workload_kind']})")
            for w in workloads.iter_rows(named=True)
        ),
    )
    add("ranks", ", ".join(str(r) for r in sorted(set(df["ranks"].to_list()))))
    product = "product" in df["axis"].to_list()
    add("combination", "every combination of the axes" if product else "one axis at a time")
    for axis in F.axes_of(df):
        p = PARAMETERS[axis]
        on_axis = df.filter(pl.col("axis") == ("product" if product else axis))
        values = sorted(set(on_axis[p.column].drop_nulls().to_list()))
        shown = ", ".join(map(str, values)) if p.text else _values_text(values, p.unit)
        add(f"axis {axis}: {p.label}", f"{len(values)} values: {shown}")
    seeds = df.group_by("workload").agg(pl.col("seed").unique().sort()).sort("workload")
    seed_sets = {tuple(s) for s in seeds["seed"].to_list()}
    if len(seed_sets) == 1:
        add("seeds", ", ".join(str(s) for s in next(iter(seed_sets))))
    else:
        add(
            "seeds",
            "; ".join(
                f"{w}: {', '.join(map(str, s))}"
                for w, s in zip(seeds["workload"].to_list(), seeds["seed"].to_list(), strict=True)
            ),
        )
    points = df.unique(subset=["point_id"])
    wall = float(points["wall_s"].sum())
    add("runs", f"{len(points):,} runs, {F.number(wall)} s of simulation in all")
    failed = store.failures(source.results_dir) if source.results_dir is not None else []
    if failed:
        first = failed[0]
        add(
            "failed runs",
            f"{len(failed)} (not in the figures; see failures/ in the results), e.g. "
            f"{first['workload']} seed {first['seed']}: {first['message']}",
        )
    wrong = points.filter(pl.col("verified") == False).height  # noqa: E712
    checked = points.filter(pl.col("verified").is_not_null()).height
    add("verified answers", f"{checked - wrong} of {checked} checked runs")
    span = _mtimes(source.results_dir)
    if span:
        start, end = (t.strftime("%Y-%m-%d %H:%M UTC") for t in span)
        add("results written", start if start == end else f"{start} to {end}")
    add("report written", generated.strftime("%Y-%m-%d %H:%M UTC"))
    versions = sorted(set(df["netsens_version"].drop_nulls().to_list()))
    add("netsens version", f"results: {', '.join(versions) or '—'}; report: {__version__}")
    return Table([("", ""), ("", "")], rows, [False, False])
