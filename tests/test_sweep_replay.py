"""A sweep runs a timing-independent program once per key and its recorded schedule at
the key's other points: every stored point equals the program's full run of that
point (the Parquet tables of both ways are the same but for the wall time and the
column saying how each point was produced), at points far from the baseline (o x100,
L x1000, G x10, wide-area links at 1 MB/s and 30 ms); programs whose ops can depend on
timing (tsp's work stealing) and GOAL files run in full; an interrupted fast sweep
resumes to the same table.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from netsens.study import produce
from netsens.study.definition import Study
from netsens.study.sweep import run_study

ROOT = Path(__file__).resolve().parent.parent

# loggopsim: L 2.5 us, o 1.5 us, G 6 ns/B; the axes' points are 1000x, 100x and 10x those.
LAN = """name = "lan"
platform = "loggopsim"
workloads = ["radix", "em3d-write", "mg", "tsp", "pingpong.goal"]
size = "tiny"
ranks = [8]
seeds = 2
[axes]
o = ["150us"]
L = ["2.5ms"]
G = ["60ns/B"]
"""
# das1998's baseline is one cluster of 8; its points two clusters of 4 over slow links.
WAN = """name = "wan"
platform = "das1998"
workloads = ["water", "asp"]
variants = ["original", "optimized"]
size = "tiny"
ranks = [8]
seeds = 1
combine = "product"
[baseline]
clusters = "8"
[axes]
clusters = ["2x4"]
wan_bandwidth = ["1MB/s", "10MB/s"]
wan_latency = ["30ms", "1ms"]
"""


def table(root: Path) -> pl.DataFrame:
    frame = pl.read_parquet(root / "points" / "*.parquet")
    return frame.drop("wall_s", "produced").sort("point_id")


def sweep_both_ways(
    tmp_path: Path, text: str, jobs: int
) -> tuple[pl.DataFrame, pl.DataFrame, Path]:
    path = tmp_path / "study.toml"
    path.write_text(text)
    shutil.copy(ROOT / "examples/goal/pingpong.goal", tmp_path / "pingpong.goal")
    fast, full = tmp_path / "fast", tmp_path / "full"
    a = run_study(Study.from_toml(path, results=fast), jobs=jobs, progress=False)
    b = run_study(Study.from_toml(path, results=full), jobs=jobs, progress=False, full=True)
    assert (a.failed, b.failed) == (0, 0)
    assert b.produced == {produce.FULL: b.done}
    return pl.read_parquet(fast / "points" / "*.parquet"), table(full), fast


def produced_by(frame: pl.DataFrame, workload: str) -> list[str]:
    return sorted(frame.filter(pl.col("workload") == workload)["produced"].to_list())


def test_a_fast_sweep_stores_what_full_runs_store_on_one_cluster(tmp_path):
    fast, full, root = sweep_both_ways(tmp_path, LAN, jobs=2)
    assert full.height == 5 * 2 * 4  # workloads x seeds x (baseline + 3 axes' points)
    assert fast.drop("wall_s", "produced").sort("point_id").equals(full)
    # Far from the baseline: L x1000 makes every makespan at least 1000x L longer.
    assert (full.filter(pl.col("axis") == "L")["makespan_ps"] > 2_500_000_000).all()
    for app in ["radix", "em3d-write", "mg"]:
        how = produced_by(fast, app)
        # Each of 2 workers records a key at most once: 2 seeds, 4 points each.
        assert how.count(produce.RECORDED) in range(2, 5), (app, how)
        assert how.count(produce.REPLAY) == 8 - how.count(produce.RECORDED), (app, how)
    assert produced_by(fast, "tsp") == [produce.FULL] * 8
    assert produced_by(fast, "pingpong.goal") == [produce.FULL] * 8
    # Interrupted: points lost are run again, by schedule or program, to the same table.
    for path in sorted((root / "points").glob("*.parquet"))[::5]:
        path.unlink()
    again = run_study(
        Study.from_toml(tmp_path / "study.toml", results=root), jobs=1, progress=False
    )
    assert again.done == 8 and again.failed == 0
    assert table(root).equals(full)


def test_a_fast_sweep_stores_what_full_runs_store_over_a_slow_wide_area(tmp_path):
    fast, full, _ = sweep_both_ways(tmp_path, WAN, jobs=1)
    assert fast.drop("wall_s", "produced").sort("point_id").equals(full)
    slowest = full.filter(
        (pl.col("wan_latency_ps") == 30_000_000_000) & (pl.col("wan_bandwidth_Bps") == 1e6)
    )
    assert slowest.height == 4 and (slowest["makespan_ps"] > 30_000_000_000).all()
    for workload in ["water:original", "water:optimized", "asp:original", "asp:optimized"]:
        # One worker: the one-cluster baseline and the first point on two clusters (the
        # program sees other clusters) are recorded; the 3 others replay the second.
        how = produced_by(fast, workload)
        assert how == [produce.RECORDED] * 2 + [produce.REPLAY] * 3, (workload, how)


def test_a_schedule_is_refused_where_the_program_sees_another_platform(tmp_path):
    cache = produce.ScheduleCache()
    study = Study.from_toml(_write(tmp_path, WAN))
    baseline, far = study.points()[0], study.points()[1]
    assert baseline.axis == "baseline" and far.overrides["clusters"] == "2x4"
    assert produce.app_point(baseline, cache=cache)["produced"] == produce.RECORDED
    assert produce.app_point(far, cache=cache)["produced"] == produce.RECORDED
    assert produce.app_point(baseline, cache=cache)["produced"] == produce.REPLAY
    assert len(cache.candidates(produce.key_of(far))) == 2
    assert produce.app_point(far, full=True, cache=cache)["produced"] == produce.FULL


def test_the_cache_keeps_the_newest_schedule_within_its_bytes(tmp_path):
    study = Study.from_toml(_write(tmp_path, LAN))
    radix = [p for p in study.points() if p.workload == "radix"]
    cache = produce.ScheduleCache(limit_bytes=1)
    produce.app_point(radix[0], cache=cache)
    other_seed = next(p for p in radix if p.seed != radix[0].seed)
    produce.app_point(other_seed, cache=cache)
    # Over its limit, only the newest key is kept.
    assert list(cache.schedules) == [produce.key_of(other_seed)]


def test_sweep_command_states_how_points_were_produced_and_full_forces_runs(tmp_path):
    path = _write(
        tmp_path,
        LAN.replace('"mg", "tsp", "pingpong.goal"', '"tsp"').replace("seeds = 2", "seeds = 1"),
    )
    run = [sys.executable, "-m", "netsens", "sweep", str(path), "--jobs", "1"]
    out = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    # radix and em3d-write: one recorded, 3 replayed each; tsp in full.
    assert (
        "produced: 6 points by a recorded schedule, 2 by the program recording its "
        "schedule, 4 by the program in full" in out.stdout
    )
    assert "can depend on timing in tsp" in out.stdout
    forced = run + ["--full", "--results", str(tmp_path / "forced")]
    out = subprocess.run(forced, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert (
        "produced: 0 points by a recorded schedule, 0 by the program recording its "
        "schedule, 12 by the program in full" in out.stdout
    )


@pytest.mark.parametrize("flag", ["--full=yes"])
def test_full_takes_no_value(tmp_path, flag):
    path = _write(tmp_path, LAN)
    out = subprocess.run(
        [sys.executable, "-m", "netsens", "sweep", str(path), flag],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "--full" in out.stderr


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(text)
    shutil.copy(ROOT / "examples/goal/pingpong.goal", tmp_path / "pingpong.goal")
    return path
