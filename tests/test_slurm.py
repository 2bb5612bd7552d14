"""The Slurm executor against a real one-node Slurm (tests/slurm_cluster.py): a study
run as a job array stores exactly what a local sweep stores; a task cancelled mid-run
is reported and only its missing points are submitted again, finished points never
rewritten; no sbatch, an unreachable controller or a rejected submission end with one
line and exit 2, nothing stored lost."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from slurm_cluster import MAX_ARRAY_SIZE, Cluster, free_port

from netsens.cli.main import main
from netsens.slurm import executor as slurm
from netsens.study.definition import Study
from netsens.study.store import POINTS

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
    while any(t.active for t in slurm.queued(name)):
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


# 8 points of about 0.5 s each (radix at size small on 16 ranks), 4 per task.
SLOW_STUDY = """name = "slow"
workloads = ["radix"]
size = "small"
ranks = [16]
[axes]
L = ["1us", "2us", "4us", "8us", "16us", "32us", "64us"]
[slurm]
points_per_task = 4
max_parallel = 1
"""


def plan_ids(root: Path, job: str) -> list[str]:
    """The point ids of every task of ``job``, as the submission recorded them."""
    return [i for task in next(s for s in slurm.submissions(root) if s.job == job).plan
            for i in task]  # fmt: skip


def test_a_cancelled_task_is_reported_and_only_its_missing_points_run_again(
    cluster, tmp_path, capsys
):
    study_file = write_study(tmp_path, SLOW_STUDY)
    study = Study.from_toml(study_file)
    root, name = study.results_dir, slurm.job_name(study, study.results_dir)
    code, out, err = netsens(capsys, "sweep", study_file, "--executor", "slurm", "--detach")
    assert code == 0, err
    job = re.search(r"\(job (\d+),", out).group(1)
    # Task 0 runs first (max_parallel = 1): cancel it once it has stored one point.
    log = root / "slurm" / "logs" / f"{job}_0.log"
    deadline = time.monotonic() + 120
    while not (log.exists() and "stored" in log.read_text()):
        assert time.monotonic() < deadline, "task 0 stored nothing"
        time.sleep(0.05)
    subprocess.run(["scancel", f"{job}_0"], check=True)
    squeue_empty(name)
    first_task = plan_ids(root, job)[:4]
    kept = files(study_file)
    left = [i for i in first_task if f"{i}.parquet" not in kept]
    assert 1 <= len(left) <= 3, "task 0 was not cancelled mid-run"
    assert len(kept) == 8 - len(left)  # task 1 ran all its points

    code, out, err = netsens(capsys, "sweep", study_file, "--status")
    assert code == 0
    assert f"{8 - len(left)}/8 points stored" in out
    assert f"task {job}_0 failed with {len(left)} of its points not stored" in err
    assert str(log) in err

    code, out, err = netsens(capsys, "sweep", study_file, "--executor", "slurm")
    assert code == 0, err
    assert f"task {job}_0 failed" in err and "submitted again" in err
    assert f"submitted {len(left)} points as 1 tasks" in out
    again = re.search(r"\(job (\d+),", out).group(1)
    assert sorted(plan_ids(root, again)) == sorted(left)
    assert "8/8 points stored" in out
    after = files(study_file)
    assert {k: after[k] for k in kept} == kept  # never recomputed nor rewritten
    # The failure, now superseded, is no longer reported.
    code, out, err = netsens(capsys, "sweep", study_file, "--status")
    assert code == 0 and "failed" not in err


def stored_locally(tmp_path: Path, capsys) -> tuple[Path, dict]:
    """The GOAL study swept locally, then 3 of its point files deleted."""
    study_file = write_study(tmp_path)
    assert netsens(capsys, "sweep", study_file, "--jobs", "2")[0] == 0
    points = Study.from_toml(study_file).results_dir / POINTS
    for path in sorted(points.glob("*.parquet"))[:3]:
        path.unlink()
    return study_file, files(study_file)


def assert_one_error_line(code: int, err: str, pattern: str) -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("netsens: error: "), err
    assert re.search(pattern, lines[0]), lines[0]


def test_no_slurm_commands_on_path_is_one_line(tmp_path, capsys, monkeypatch):
    study_file, before = stored_locally(tmp_path, capsys)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    code, _, err = netsens(capsys, "sweep", study_file, "--executor", "slurm")
    assert_one_error_line(code, err, r"squeue not found on PATH")
    assert files(study_file) == before


def test_an_unreachable_controller_is_one_line(cluster, tmp_path, capsys, monkeypatch):
    study_file, before = stored_locally(tmp_path, capsys)
    conf = Path(cluster.conf).read_text()
    conf = re.sub(r"SlurmctldPort=\d+", f"SlurmctldPort={free_port()}", conf)
    (tmp_path / "slurm.conf").write_text(conf)
    monkeypatch.setenv("SLURM_CONF", str(tmp_path / "slurm.conf"))
    code, _, err = netsens(capsys, "sweep", study_file, "--executor", "slurm")
    assert_one_error_line(code, err, r"Unable to contact slurm controller")
    assert files(study_file) == before


def test_a_rejected_submission_is_one_line(cluster, tmp_path, capsys):
    study_file, before = stored_locally(tmp_path, capsys)
    code, _, err = netsens(
        capsys, "sweep", study_file, "--executor", "slurm", "--partition", "nosuch"
    )
    assert_one_error_line(code, err, r"sbatch failed: .*[Ii]nvalid partition")
    assert files(study_file) == before
    base = Study.from_toml(study_file).results_dir / "slurm"
    assert not list((base / "plans").glob("*")) and not list((base / "jobs").glob("*"))


@pytest.mark.parametrize(
    ("args", "study", "pattern"),
    [
        (["--executor", "slurm", "--time", "half an hour"], GOAL_STUDY, r"time: .* HH:MM:SS"),
        (
            ["--executor", "slurm"],
            GOAL_STUDY + "[slurm]\npartitions = 'x'\n",
            r"unknown key 'partitions'",
        ),
        (["--executor", "slurm"], GOAL_STUDY + "[slurm]\npoints_per_task = 0\n", r"points_per"),
        (["--executor", "slurm"], GOAL_STUDY + "[slurm]\nmax_parallel = true\n", r"max_par"),
        (["--executor", "slurm"], "slurm = 3\n" + GOAL_STUDY, r"slurm: must be a table"),
        (["--detach"], GOAL_STUDY, r"--detach needs --executor slurm"),
        (["--partition", "p"], GOAL_STUDY, r"--partition needs --executor slurm"),
        (["--executor", "slurm", "--jobs", "2"], GOAL_STUDY, r"--jobs is for the local executor"),
    ],
)
def test_bad_slurm_options_are_one_line(tmp_path, capsys, args, study, pattern):
    study_file = write_study(tmp_path, study)
    code, _, err = netsens(capsys, "sweep", study_file, *args)
    assert_one_error_line(code, err, pattern)
    assert not (tmp_path / "results").exists()


LIVE_STUDY = """name = "live"
mode = "live"
workloads = ["radb"]
size = "tiny"
ranks = [2]
[axes]
o = ["1us", "2us"]
"""


def test_live_points_run_as_one_job_each_with_their_ranks(cluster, tmp_path, capsys):
    """3 live points (baseline, o = 1us, 2us) of radb on 2 ranks: 3 jobs of 2 tasks."""
    study_file = write_study(tmp_path, LIVE_STUDY)
    code, out, err = netsens(capsys, "sweep", study_file, "--executor", "slurm")
    assert code == 0, err
    assert "submitted 3 points as 3 tasks" in out and "3/3 points stored" in out
    jobs = re.search(r"\(job ([\d, ]+),", out).group(1).split(", ")
    assert len(jobs) == 3
    root = Study.from_toml(study_file).results_dir
    for job in jobs:
        assert "(2 Slurm tasks on " in (root / "slurm" / "logs" / f"{job}_0.log").read_text()
    rows = stored(study_file)
    assert rows.height == 3 and rows["verified"].to_list() == [True] * 3


def test_a_damaged_submission_record_is_one_line(cluster, tmp_path, capsys):
    study_file, before = stored_locally(tmp_path, capsys)
    jobs = Study.from_toml(study_file).results_dir / "slurm" / "jobs"
    jobs.mkdir(parents=True)
    (jobs / "7.json").write_text('{"plan": ')  # cut short
    code, _, err = netsens(capsys, "sweep", study_file, "--status")
    assert_one_error_line(code, err, r"7\.json: unreadable submission record")
    assert files(study_file) == before


def test_interrupting_the_command_leaves_the_jobs_running(cluster, tmp_path):
    study_file = write_study(tmp_path)
    command = [sys.executable, "-m", "netsens", "sweep", str(study_file), "--executor",
               "slurm", "--points-per-task", "11", "--max-parallel", "1"]  # fmt: skip
    follow = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert "submitted 22 points as 2 tasks" in follow.stdout.readline()
    assert follow.stderr.readline().startswith("slurm: 0/22 points")  # following
    follow.send_signal(signal.SIGINT)
    out, err = follow.communicate(timeout=60)
    assert follow.returncode == 130, err
    assert "the jobs go on" in err
    study = Study.from_toml(study_file)
    name = slurm.job_name(study, study.results_dir)
    assert any(t.active for t in slurm.queued(name))  # still there
    squeue_empty(name)
    assert stored(study_file).height == GOAL_POINTS


def test_cancel_ends_the_study_s_jobs_and_keeps_what_is_stored(cluster, tmp_path, capsys):
    study_file = write_study(tmp_path, SLOW_STUDY)
    code, out, err = netsens(capsys, "sweep", study_file, "--executor", "slurm", "--detach")
    assert code == 0 and "submitted 8 points as 2 tasks" in out, err
    study = Study.from_toml(study_file)
    name = slurm.job_name(study, study.results_dir)
    code, out, err = netsens(capsys, "sweep", study_file, "--cancel")
    assert code == 0 and re.search(r"cancelled [12] tasks", out), err
    squeue_empty(name, timeout=30)
    kept = files(study_file)
    code, out, err = netsens(capsys, "sweep", study_file, "--status")
    assert f"{len(kept)}/8 points stored" in out
    assert "task" in err and "failed" in err  # at least the second, cancelled while pending
    time.sleep(1)
    assert files(study_file) == kept


def test_a_second_run_while_the_tasks_are_queued_submits_nothing(cluster, tmp_path, capsys):
    # 8 points as 2 tasks of 4, one at a time: while they are queued or running, every
    # point is stored or queued, so running the command again submits no job.
    study_file = write_study(tmp_path, SLOW_STUDY)
    code, out, err = netsens(capsys, "sweep", study_file, "--executor", "slurm", "--detach")
    assert code == 0 and "submitted 8 points as 2 tasks" in out, err
    study = Study.from_toml(study_file)
    name = slurm.job_name(study, study.results_dir)
    jobs = {t.job for t in slurm.queued(name)}
    code, out, err = netsens(capsys, "sweep", study_file, "--executor", "slurm", "--detach")
    assert code == 0 and "nothing to submit" in out and "submitted" not in out, (out, err)
    assert {t.job for t in slurm.queued(name)} <= jobs  # no new array
    squeue_empty(name, timeout=300)
    assert len(files(study_file)) == 8


def test_more_tasks_than_the_array_size_limit_is_one_line(cluster, tmp_path, capsys):
    """22 points in tasks of 1 are 22 tasks, past the test cluster's MaxArraySize of 20:
    tasks of 2 (11 tasks) would fit."""
    assert MAX_ARRAY_SIZE == 20
    study_file = write_study(tmp_path)
    code, _, err = netsens(capsys, "sweep", study_file, "--executor", "slurm")
    assert_one_error_line(code, err, r"22 array tasks, .*\(20\); use --points-per-task 2 or more")
    assert not list((Study.from_toml(study_file).results_dir / "slurm" / "jobs").glob("*"))
