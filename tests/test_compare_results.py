"""scripts/compare_results.py: two sweeps of one study compare the same (but for wall
time); a makespan off by one picosecond, an `events` count off by one or a point
missing is found and named; a folder that holds no results is one error line, exit
code 2."""

import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl

from netsens.study import store
from netsens.study.definition import Study
from netsens.study.sweep import run_study

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "compare_results.py"


def compare(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def swept_twice(tmp_path: Path) -> tuple[Path, Path]:
    shutil.copy(ROOT / "examples/goal/pingpong.goal", tmp_path / "pingpong.goal")
    path = tmp_path / "study.toml"
    path.write_text('name = "pp"\nworkloads = ["pingpong.goal"]\n[axes]\nL = ["5us", "9us"]\n')
    roots = tmp_path / "a", tmp_path / "b"
    for root in roots:
        assert run_study(Study.from_toml(path, results=root), jobs=1, progress=False).done == 3
    return roots


def rewrite(root: Path, change: dict) -> str:
    """Store the first point of ``root`` again with ``change``d columns; its id."""
    path = sorted((root / store.POINTS).glob("*.parquet"))[0]
    row = pl.read_parquet(path).row(0, named=True)
    store.write_point(root, {**row, **change(row)})
    return path.stem


def test_two_sweeps_of_one_study_store_the_same_results(tmp_path: Path) -> None:
    a, b = swept_twice(tmp_path)
    proc = compare(a, b)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith(f"the same 3 points in {a} and {b} (but for wall_s)")


def test_one_picosecond_one_event_or_a_missing_point_is_a_difference(tmp_path: Path) -> None:
    a, b = swept_twice(tmp_path)
    changed = rewrite(b, lambda row: {"makespan_ps": row["makespan_ps"] + 1})
    proc = compare(a, b)
    assert proc.returncode == 1
    assert f"{changed}: makespan_ps" in proc.stdout and "events" not in proc.stdout
    rewrite(b, lambda row: {"makespan_ps": row["makespan_ps"] - 1, "events": row["events"] + 1})
    proc = compare(a, b)
    assert proc.returncode == 1 and f"{changed}: events" in proc.stdout, proc.stdout
    assert "makespan_ps" not in proc.stdout
    rewrite(b, lambda row: {"events": row["events"] - 1})
    assert compare(a, b).returncode == 0
    (b / store.POINTS / f"{changed}.parquet").unlink()
    proc = compare(a, b)
    assert proc.returncode == 1 and f"1 point(s) only in {a}: {changed}" in proc.stdout


def test_a_folder_without_results_is_one_error_line(tmp_path: Path) -> None:
    a, _ = swept_twice(tmp_path)
    for args in [(a, tmp_path / "none"), (a, a, "--ignore", "speed")]:
        proc = compare(*args)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("compare_results: error:")
