"""Sweeps and the results store: stored values, slowdown, resume after a kill, failures.

The ping-pong GOAL file (examples/goal/pingpong.goal) has a makespan derivable by hand:
rank 0 sends at 0 (cpu o), the message arrives at o + L, rank 1 receives (cpu 2o + L)
and replies at once, the reply arrives at 3o + 2L and rank 0 receives it at 4o + 2L.
On loggopsim (o = 1.5us, L = 2.5us) that is 11us; every extra dL adds exactly 2 dL.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl
import pytest

import netsens
from netsens.study import store
from netsens.study.definition import Study
from netsens.study.sweep import run_study

ROOT = Path(__file__).resolve().parent.parent
PINGPONG = ROOT / "examples/goal/pingpong.goal"
US = 1_000_000  # ps
DEADLOCK_GOAL = "num_ranks 2\n\nrank 0 {\nl1: recv 1b from 1 tag 0\n}\n\nrank 1 {\n}\n"


def pingpong_makespan(o_us: float, l_us: float) -> int:
    return round((4 * o_us + 2 * l_us) * US)


def netsens_cli(*args: object, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=300)


def write_study(directory: Path, text: str) -> Path:
    shutil.copy(PINGPONG, directory / "pingpong.goal")
    path = directory / "study.toml"
    path.write_text(text)
    return path


def snapshot(points_dir: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in points_dir.glob("*")}


@pytest.fixture(scope="module")
def pingpong_study(tmp_path_factory) -> Study:
    """L at 5us and 10us, o at 3us, on the ping-pong; run once for the module."""
    directory = tmp_path_factory.mktemp("pingpong")
    path = write_study(
        directory,
        'name = "pp"\nworkloads = ["pingpong.goal"]\n[axes]\nL = ["5us", "10us"]\no = ["3us"]\n',
    )
    study = Study.from_toml(path)
    summary = run_study(study, jobs=2, progress=False)
    assert (summary.total, summary.done, summary.stored, summary.failed) == (4, 4, 0, 0)
    return study


def test_makespan_and_slowdown_by_hand(pingpong_study):
    frame = netsens.results(pingpong_study)
    rows = frame.select("axis", "value", "value_unit", "makespan_ps").rows()
    base = pingpong_makespan(1.5, 2.5)  # 11 us
    assert base == 11 * US
    assert rows == [
        ("baseline", None, None, base),
        ("L", 2.5 * US, "ps", base),  # the baseline point is on every axis's curve
        ("L", 5 * US, "ps", pingpong_makespan(1.5, 5)),
        ("L", 10 * US, "ps", pingpong_makespan(1.5, 10)),
        ("o", 1.5 * US, "ps", base),
        ("o", 3 * US, "ps", pingpong_makespan(3, 2.5)),
    ]
    assert frame["slowdown"].to_list() == pytest.approx([1, 1, 16 / 11, 26 / 11, 1, 17 / 11])
    # Ping-pong grows by exactly 2 dL: from L = 5us to 10us, 10us more.
    by_l = dict(frame.filter(pl.col("axis") == "L").select("value", "makespan_ps").rows())
    assert by_l[10 * US] - by_l[5 * US] == 2 * 5 * US
    assert frame["baseline_makespan_ps"].to_list() == [base] * 6
    # The baseline point's rows, on whichever curve: L = 2.5 us and o = 1.5 us are it.
    assert frame["is_baseline"].to_list() == [True, True, False, False, True, False]


def test_stored_columns(pingpong_study):
    frame = store.load(pingpong_study.results_dir)
    row = frame.filter(pl.col("axis") == "L", pl.col("value") == 5 * US).row(0, named=True)
    assert json.loads(row["overrides"]) == {"L": "5us"}
    assert (row["workload"], row["workload_kind"], row["size"], row["ranks"]) == (
        "pingpong.goal",
        "goal",
        None,
        2,
    )
    # The resolved loggopsim platform with L = 5us, each in its column's unit.
    assert (row["L_ps"], row["o_ps"], row["g_ps"]) == (5 * US, 1.5 * US, 1 * US)
    assert (row["G_ps_per_B"], row["O_ps_per_B"], row["S_B"]) == (6000.0, 0.0, 65535.0)
    assert (row["wan_latency_ps"], row["wan_bandwidth_Bps"], row["clusters"]) == (None,) * 3
    assert (row["cpu_speed"], row["verified"], row["study"]) == (1.0, None, "pp")
    # Two 1-byte messages, one each way.
    assert (row["messages"], row["bytes"], row["messages_max"], row["bytes_max"]) == (2, 2, 1, 1)
    assert (row["messages_mean"], row["bytes_mean"], row["recv_messages_max"]) == (1.0, 1.0, 1)
    matrix = sorted((m["src"], m["dst"], m["messages"], m["bytes"]) for m in row["matrix"])
    assert matrix == [(0, 1, 1, 1), (1, 0, 1, 1)]
    assert sum(h["messages"] for h in row["histogram"]) == 2
    assert row["primitives"] == []  # a GOAL file has no primitive counters
    assert row["netsens_version"] == netsens.__version__
    assert frame.schema == pl.Schema(store.SCHEMA | store.DERIVED)


def test_duckdb_reads_the_points(pingpong_study):
    # docs/reference/study-file.md's query: one stored row per point, in its first curve.
    points = pingpong_study.results_dir / "points"
    query = f"SELECT axis, makespan_ps FROM '{points}/*.parquet' ORDER BY makespan_ps"
    rows = duckdb.sql(query).fetchall()
    assert rows == [
        ("baseline", 11 * US),
        ("L", 16 * US),
        ("o", 17 * US),
        ("L", 26 * US),
    ]


def test_documented_duckdb_queries(pingpong_study):
    # Every query of docs/reference/study-file.md runs against a results directory; the slowdown
    # query gives the ping-pong's o = 3us point: (4 x 3 + 2 x 2.5) / 11 = 17/11.
    text = (ROOT / "docs/reference/study-file.md").read_text()
    block = re.search(r"## Querying with DuckDB.*?```sql\n(.*?)```", text, re.S).group(1)
    queries = [
        q for q in block.replace("results/quick", str(pingpong_study.results_dir)).split(";")
    ]
    results = [duckdb.sql(q).fetchall() for q in queries if q.strip()]
    assert len(results) == 4
    assert results[1] == [("pingpong.goal", 3.0, pytest.approx(17 / 11))]
    assert results[2] == [(4,)]


def test_rerun_computes_nothing(pingpong_study):
    points = pingpong_study.results_dir / "points"
    before = snapshot(points)
    summary = run_study(pingpong_study, jobs=2, progress=False)
    assert (summary.total, summary.done, summary.stored) == (4, 0, 4)
    assert snapshot(points) == before


def test_results_command(pingpong_study):
    proc = netsens_cli("results", pingpong_study.results_dir)
    assert proc.returncode == 0, proc.stderr
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in proc.stdout.splitlines()]
    rows = [r for r in rows if r and r[0] == "pingpong.goal"]
    assert rows == [
        ["pingpong.goal", "2", "baseline", "-", "11 us", "1.000x", "1"],
        ["pingpong.goal", "2", "L", "2.5 us", "11 us", "1.000x", "1"],
        ["pingpong.goal", "2", "L", "5 us", "16 us", "1.455x", "1"],
        ["pingpong.goal", "2", "L", "10 us", "26 us", "2.364x", "1"],
        ["pingpong.goal", "2", "o", "1.5 us", "11 us", "1.000x", "1"],
        ["pingpong.goal", "2", "o", "3 us", "17 us", "1.545x", "1"],
    ]
    as_json = json.loads(netsens_cli("results", pingpong_study.results_dir, "--json").stdout)
    assert [r["makespan_ps"] for r in as_json] == [
        11 * US,
        11 * US,
        16 * US,
        26 * US,
        11 * US,
        17 * US,
    ]
    proc = netsens_cli("results", pingpong_study.results_dir / "../../study.toml", "--csv")
    assert proc.returncode == 0, proc.stderr
    csv = proc.stdout
    header = csv.splitlines()[0].split(",")
    assert header[:2] == ["point_id", "study"] and header[-1] == "slowdown"
    assert "matrix" not in header and "wan_links" not in header and len(csv.splitlines()) == 7


def test_store_round_trip(tmp_path, pingpong_study):
    point = pingpong_study.points()[1]
    result = netsens.run_goal(point.goal_path, overrides=point.overrides)
    row = store.point_row(point, "rt", result, 0.25, "9.9.9")
    path = store.write_point(tmp_path, row)
    assert path == tmp_path / "points" / f"{point.point_id}.parquet"
    names = sorted(p.name for p in (tmp_path / "points").iterdir())
    assert names == [path.name, f"{point.point_id}.sha256"]  # its checksum, no temporary
    back = pl.read_parquet(path)
    assert back.schema == pl.Schema(store.SCHEMA)
    assert back.to_dicts() == [row]


def test_product_study(tmp_path):
    # Every combination of L in {2.5, 5} us and o in {1.5, 3} us; (2.5, 1.5) is the
    # baseline itself, so 4 points, each a "product" row, and the baseline also a
    # "baseline" row.
    path = write_study(
        tmp_path,
        'name = "prod"\nworkloads = ["pingpong.goal"]\ncombine = "product"\n'
        '[axes]\nL = ["2.5us", "5us"]\no = ["1.5us", "3us"]\n',
    )
    summary = run_study(Study.from_toml(path), jobs=1, progress=False)
    assert (summary.total, summary.done) == (4, 4)
    frame = netsens.results(path)
    product = frame.filter(pl.col("axis") == "product")
    got = sorted(product.select("o_ps", "L_ps", "makespan_ps").rows())
    expected = [(o * US, l * US, pingpong_makespan(o, l)) for o in (1.5, 3) for l in (2.5, 5)]  # noqa: E741
    assert got == expected
    slowdown = product.sort("o_ps", "L_ps")["slowdown"].to_list()
    assert slowdown == pytest.approx([makespan / (11 * US) for _, _, makespan in expected])
    assert product["value"].null_count() == 4
    assert frame.filter(pl.col("axis") == "baseline").height == 1
    # The grid's (2.5 us, 1.5 us) is the baseline point: its product row is marked too.
    marked = frame.filter(pl.col("is_baseline")).select("axis", "L_ps", "o_ps").rows()
    assert sorted(marked) == [("baseline", 2.5 * US, 1.5 * US), ("product", 2.5 * US, 1.5 * US)]


def test_failed_points_are_recorded_and_the_sweep_goes_on(tmp_path):
    (tmp_path / "dead.goal").write_text(DEADLOCK_GOAL)
    path = write_study(
        tmp_path,
        'name = "f"\nworkloads = ["dead.goal", "pingpong.goal"]\n[axes]\nL = ["5us", "10us"]\n',
    )
    proc = netsens_cli("sweep", path, "--jobs", "2")
    assert proc.returncode == 2
    results = tmp_path / "results" / "f"
    last = proc.stderr.splitlines()[-1]
    assert (
        last == f"netsens: error: 3 of 6 points failed; each one's error is in {results}/failures"
    )
    assert "sweep: 3 points run" not in proc.stdout  # 6 ran, 3 failed
    assert "sweep: 6 points run in" in proc.stdout and "3 failed" in proc.stdout
    assert len(list((results / "points").glob("*.parquet"))) == 3
    recorded = store.failures(results)
    assert len(recorded) == 3
    assert {f["error"] for f in recorded} == {"DeadlockError"}
    assert all("rank 0 waits in `l1: recv 1b from 1 tag 0`" in f["message"] for f in recorded)
    assert set(store.load(results)["workload"]) == {"pingpong.goal"}
    shown = netsens_cli("results", path)
    assert f"3 points failed; their errors are in {results}/failures" in shown.stdout
    # The failures are tried again, and again recorded; the stored points are not rerun.
    again = netsens_cli("sweep", path)
    assert again.returncode == 2
    assert "3 already stored, 3 failed" in again.stdout


def _slow_study(directory: Path) -> tuple[Path, int]:
    # radix (small, 4 ranks) takes a few tenths of a second per point: the baseline +
    # 6 L + 6 o = 13 points, none equal to loggopsim's L = 2.5us, o = 1.5us.
    path = write_study(
        directory,
        'name = "slow"\nworkloads = ["radix"]\nranks = [4]\nsize = "small"\n'
        '[axes]\nL = { from = "3us", to = "8us", points = 6 }\n'
        'o = { from = "2us", to = "7us", points = 6 }\n',
    )
    return path, 13


def _start_and_wait(command: list[str], points: Path, at_least: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 240
    while len(list(points.glob("*.parquet"))) < at_least:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep stored too few points"
        time.sleep(0.02)
    return proc


def test_killed_sweep_resumes_without_recomputing(tmp_path):
    path, total = _slow_study(tmp_path)
    points = tmp_path / "results" / "slow" / "points"
    command = [sys.executable, "-m", "netsens", "sweep", str(path), "--jobs", "2"]
    proc = _start_and_wait(command, points, at_least=3)
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its workers, mid-run
    proc.communicate()
    time.sleep(0.2)
    before = {k: v for k, v in snapshot(points).items() if k.endswith(".parquet")}
    assert 3 <= len(before) < total
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{total - len(before)} points run" in again.stdout
    assert f"{len(before)} already stored, 0 failed; {total}/{total} points" in again.stdout
    after = {k: v for k, v in snapshot(points).items() if not k.endswith(".sha256")}
    assert len(after) == total  # every point, and no temporary left behind
    assert all(after[name] == stat for name, stat in before.items())  # none recomputed
    frame = netsens.results(path)
    assert frame["point_id"].n_unique() == total
    # The baseline is also on the L and the o curve: 13 + 2 rows.
    assert frame.height == total + 2
    assert frame["slowdown"].null_count() == 0


def test_ctrl_c_stops_cleanly_and_keeps_finished_points(tmp_path):
    path, total = _slow_study(tmp_path)
    points = tmp_path / "results" / "slow" / "points"
    command = [sys.executable, "-m", "netsens", "sweep", str(path), "--jobs", "2"]
    proc = _start_and_wait(command, points, at_least=2)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends the foreground group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.endswith("netsens: interrupted\n")
    assert "Traceback" not in err
    stored = len(list(points.glob("*.parquet")))
    assert f"sweep: interrupted; {stored}/{total} points stored" in err
    assert 2 <= stored < total
    assert not list(points.glob("*.tmp-*"))
    assert store.load(points.parent)["point_id"].n_unique() == stored


def test_example_study(tmp_path):
    # examples/studies/quick.toml, its GOAL files checked by hand: the ping-pong ends at
    # 4o + 2L, the 16-rank dissemination barrier at 4 rounds x (2o + L).
    proc = netsens_cli("sweep", "examples/studies/quick.toml", "--results", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "54/54 points" in proc.stdout
    frame = netsens.results(tmp_path).filter(pl.col("workload_kind") == "goal")
    o_values, l_values = (1.5, 3, 6, 12), (1, 10**0.5, 10, 10**1.5, 100)
    # Points: the baseline (o = 1.5us, L = 2.5us), each L with o = 1.5us, each o with
    # L = 2.5us; an L is read to whole ps (sqrt(10) us = 3162278 ps).
    cells = [(1.5, 2.5)] + [(1.5, round(v * US) / US) for v in l_values]
    cells += [(o, 2.5) for o in o_values]
    for row in frame.iter_rows(named=True):
        o, latency = row["o_ps"] / US, row["L_ps"] / US
        assert (o, latency) in cells
        if row["workload"].endswith("dissemination16.goal"):
            assert row["makespan_ps"] == round(4 * (2 * o + latency) * US), row
        else:
            assert row["makespan_ps"] == pingpong_makespan(o, latency), row
    # Per file: the baseline row, 5 L rows + the baseline on the L curve, 3 o rows (o =
    # 1.5us is the baseline) + the baseline on the o curve.
    assert frame.height == 2 * (1 + 6 + 4)


def test_points_run_round_robin_across_workloads():
    from types import SimpleNamespace

    from netsens.study.dispatch import interleaved

    points = [
        SimpleNamespace(workload=w, i=i)
        for w, n in (("a", 3), ("b", 1), ("c", 2))
        for i in range(n)
    ]
    order = [(p.workload, p.i) for p in interleaved(points)]
    assert order == [("a", 0), ("b", 0), ("c", 0), ("a", 1), ("c", 1), ("a", 2)]
