"""An ACE study: one EA over latency-jitter standard deviations (at one mean) ×
loads × patterns, showing the prediction error against the dispersion of T_comm, the
seed's question. A TOML file (``studies/ace.toml``) names the grid; the rows go to
``results/<name>/ace.parquet`` beside it and the figure to ``results/<name>/report/``.
"""

import itertools
from pathlib import Path
from typing import Any

import polars as pl

from netsens.ace.emulator import ace, read_ace_toml
from netsens.errors import InputError

KEYS = {
    "name": "ace",
    "platform": "loggopsim",
    "seed": 0,
    "ranks": "0-15",
    "size": "16KiB",
    "iterations": 200,
    "patterns": ["ring"],
    "loads": ["50%"],
    "jitter_mean": "1us",
    "jitter_sd": ["0us"],
}


def load_study(path: Path) -> dict[str, Any]:
    """The study's keys, the missing ones at their defaults."""
    study = {**KEYS, **read_ace_toml(path, list(KEYS))}
    for key in ("patterns", "loads", "jitter_sd"):
        if not isinstance(study[key], list) or not study[key]:
            raise InputError(f"{path}: {key} must be a non-empty list")
    return study


def jitter(mean: str, sd: str) -> str:
    """Latency jitter of mean ``mean`` and standard deviation ``sd`` (constant at 0)."""
    return (
        f"constant({mean})"
        if sd.strip() in ("0", "0us", "0ns", "0ps", "0s")
        else f"lognormal({mean}, {sd})"
    )


def run_ace_study(path: Path) -> pl.DataFrame:
    """Run every (pattern, load, jitter sd) of the study; one row each."""
    s = load_study(path)
    rows = []
    for pattern, load, sd in itertools.product(s["patterns"], s["loads"], s["jitter_sd"]):
        spec = (
            f"pattern={pattern},size={s['size']},load={load},"
            f"iterations={s['iterations']},ranks={s['ranks']}"
        )
        result = ace(
            [spec],
            platform=s["platform"],
            overrides={"latency_jitter": jitter(s["jitter_mean"], sd)},
            seed=s["seed"],
        )
        ea = result["eas"][0]
        rows.append(
            {
                "pattern": pattern,
                "load": ea["load"],
                "jitter_sd": sd,
                "comm_mean_ps": ea["comm"]["mean_ps"],
                "comm_sd_ps": ea["comm"]["sd_ps"],
                "comm_cv": ea["comm"]["cv"],
                "predicted_ps": ea["predicted_ps"],
                "actual_ps": ea["actual_ps"],
                "error": ea["error"],
            }
        )
    return pl.DataFrame(rows)


def write_study(path: Path, df: pl.DataFrame) -> list[Path]:
    """``ace.parquet`` and the figure (PNG, PDF) under ``results/<name>/``."""
    name = load_study(path)["name"]
    out = (
        path.parent.parent / "results" / name
        if path.parent.name == "studies"
        else path.parent / "results" / name
    )
    (out / "report").mkdir(parents=True, exist_ok=True)
    table = out / "ace.parquet"
    tmp = table.with_suffix(".parquet.tmp")
    df.write_parquet(tmp)
    tmp.replace(table)
    return [table, *error_figure(df, out / "report")]


def error_figure(df: pl.DataFrame, directory: Path) -> list[Path]:
    """Prediction error against the CV of T_comm, one marker per pattern, one line
    per (pattern, load) across the jitter's sd."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context(
        {"font.size": 9, "pdf.fonttype": 42, "axes.spines.top": False, "axes.spines.right": False}
    ):
        figure, ax = plt.subplots(figsize=(5.6, 3.8), layout="constrained")
        markers = itertools.cycle("osD^vP*X")
        for (pattern,), by_pattern in df.group_by(["pattern"], maintain_order=True):
            marker = next(markers)
            for (load,), line in by_pattern.group_by(["load"], maintain_order=True):
                ax.plot(
                    line["comm_cv"],
                    line["error"] * 100,
                    marker=marker,
                    markersize=4,
                    label=f"{pattern}, load {load * 100:g} %",
                )
        ax.set_xlabel("CV of T_comm over cycles (sd / mean)")
        ax.set_ylabel("run-time prediction error (%)")
        ax.set_title("prediction error against dispersion")
        ax.legend(frameon=False, fontsize=7)
        paths = [directory / "ace-error.png", directory / "ace-error.pdf"]
        figure.savefig(paths[0], dpi=200, metadata={"Software": None})
        figure.savefig(paths[1], metadata={"CreationDate": None})
        plt.close(figure)
    return paths
