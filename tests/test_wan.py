"""The wide-area suite's variants through the command line, the Python API and study
files: `--variant` picks a form, applications without variants refuse it with one line
and exit code 2, and a study runs each variant as its own workload."""

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from netsens import NetsensError, run_app
from netsens.study.definition import Study, StudyError, point_id
from netsens.study.sweep import run_study

ROOT = Path(__file__).resolve().parent.parent


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def app_run(app: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return netsens(
        "run",
        "--app",
        app,
        "--ranks",
        8,
        "--size",
        "tiny",
        "--platform",
        "das1998",
        "--clusters",
        "2x4",
        *flags,
    )


@pytest.mark.parametrize(
    ("variant", "messages"), [("original", 544), ("original-messages", 112), ("optimized", 112)]
)
def test_water_runs_each_variant_and_names_it(variant, messages):
    proc = app_run("water", "--variant", variant, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["app"], result["variant"], result["verified"]) == ("water", variant, True)
    # tiny water on 8 ranks, 2 steps (water.rs): message passing sends one positions
    # and one forces message per pair of ranks and step, 2 · 8 · 7 = 112; the original
    # reads and updates each of the 112 molecules the ranks need, one operation each,
    # and passes two barriers of 24 messages: 2 · (2 · 112 + 48) = 544.
    assert result["messages"] == messages


@pytest.mark.parametrize(("variant", "per_step"), [("original-messages", 112), ("optimized", 70)])
def test_bh_runs_each_variant_through_the_command_line(variant, per_step):
    # tiny bh on 2 x 4, per step (bh.rs): original-messages 2 · 8 · 7 = 112; optimized boxes
    # 2·4·3 + 2·1 + 2·3 = 32 and trees 2·4·3 + 2·3 + 2·1 + 2·1·3 = 38; 2 steps.
    proc = app_run("bh", "--variant", variant, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["app"], result["variant"], result["verified"]) == ("bh", variant, True)
    assert result["messages"] == 2 * per_step


@pytest.mark.parametrize(("variant", "per_round"), [("original", 56), ("optimized", 38)])
def test_awari_runs_each_variant_through_the_command_line(variant, per_round):
    # tiny awari on 2 x 4, per round (awari.rs): original 8 · 7 = 56; optimized
    # 2·4·3 + 2·3 + 2·1 + 2·3 = 38. Rank 0 counts each round once.
    proc = app_run("awari", "--variant", variant, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["app"], result["variant"], result["verified"]) == ("awari", variant, True)
    (rounds,) = [
        p["count"] for p in result["primitives"] if p["rank"] == 0 and p["primitive"] == "round"
    ]
    assert rounds >= 4 and result["messages"] == per_round * rounds


def test_the_default_variant_is_optimized():
    proc = app_run("asp", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["variant"] == "optimized"


@pytest.mark.parametrize(
    ("app", "variant", "message"),
    [
        ("radix", "original", "radix has no variants; --variant applies to"),
        ("fft1d", "optimized", "fft1d has no optimized variant"),
        ("water", "fast", 'unknown variant "fast" for water'),
        ("awari", "best", 'unknown variant "best" for awari'),
    ],
)
def test_a_variant_an_application_lacks_is_one_line_and_exit_2(app, variant, message):
    proc = app_run(app, "--variant", variant)
    assert proc.returncode == 2
    assert proc.stderr.startswith("netsens: error: ") and message in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_variant_is_for_app_programs_only():
    proc = netsens("run", "--goal", "examples/goal/pingpong.goal", "--variant", "original")
    assert proc.returncode == 2 and "--variant is for --app" in proc.stderr


def test_python_api_takes_the_variant():
    over = {"clusters": "2x4"}
    a = run_app("tsp", 8, "tiny", "das1998", over, variant="original")
    assert a["variant"] == "original" and a["verified"]
    # The central queue: 2 · (56 jobs + 7 workers) messages plus the check's two
    # reduces (7 each) on 8 ranks (tsp.rs).
    assert a["messages"] == 2 * (56 + 7) + 2 * 7
    with pytest.raises(NetsensError, match="radix has no variants"):
        run_app("radix", 8, "tiny", "das1998", over, variant="optimized")


def make(tmp_path: Path, **fields) -> Study:
    fields.setdefault("ranks", [8])
    fields.setdefault("size", "tiny")
    fields.setdefault("baseline", {"clusters": "2x4"})
    fields.setdefault("axes", {"wan_latency": ["1ms", "3ms"]})
    return Study(name="w", platform="das1998", base_dir=tmp_path, **fields)


def test_a_study_runs_each_variant_as_its_own_workload(tmp_path):
    study = make(
        tmp_path, workloads=["water", "fft1d", "radix"], variants=["original", "optimized"]
    )
    labels = sorted({p.workload for p in study.points()})
    # fft1d has only the original; radix has no variants and keeps its plain name.
    assert labels == ["fft1d:original", "radix", "water:optimized", "water:original"]
    # 4 workloads x (baseline + 2 latencies): 12 points, every id distinct.
    points = study.points()
    assert len(points) == 12 and len({p.point_id for p in points}) == 12
    water = next(p for p in points if p.workload == "water:original" and p.axis == "baseline")
    assert (water.app, water.variant) == ("water", "original")
    assert water.point_id == point_id("water:original", "tiny", 8, "das1998", 0, water.overrides)


def test_a_study_of_variants_sweeps_and_resumes(tmp_path):
    study = make(tmp_path, workloads=["asp"], variants=["original", "optimized"])
    first = run_study(study, jobs=1, progress=False)
    assert first.ok and first.done == 6
    again = run_study(study, jobs=1, progress=False)
    assert again.ok and again.done == 0 and again.stored == 6


def test_an_unknown_variant_in_a_study_is_refused(tmp_path):
    with pytest.raises(StudyError, match="variants: unknown variant 'best'"):
        make(tmp_path, workloads=["asp"], variants=["best"])


def test_the_wide_area_study_files_read():
    # 11 workloads (water, bh, tsp, asp, awari in two variants, fft1d in one) x
    # (6 bandwidths x 8 latencies + the baseline) = 539 points.
    assert len(Study.from_toml(ROOT / "studies/das1998.toml").points()) == 11 * 49
    # 11 workloads x 3 rank counts, the one-value axis being the baseline itself.
    assert len(Study.from_toml(ROOT / "studies/das1998-reference.toml").points()) == 33
    # 11 workloads x 3 shapes (4x8 being the baseline too).
    assert len(Study.from_toml(ROOT / "studies/das1998-structures.toml").points()) == 33
    for shape in ("star", "ring"):
        study = Study.from_toml(ROOT / f"studies/das1998-{shape}.toml")
        assert len(study.points()) == 11
        assert all(p.overrides.get("wan_shape") == shape for p in study.points())


def test_the_report_has_a_wide_area_section_and_explain_names_the_gaps(tmp_path):
    from netsens.report.page import write_report
    from netsens.report.wan import gaps, wide_area_points
    from netsens.study.store import load

    study = make(
        tmp_path,
        workloads=["asp"],
        variants=["optimized"],
        baseline={"clusters": "8"},
        axes={
            "clusters": ["2x4"],
            "wan_bandwidth": ["3MB/s", "10kB/s"],
            "wan_latency": ["3ms", "300ms"],
        },
        combine="product",
    )
    assert run_study(study, jobs=1, progress=False).ok
    frame = load(study.results_dir)
    base = frame.filter(pl.col("axis") == "baseline")["makespan_ps"][0]
    grid = wide_area_points(frame)
    # Relative speedup is the one-cluster run's time over the wide-area run's.
    for row in grid.iter_rows(named=True):
        assert row["speedup"] == pytest.approx(base / row["makespan_ps"])
    # tiny asp on one cluster: 24 steps of a few 18 us hops, about 1 ms. Over the wide
    # area each of the 24 rows crosses a >= 3 ms link before the next step can use it:
    # at least 72 ms, a speedup near 0.01, below 40 % from the first point on.
    (row,) = gaps(frame)
    assert row["bandwidth_40_throughout"] and row["latency_40_throughout"]
    assert row["bandwidth_40_Bps"] is None and row["latency_40_ps"] is None
    page = write_report(study.results_dir, tmp_path / "report")
    assert "<h2>Wide area</h2>" in page.read_text()
    for name in ("wan-speedup-bandwidth", "wan-speedup-map", "wan-share"):
        for suffix in (".png", ".pdf"):
            assert (tmp_path / "report" / "figures" / f"{name}{suffix}").stat().st_size > 0
    proc = netsens("explain", study.results_dir)
    assert proc.returncode == 0, proc.stderr
    assert "wide-area gaps" in proc.stdout and "below throughout" in proc.stdout


def test_gaps_are_where_speedup_first_falls_below_60_and_40_percent():
    from netsens.report.wan import gaps

    # Speedups by hand (slowdown = 1/speedup) on das1998's local network, 1/G = 50 MB/s,
    # L + 2o = 18 us. At 3 ms: 10 MB/s 0.9, 1 MB/s 0.5, 0.1 MB/s 0.3: below 60 % first
    # at 1 MB/s (gap 50), below 40 % at 0.1 MB/s (gap 500). At 3 MB/s: 1 ms 0.8, 3 ms
    # 0.7, 30 ms 0.45, 300 ms 0.2: below 60 % at 30 ms (gap 30000/18), below 40 % at
    # 300 ms (gap 300000/18).
    ms = 10**9
    cells = [(10e6, 3 * ms, 0.9), (1e6, 3 * ms, 0.5), (0.1e6, 3 * ms, 0.3)]
    cells += [(3e6, ms, 0.8), (3e6, 3 * ms, 0.7), (3e6, 30 * ms, 0.45), (3e6, 300 * ms, 0.2)]
    frame = pl.DataFrame(
        {
            "workload": ["asp:optimized"] * len(cells),
            "axis": ["product"] * len(cells),
            "wan_bandwidth_Bps": [c[0] for c in cells],
            "wan_latency_ps": [c[1] for c in cells],
            "slowdown": [1 / c[2] for c in cells],
            "G_ps_per_B": [20_000.0] * len(cells),
            "L_ps": [14_000_000] * len(cells),
            "o_ps": [2_000_000] * len(cells),
        }
    )
    (row,) = gaps(frame)
    assert (row["bandwidth_60_Bps"], row["bandwidth_40_Bps"]) == (1e6, 0.1e6)
    assert row["bandwidth_gap_60"] == pytest.approx(50)
    assert row["bandwidth_gap_40"] == pytest.approx(500)
    assert (row["latency_60_ps"], row["latency_40_ps"]) == (30 * ms, 300 * ms)
    assert row["latency_gap_60"] == pytest.approx(30_000 / 18)
    assert row["latency_gap_40"] == pytest.approx(300_000 / 18)


def test_clusters_all_makes_one_cluster_in_a_study(tmp_path):
    # das1998 has 4 x 8 clusters; "all" makes one cluster of whatever the ranks are,
    # so 1 and 8 ranks run (with 4 x 8 they could not).
    study = make(tmp_path, workloads=["asp"], ranks=[1, 8], baseline={"clusters": "all"})
    assert {p.overrides["clusters"] for p in study.points()} == {"all"}
    summary = run_study(study, jobs=1, progress=False)
    assert summary.ok and summary.done == 6
