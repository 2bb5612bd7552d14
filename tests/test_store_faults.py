"""Faults while storing: a results directory on a small filesystem that fills up during
a sweep stops it with one error line and exit code 2; every point stored before is
whole (it verifies), and the same command, once there is room, stores the rest without
touching them. A read-only results directory stops a sweep the same way.

The filesystem is a size-limited tmpfs (mounting it needs root, as the test suite runs).
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from netsens.study import store, store_verify

ROOT = Path(__file__).resolve().parent.parent
TOTAL = 31  # the baseline and 30 values of L


@pytest.fixture
def small_disk(tmp_path: Path):
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def sweep(study: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", "sweep", str(study), "--jobs", "2"]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def write_study(directory: Path, results: Path) -> Path:
    shutil.copy(ROOT / "examples/goal/pingpong.goal", directory / "pingpong.goal")
    path = directory / "study.toml"
    path.write_text(
        f'name = "full"\nresults = "{results}"\nworkloads = ["pingpong.goal"]\n'
        '[axes]\nL = { from = "3us", to = "32us", points = 30 }\n'
    )
    return path


def test_a_full_disk_stops_the_sweep_and_keeps_every_stored_point(
    tmp_path: Path, small_disk: Path
) -> None:
    # Each point file is about 15 KB (and its checksum a 4 KiB page): 256 KiB holds
    # fewer than the 31 points.
    results = small_disk / "results"
    study = write_study(tmp_path, results)
    proc = sweep(study)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("netsens: error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
    warnings: list[str] = []
    kept = store_verify.read_points(results, warnings.append)
    assert warnings == [] and 0 < len(kept) < TOTAL
    before = {p.name: p.stat().st_mtime_ns for p in (results / store.POINTS).glob("*.parquet")}
    assert len(before) == len(kept)

    subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)], check=True)
    again = sweep(study)
    assert again.returncode == 0, again.stderr
    assert f"{TOTAL - len(kept)} points run" in again.stdout
    after = {p.name: p.stat().st_mtime_ns for p in (results / store.POINTS).glob("*.parquet")}
    assert len(after) == TOTAL and all(after[k] == v for k, v in before.items())


def test_a_read_only_results_directory_stops_the_sweep_with_one_line(
    tmp_path: Path, small_disk: Path
) -> None:
    study = write_study(tmp_path, small_disk / "results")
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    proc = sweep(study)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("netsens: error: "), proc.stderr
    assert "Read-only file system" in lines[0]
