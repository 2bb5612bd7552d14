"""The study report: figures, tables and the HTML page, checked in headless Chromium.

Results come two ways, both in the stored-point schema of netsens.study.store: a
synthetic study whose run times follow a formula (so every slowdown is known by
hand), and a small real one run with netsens.run (radix and em3d-read, tiny, 4 ranks,
o and L swept), both built in report_study.py. Expected numbers are derived from
those inputs, never read back from the report's own output.
"""

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from frames import loaded_frame
from report_study import (
    AXES,
    NOW1997,
    REAL_WORKLOADS,
    SEEDS,
    SENS,
    T0,
    real_points,
    synthetic_makespan,
    synthetic_matrix,
    synthetic_points,
    synthetic_row,
    write_points,
)

import netsens
from netsens.cli import main as cli
from netsens.parameters import PARAMETERS
from netsens.report import draw as D
from netsens.report import figures as F
from netsens.report.page import build_report, read_source, write_report


@pytest.fixture(scope="module")
def synthetic() -> pl.DataFrame:
    # The baseline point is also on the curve of every axis, as a study that varies one
    # axis at a time stores it.
    return loaded_frame(synthetic_points(), keep_baseline_rows=True)


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
        drawn = D.to_plotly(heatmap)
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
    drawn = D.to_plotly(radix)
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
    rows = [
        synthetic_row(
            "radix", 0, "baseline", {}, NOW1997, synthetic_makespan("radix", 0, None, None)
        )
    ]
    t0 = T0["radix"]
    for o in AXES["o"]:
        for latency in AXES["L"]:
            params = NOW1997 | {"o": o, "L": latency}
            added = SENS["radix"]["o"] * (o - NOW1997["o"])
            added += SENS["radix"]["L"] * (latency - NOW1997["L"])
            overrides = {"o": f"{o}ps", "L": f"{latency}ps"}
            rows.append(synthetic_row("radix", 0, "product", overrides, params, round(t0 + added)))
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
    # netsens.models.martin' overhead model: T0 + 2·m·Δo, T0 the median over seeds of the
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


@contextmanager
def drawn_in_chromium(page_path: Path) -> Iterator[tuple[Any, list[str]]]:
    """The page opened offline in headless Chromium, every figure it lists drawn: yields
    the page and the figures' ids. On leaving, the page must have logged no console
    error or warning and no page error, failed no request, and asked for nothing
    outside itself (it must work offline)."""
    chromium = ensure_chromium()
    from playwright.sync_api import sync_playwright

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
                outside.append(request.url)

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
        yield page, ids
        browser.close()
    assert problems == [] and outside == []


def test_every_figure_renders_in_headless_chromium(
    real_results: tuple[Path, list[dict]], tmp_path: Path
) -> None:
    results, rows = real_results
    proc = subprocess.run(
        [sys.executable, "-m", "netsens", "report", results, "--out", tmp_path / "report"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    page_path = Path(proc.stdout.strip())
    assert page_path == tmp_path / "report" / "report.html"

    with drawn_in_chromium(page_path) as (page, ids):
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
