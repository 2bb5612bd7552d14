"""The Slurm executor against a real one-node Slurm (tests/slurm_cluster.py): a study
run as a job array stores exactly what a local sweep stores; a task cancelled mid-run
is reported and only its missing points are submitted again, finished points never
rewritten; no sbatch, an unreachable controller or a rejected submission end with one
line and exit 2, nothing stored lost."""

import os
import re
import shutil
import time
from pathlib import Path

import polars as pl
import pytest
from slurm_cluster import Cluster

from netsens import slurm
from netsens.cli import main
from netsens.store import POINTS
from netsens.study import Study

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
# 2 GOAL workloads x (baseline + 5 L + 5 o) = 22 points.
GOAL_STUDY = """name = "grid"
workloads = ["pingpong.goal", "dissemination16.goal"]
[axes]
L = ["1us", "2us", "4us", "8us", "16us"]
o = ["1us", "2us", "3us", "4us", "5us"]
"""
GOAL_POINTS = 22


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """munged, slurmctld and slurmd for the whole session; SLURM_CONF points at them."""
    with Cluster(tmp_path_factory.mktemp("slurm")) as c:
        before = os.environ.get("SLURM_CONF")
        os.environ.update(c.env())
        yield c
        if before is None:
            os.environ.pop("SLURM_CONF")
        else:
            os.environ["SLURM_CONF"] = before


def write_study(directory: Path, text: str = GOAL_STUDY) -> Path:
    directory.mkdir(exist_ok=True)
    for goal in ("pingpong.goal", "dissemination16.goal"):
        shutil.copy(DATA / goal, directory / goal)
    path = directory / "study.toml"
    path.write_text(text)
    return path


def netsens(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def stored(study_file: Path) -> pl.DataFrame:
    """Every stored row, all columns but the wall-clock time of the run."""
    root = Study.from_toml(study_file).results_dir
    frame = pl.concat([pl.read_parquet(p) for p in sorted((root / POINTS).glob("*.parquet"))])
    return frame.drop("wall_s").sort("point_id")


def files(study_file: Path) -> dict[str, tuple[int, int, bytes]]:
    """Each point file's inode, modification time and bytes."""
    root = Study.from_toml(study_file).results_dir
    return {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
        for p in (root / POINTS).glob("*.parquet")
    }


def squeue_empty(name: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while slurm.queued(name):
        assert time.monotonic() < deadline, "the study's jobs did not leave the queue"
        time.sleep(0.5)


def test_a_study_on_slurm_stores_what_a_local_sweep_stores(cluster, tmp_path, capsys):
    on_slurm, local = write_study(tmp_path / "slurm"), write_study(tmp_path / "local")
    code, out, err = netsens(
        capsys, "sweep", on_slurm, "--executor", "slurm", "--points-per-task", "3",
        "--max-parallel", "2", "--time", "00:05:00",
    )  # fmt: skip
    assert code == 0, err
    # 22 points in tasks of 3: 8 tasks (7 of 3 and one of 1).
    assert re.search(rf"submitted {GOAL_POINTS} points as 8 tasks", out), out
    assert f"{GOAL_POINTS}/{GOAL_POINTS} points stored" in out
    assert netsens(capsys, "sweep", local, "--jobs", "2")[0] == 0
    slurm_rows, local_rows = stored(on_slurm), stored(local)
    assert slurm_rows.height == GOAL_POINTS
    assert slurm_rows.equals(local_rows)
    # Run again: everything is stored, nothing is submitted.
    code, out, _ = netsens(capsys, "sweep", on_slurm, "--executor", "slurm")
    assert code == 0 and "nothing to submit" in out
