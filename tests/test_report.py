"""The study report: figures, tables and the HTML page, checked in headless Chromium.

Results come two ways, both in the stored-point schema of netsens.store: a
synthetic study whose run times follow a formula (so every slowdown is known by
hand), and a small real one run with netsens.run (radix and em3d-read, tiny, 4 ranks,
o and L swept). Expected numbers are derived from those inputs, never read back from
the report's own output.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from frames import loaded_frame, stored_row

import netsens
from netsens import cli, store
from netsens import figures as F
from netsens.parameters import PARAMETERS
from netsens.report import build_report, read_source, write_report
from netsens.study import point_id

US = 10**6  # ps per µs

# --- results in the stored-point schema ---------------------------------------

# now1997 as `netsens run --json` resolves it (G: 26315789 fs/B).
NOW1997 = {"L": 5.0 * US, "o": 2.9 * US, "g": 5.8 * US, "G": 26315.789}


def write_points(rows: list[dict], results: Path) -> Path:
    """Each row as results/points/<point_id>.parquet, written by the store (no
    study.json: every point on the curve it was stored with)."""
    for row in rows:
        store.write_point(results, row)
    return results


# The synthetic study: two workloads, 4 ranks, seeds 0 and 1, o, L, g and G swept.
# Run time = T0 * (1 + SEED_SPREAD * seed) + SENS * (x - x0) in ps, so the slowdown of
# every point follows by hand.
T0 = {"radix": 20_000 * US, "em3d-read": 2_000 * US}
SEED_SPREAD = 0.01
SENS = {  # ps of run time per canonical unit of the parameter
    "radix": {"o": 6_000.0, "L": 50.0, "g": 3_000.0, "G": 10_000.0},
    "em3d-read": {"o": 300.0, "L": 260.0, "g": 20.0, "G": 100.0},
}
AXES = {
    "o": [2.9 * US, 10 * US, 30 * US, 103 * US],
    "L": [5 * US, 25 * US, 50 * US, 100 * US],
    "g": [5.8 * US, 20 * US, 60 * US],
    "G": [26315.789, 100_000.0, 500_000.0],
}
SEEDS = [0, 1]


def synthetic_matrix(workload: str, ranks: int = 4) -> list[dict]:
    """radix: everyone to everyone, m(s, d) = 10 (s+1) + d; em3d-read: each rank to
    its right neighbour only, 7 (s+1) messages. 8 B per message."""
    out = []
    for s in range(ranks):
        for d in range(ranks):
            if workload == "radix":
                m = 10 * (s + 1) + d
            elif d == (s + 1) % ranks:
                m = 7 * (s + 1)
            else:
                continue
            out.append({"src": s, "dst": d, "messages": m, "bytes": 8 * m})
    return out


SYNTHETIC_HISTOGRAM = {
    "radix": [
        {"lo_bytes": 4, "hi_bytes": 7, "messages": 300, "bytes": 1500},
        {"lo_bytes": 64, "hi_bytes": 127, "messages": 28, "bytes": 2048},
    ],
    "em3d-read": [{"lo_bytes": 8, "hi_bytes": 15, "messages": 70, "bytes": 560}],
}
SYNTHETIC_PRIMITIVES = {
    "radix": [
        {"primitive": "store", "total": 300, "max": 80},
        {"primitive": "coll_send", "total": 28, "max": 7},
        {"primitive": "barrier", "total": 8, "max": 2},
    ],
    "em3d-read": [
        {"primitive": "get", "total": 60, "max": 20},
        {"primitive": "coll_send", "total": 10, "max": 3},
    ],
}


def synthetic_makespan(workload: str, seed: int, axis: str | None, x: float | None) -> int:
    t = T0[workload] * (1 + SEED_SPREAD * seed)
    if axis is not None:
        t += SENS[workload][axis] * (x - NOW1997[axis])
    return round(t)


def _row(workload: str, seed: int, axis: str, overrides: dict, params: dict, makespan: int) -> dict:
    matrix = synthetic_matrix(workload)
    hist = SYNTHETIC_HISTOGRAM[workload]
    messages = sum(m["messages"] for m in matrix)
    volume = sum(m["bytes"] for m in matrix)
    sent = [sum(m["messages"] for m in matrix if m["src"] == r) for r in range(4)]
    sent_b = [sum(m["bytes"] for m in matrix if m["src"] == r) for r in range(4)]
    recv = [sum(m["messages"] for m in matrix if m["dst"] == r) for r in range(4)]
    return {
        "point_id": point_id(workload, "tiny", 4, "now1997", seed, overrides),
        "study": "synthetic",
        "workload": workload,
        "workload_kind": "app",
        "size": "tiny",
        "ranks": 4,
        "platform": "now1997",
        "seed": seed,
        "overrides": json.dumps(overrides, sort_keys=True),
        "axis": axis,
        **{PARAMETERS[p].column: v for p, v in params.items()},
        "O_ps_per_B": 0.0,
        "S_B": 65536.0,
        "wan_latency_ps": None,
        "wan_bandwidth_Bps": None,
        "cpu_speed": 1.0,
        "clusters": None,
        "makespan_ps": makespan,
        "verified": True,
        "messages": messages,
        "bytes": volume,
        "events": 10 * messages,
        "wall_s": 0.01,
        "messages_max": max(sent),
        "messages_mean": messages / 4,
        "recv_messages_max": max(recv),
        "bytes_max": max(sent_b),
        "bytes_mean": volume / 4,
        "primitives": SYNTHETIC_PRIMITIVES[workload],
        "matrix": matrix,
        "histogram": hist,
        "netsens_version": netsens.__version__,
    }


def synthetic_points() -> list[dict]:
    """The synthetic study as stored points (an axis value equal to the baseline's is
    the baseline point, not run twice)."""
    rows = []
    for workload in T0:
        for seed in SEEDS:
            base = synthetic_makespan(workload, seed, None, None)
            rows.append(_row(workload, seed, "baseline", {}, NOW1997, base))
            for axis, values in AXES.items():
                for x in values:
                    if x == NOW1997[axis]:
                        continue
                    params = NOW1997 | {axis: x}
                    overrides = {axis: f"{x}ps" if axis != "G" else f"{x}ps/B"}
                    makespan = synthetic_makespan(workload, seed, axis, x)
                    rows.append(_row(workload, seed, axis, overrides, params, makespan))
    return rows


@pytest.fixture(scope="module")
def synthetic() -> pl.DataFrame:
    # The baseline point is also on the curve of every axis, as a study that varies one
    # axis at a time stores it.
    return loaded_frame(synthetic_points(), keep_baseline_rows=True)


# The real study: radix and em3d-read, tiny, 4 ranks on now1997, o and L swept.
REAL_AXES = {"o": ["2.9us", "10us", "30us"], "L": ["5us", "20us", "50us"]}
REAL_WORKLOADS = ["radix", "em3d-read"]


def real_points() -> list[dict]:
    rows = []
    for workload in REAL_WORKLOADS:
        for seed in (0, 1):
            runs = [("baseline", {})]
            for axis, values in REAL_AXES.items():
                runs += [(axis, {axis: v}) for v in values[1:]]  # values[0] is the baseline
            for axis, overrides in runs:
                start = time.perf_counter()
                result = netsens.run(workload, "now1997", 4, "tiny", seed, overrides)
                wall_s = time.perf_counter() - start
                rows.append(
                    stored_row(
                        result, axis=axis, overrides=overrides, study="real-tiny", wall_s=wall_s
                    )
                )
    return rows


@pytest.fixture(scope="module")
def real_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    rows = real_points()
    return write_points(rows, tmp_path_factory.mktemp("real") / "results"), rows


# --- figures and tables from the synthetic study ---------------------------------


def test_a_slowdown_figure_per_swept_parameter_with_units(synthetic: pl.DataFrame) -> None:
    report = build_report(read_source(synthetic))
    titles = {f.name: f.x_title for f in report.slowdown}
    assert titles == {
        "slowdown_o": "overhead o (µs)",
        "slowdown_g": "gap g (µs)",
        "slowdown_L": "latency L (µs)",
        "slowdown_G": "gap per byte G (ns/B)",
    }
    assert all(f.y_title == "slowdown (×)" for f in report.slowdown)
    assert all({s.label for s in f.series} == set(T0) for f in report.slowdown)


@pytest.mark.parametrize("axis", list(AXES))
def test_slowdown_curves_are_the_median_over_seeds(synthetic: pl.DataFrame, axis: str) -> None:
    (fig,) = [
        f for f in build_report(read_source(synthetic)).slowdown if f.name == f"slowdown_{axis}"
    ]
    _, divisor = F.display_unit(PARAMETERS[axis].unit, AXES[axis])
    for s in fig.series:
        # slowdown(seed) = (T0 (1 + 0.01 seed) + SENS Δx) / (T0 (1 + 0.01 seed));
        # the median of two seeds is their mean.
        expected = []
        for x in AXES[axis]:
            per_seed = [
                synthetic_makespan(s.label, seed, axis, x)
                / synthetic_makespan(s.label, seed, None, None)
                for seed in SEEDS
            ]
            expected.append((float(np.mean(per_seed)), min(per_seed), max(per_seed)))
        assert s.x == pytest.approx([x / divisor for x in AXES[axis]])
        assert s.y == pytest.approx([e[0] for e in expected], rel=1e-12)
        assert s.y_lo == pytest.approx([e[1] for e in expected], rel=1e-12)
        assert s.y_hi == pytest.approx([e[2] for e in expected], rel=1e-12)
        assert s.y[0] == pytest.approx(1.0)  # the baseline point is on every curve


def test_heatmap_values_equal_the_matrix_input(synthetic: pl.DataFrame) -> None:
    report = build_report(read_source(synthetic))
    heatmaps = {h.title.split(": ")[1]: h for h, _ in report.comm_figures}
    assert set(heatmaps) == set(T0)
    for workload, heatmap in heatmaps.items():
        messages = np.zeros((4, 4), dtype=np.int64)
        for e in synthetic_matrix(workload):
            messages[e["src"], e["dst"]] = e["messages"]
        assert np.array_equal(heatmap.messages, messages)
        assert np.array_equal(heatmap.bytes, 8 * messages)
        drawn = F.to_plotly(heatmap)
        assert [list(row) for row in drawn.data[0].z] == messages.tolist()
        assert drawn.layout.xaxis.title.text == "receiver rank"
        assert drawn.layout.yaxis.title.text == "sender rank"


def test_histogram_has_every_power_of_two_bin(synthetic: pl.DataFrame) -> None:
    report = build_report(read_source(synthetic))
    (radix,) = [h for _, h in report.comm_figures if h.title.endswith("radix")]
    # 4-7 B and 64-127 B given: bins 4, 8, 16, 32, 64 with zeros between.
    assert radix.lo == [4, 8, 16, 32, 64]
    assert radix.hi == [7, 15, 31, 63, 127]
    assert radix.messages == [300, 0, 0, 0, 28]
    drawn = F.to_plotly(radix)
    assert drawn.layout.xaxis.title.text == "message size (B)"
    assert drawn.layout.yaxis.title.text == "messages"


def test_communication_table_by_hand(synthetic: pl.DataFrame) -> None:
    table = build_report(read_source(synthetic)).communication
    rows = {r[0]: dict(zip([h for h, _ in table.headers], r, strict=True)) for r in table.rows}
    radix = rows["radix"]
    # radix sends sum_s sum_d (10 (s+1) + d) = 10 * 10 * 4 + 4 * 6 = 424 messages.
    assert radix["messages per rank, mean"] == "106"
    # The busiest sender is rank 3: sum_d (40 + d) = 166.
    assert radix["messages per rank, max"] == "166"
    # 300 stores and 28 collective sends (barriers are not messages of a class).
    assert radix["writes share"] == f"{100 * 300 / 328:.1f}"
    assert radix["collective share"] == f"{100 * 28 / 328:.1f}"
    assert radix["reads share"] == "0.0"
    # 328 messages in the histogram: the 164th is in the 4-7 B bin.
    assert radix["median message size"] == "4–7"
    # 106 messages per rank over T0 = 20 ms (seed 0's baseline).
    assert radix["messages per rank per ms"] == "5.3"
    em3d = rows["em3d-read"]
    assert em3d["reads share"] == f"{100 * 60 / 70:.1f}"
    assert em3d["median message size"] == "8–15"
    assert table.headers[2] == ("run time", "ms")


def test_product_study_curves_are_slices_at_the_baseline(tmp_path: Path) -> None:
    # o x L, every combination, seed 0: the o curve is the slice at L = 5 µs (the
    # baseline's), so its slowdown is (T0 + SENS_o Δo) / T0 exactly.
    rows = [_row("radix", 0, "baseline", {}, NOW1997, synthetic_makespan("radix", 0, None, None))]
    t0 = T0["radix"]
    for o in AXES["o"]:
        for latency in AXES["L"]:
            params = NOW1997 | {"o": o, "L": latency}
            added = SENS["radix"]["o"] * (o - NOW1997["o"])
            added += SENS["radix"]["L"] * (latency - NOW1997["L"])
            overrides = {"o": f"{o}ps", "L": f"{latency}ps"}
            rows.append(_row("radix", 0, "product", overrides, params, round(t0 + added)))
    report = build_report(read_source(loaded_frame(rows, keep_baseline_rows=True)))
    by_name = {f.name: f for f in report.slowdown}
    assert set(by_name) == {"slowdown_o", "slowdown_L"}
    (o_curve,) = by_name["slowdown_o"].series
    expected = [(t0 + SENS["radix"]["o"] * (o - NOW1997["o"])) / t0 for o in AXES["o"]]
    assert o_curve.y == pytest.approx(expected, rel=1e-9)
    (l_curve,) = by_name["slowdown_L"].series
    expected = [(t0 + SENS["radix"]["L"] * (v - NOW1997["L"])) / t0 for v in AXES["L"]]
    assert l_curve.y == pytest.approx(expected, rel=1e-9)
    # Models and fits vary one parameter with the others at the baseline: none here.
    assert report.models == [] and report.fits == []
    assert report.models_note == "No model overlays: no model applies to the swept parameters."
    assert report.fits_note == "No fitted models: no curve has enough points to fit."


@pytest.fixture(scope="module")
def synthetic_report(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """`netsens report RESULTS` on the synthetic study's stored points."""
    results = write_points(synthetic_points(), tmp_path_factory.mktemp("synthetic") / "results")
    proc = subprocess.run(
        [sys.executable, "-m", "netsens", "report", results],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return results, proc


def test_cli_writes_the_report_and_prints_its_path(synthetic_report: tuple) -> None:
    results, proc = synthetic_report
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{results / 'report' / 'report.html'}\n"  # default: <results>/report
    assert "netsens report: slowdown figures (4)" in proc.stderr


def test_report_files_exist_and_are_not_empty(synthetic_report: tuple) -> None:
    results, proc = synthetic_report
    out = results / "report"
    text = (out / "report.html").read_text(encoding="utf-8")
    manifest = json.loads(text.split('id="netsens-figures">')[1].split("</script>")[0])
    # 4 slowdown figures, a matrix and a histogram per workload (+ model overlays if any).
    names = [m.removeprefix("fig-") for m in manifest]
    assert {n for n in names if n.startswith("slowdown_")} == {f"slowdown_{a}" for a in AXES}
    assert {n for n in names if n.startswith(("matrix_", "sizes_"))} == {
        "matrix_radix", "sizes_radix", "matrix_em3d-read", "sizes_em3d-read",
    }  # fmt: skip
    for name in names:
        png = out / "figures" / f"{name}.png"
        pdf = out / "figures" / f"{name}.pdf"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000
        assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 1000
    assert sorted(p.name for p in (out / "figures").iterdir()) == sorted(
        f"{n}.{ext}" for n in names for ext in ("png", "pdf")
    )
    assert text.count('class="plotly-graph-div"') == len(manifest)
    assert text.count("<script src=") == 0  # nothing fetched: plotly.js is inline
    assert "o = 2.9 µs" in text and "G = 26.32 ns/B" in text  # the baseline, with units


def test_a_study_file_reads_its_results_directory(tmp_path: Path) -> None:
    write_points(synthetic_points(), tmp_path / "res")
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "synthetic"\nresults = "res"\nplatform = "now1997"\n'
        'workloads = ["radix", "em3d-read"]\nsize = "tiny"\nranks = [4]\nseeds = 2\n'
        '[axes]\no = ["2.9us", "10us", "30us", "103us"]\n'
    )
    source = read_source(study)
    assert source.results_dir.resolve() == (tmp_path / "res").resolve()
    assert source.study_file == study
    assert set(source.frame["workload"].to_list()) == set(T0)


def test_a_frame_needs_an_output_directory(synthetic: pl.DataFrame) -> None:
    with pytest.raises(netsens.InputError, match="out_dir: required"):
        write_report(synthetic)


def test_model_overlays_are_the_models_slowdowns(synthetic: pl.DataFrame) -> None:
    # netsens.models' overhead model: T0 + 2·m·Δo, T0 the median over seeds of the
    # baseline run time, m the busiest sender's messages (radix: rank 3 sends
    # sum_d (40 + d) = 166).
    report = build_report(read_source(synthetic))
    by_name = {f.name: f for f in report.models}
    assert set(by_name) == {"model_o", "model_g", "model_L", "model_G"}
    fig = by_name["model_o"]
    assert fig.x_title == "overhead o (µs)"
    measured = next(s for s in fig.series if s.label == "radix: measured")
    model = next(s for s in fig.series if s.label == "radix: overhead model")
    assert model.dashed and not measured.dashed
    base = [synthetic_makespan("radix", s, None, None) for s in SEEDS]
    t0 = float(np.median(base))
    predicted = [t0 + 2 * 166 * (x - NOW1997["o"]) for x in AXES["o"]]
    assert model.y == pytest.approx([p / t0 for p in predicted], rel=1e-12)
    slowdowns = [
        np.median(
            [synthetic_makespan("radix", s, "o", x) / b for s, b in zip(SEEDS, base, strict=True)]
        )
        for x in AXES["o"]
    ]
    assert measured.y == pytest.approx(slowdowns, rel=1e-12)
    assert measured.y[0] == pytest.approx(1.0)
    # The error table: |predicted / measured - 1|, measured the median run time.
    errors = [
        abs(p / np.median([synthetic_makespan("radix", s, "o", x) for s in SEEDS]) - 1)
        for p, x in zip(predicted, AXES["o"], strict=True)
    ]
    (row,) = [r for r in report.model_errors.rows if r[:3] == ["radix", "overhead o", "overhead"]]
    assert row[3:] == ["4", f"{100 * np.mean(errors):.1f}", f"{100 * max(errors):.1f}"]


def test_fit_tables_one_per_parameter_with_units(synthetic: pl.DataFrame) -> None:
    fits = dict(build_report(read_source(synthetic)).fits)
    assert list(fits) == ["overhead o", "gap g", "latency L", "gap per byte G"]
    headers = dict(fits["overhead o"].headers)
    assert headers["slope"] == "s per µs" and headers["breakpoint"] == "µs"
    assert headers["range"] == "µs" and headers["knee"] == "µs"
    assert dict(fits["gap per byte G"].headers)["slope"] == "s per ns/B"
    table = fits["overhead o"]
    rows = {r[0]: dict(zip([h for h, _ in table.headers], r, strict=True)) for r in table.rows}
    # radix: 6000 ps of run time per ps of o = 6000 µs per µs = 0.006 s per µs (the
    # median of two seeds is their mean, so the line keeps that slope).
    assert rows["radix"]["slope"] == "0.006"
    assert rows["radix"]["range"] == "2.9–103" and rows["radix"]["knee"] == "—"
    assert rows["radix"]["R²"] == "1.0000"


# --- the command line ------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = cli.main(["report", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_missing_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, tmp_path / "nowhere")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith("netsens: error: ") and "nowhere" in err and "no such" in err


def test_cli_empty_results(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "results" / "points").mkdir(parents=True)
    code, out, err = run_cli(capsys, tmp_path / "results")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no stored points" in err


def test_cli_study_without_results(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    study = tmp_path / "s.toml"
    study.write_text('name = "s"\nworkloads = ["radix"]\nranks = [4]\n[axes]\nL = ["5us"]\n')
    code, out, err = run_cli(capsys, study)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("netsens: error: ")


def _empty_file(path: Path) -> Path:
    path.write_text("")
    return path


@pytest.mark.parametrize(
    "make",
    [
        lambda p: p / "nowhere",
        lambda p: p,
        lambda p: (p / "points").mkdir() or p,
        lambda p: _empty_file(p / "x.txt"),
    ],
    ids=["missing", "empty", "no-points", "not-a-study"],
)
def test_report_and_explain_say_the_same(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make: Any
) -> None:
    target = make(tmp_path)
    said = []
    for command in ("report", "explain"):
        assert cli.main([command, str(target)]) == 2
        said.append(capsys.readouterr().err)
    assert said[0] == said[1] and said[0].count("\n") == 1


# --- the page in headless Chromium -----------------------------------------------

CHROMIUM = "/usr/bin/chromium"


def ensure_chromium() -> str:
    """Debian's chromium (and playwright's Python driver): installed when missing, as
    `make test-deps` does, so a fresh Debian 12 CI box running as root needs nothing."""
    if not os.path.exists(CHROMIUM):
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            pytest.fail("headless Chromium is missing: run `make test-deps` as root")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update"], check=True, env=env, capture_output=True)
        subprocess.run(
            ["apt-get", "install", "-y", "--no-install-recommends", "chromium"],
            check=True, env=env, capture_output=True,
        )  # fmt: skip
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "playwright>=1.40"], check=True
        )
    return CHROMIUM


def test_every_figure_renders_in_headless_chromium(
    real_results: tuple[Path, list[dict]], tmp_path: Path
) -> None:
    chromium = ensure_chromium()
    from playwright.sync_api import sync_playwright

    results, rows = real_results
    proc = subprocess.run(
        [sys.executable, "-m", "netsens", "report", results, "--out", tmp_path / "report"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    page_path = Path(proc.stdout.strip())
    assert page_path == tmp_path / "report" / "report.html"

    problems: list[str] = []
    outside: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})

        def on_console(message: Any) -> None:
            if message.type in ("error", "warning"):
                problems.append(f"console {message.type}: {message.text}")

        def on_request(request: Any) -> None:
            if not request.url.startswith(("file:", "data:", "blob:")):
                outside.append(request.url)  # the page must work offline

        page.on("console", on_console)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
        page.on("request", on_request)
        page.goto(page_path.as_uri(), wait_until="load")
        ids = page.evaluate("JSON.parse(document.getElementById('netsens-figures').textContent)")
        page.wait_for_function(
            """ids => ids.every(id => {
                const d = document.getElementById(id);
                return d && d.querySelector('svg.main-svg') && d._fullLayout;
            })""",
            arg=ids,
            timeout=60_000,
        )
        state = page.evaluate(
            """ids => ids.map(id => {
                const d = document.getElementById(id);
                return {id, svgs: d.querySelectorAll('svg.main-svg').length,
                        traces: d.data.length, type: d.data[0] && d.data[0].type,
                        drawn: d.querySelectorAll('.trace, .hm, image').length,
                        text: d.innerText, z: d.data[0] && d.data[0].z,
                        xtitle: d._fullLayout.xaxis.title.text,
                        ytitle: d._fullLayout.yaxis.title.text};
            })""",
            ids,
        )
        divs = page.evaluate("document.querySelectorAll('.plotly-graph-div').length")
        browser.close()

    assert problems == [] and outside == []
    assert divs == len(ids)
    by_id = {s["id"]: s for s in state}
    # o and L swept; a matrix and a histogram per workload.
    assert {i for i in by_id if i.startswith("fig-slowdown_")} == {
        "fig-slowdown_o",
        "fig-slowdown_L",
    }
    assert {i for i in by_id if i.startswith(("fig-matrix_", "fig-sizes_"))} == {
        f"fig-{kind}_{w}" for kind in ("matrix", "sizes") for w in REAL_WORKLOADS
    }
    for s in state:
        assert s["svgs"] >= 1 and s["drawn"] >= 1, s["id"]
        assert "Error" not in s["text"], s["id"]
        assert "(" in s["xtitle"] or s["xtitle"].endswith("rank"), s  # a unit on every axis
    assert by_id["fig-slowdown_o"]["xtitle"] == "overhead o (µs)"
    assert by_id["fig-slowdown_L"]["ytitle"] == "slowdown (×)"
    assert by_id["fig-slowdown_o"]["traces"] == len(REAL_WORKLOADS)
    # The heatmap the browser holds is the stored matrix of the baseline point, seed 0.
    for workload in REAL_WORKLOADS:
        (base,) = [
            r for r in rows if (r["workload"], r["axis"], r["seed"]) == (workload, "baseline", 0)
        ]
        expected = np.zeros((4, 4), dtype=np.int64)
        for e in base["matrix"]:
            expected[e["src"], e["dst"]] += e["messages"]
        heat = by_id[f"fig-matrix_{workload}"]
        assert heat["type"] == "heatmap" and heat["xtitle"] == "receiver rank"
        assert np.array_equal(np.array(heat["z"]), expected)
