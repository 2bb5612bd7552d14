"""The live section of a study's report: a validation written into the study's results
directory (netsens validate --results) appears in `netsens report` with its figure
(PNG and PDF) and its per-point errors; a damaged one is one error line."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from netsens.live.validate import write_outputs

STUDY = """
name = "live-section"
results = "results"
platform = "loggopsim"
workloads = ["radix"]
size = "tiny"
ranks = [4]
seeds = 1

[axes]
o = ["2us", "4us"]
"""


def validation() -> dict:
    # Slowdowns chosen by hand; error = simulated / live - 1.
    points = [
        ("0us", 1.0, 1.0),
        ("50us", 2.0, 2.2),  # +10.0 %
        ("100us", 4.0, 3.8),  # -5.0 %
    ]
    return {
        "app": "radb", "ranks": 4, "size": "tiny", "axis": "o", "machine": "machine.toml",
        "mpi": "openmpi", "repeats": 5,
        "points": [
            {"value": v, "live_ps": 0, "live_spread_ps": [0, 0], "simulated_ps": 0,
             "live_slowdown": live, "simulated_slowdown": sim, "error": sim / live - 1}
            for v, live, sim in points
        ],
    }  # fmt: skip


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "netsens", *map(str, args)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("live-section")
    (root / "study.toml").write_text(STUDY)
    proc = netsens("sweep", root / "study.toml")
    assert proc.returncode == 0, proc.stderr
    return root / "results"


def test_a_validation_in_the_results_appears_in_the_report(study: Path) -> None:
    write_outputs(validation(), study / "validate" / "radb-o")
    proc = netsens("report", study)
    assert proc.returncode == 0, proc.stderr
    page = (study / "report" / "report.html").read_text()
    section = page[page.index('<section id="live">') :]
    assert "radb, 4 ranks, o (largest error 10.0 %)" in section
    assert "+10.0 %" in section and "-5.0 %" in section
    for suffix in ("png", "pdf"):
        assert (study / "report" / "figures" / f"validate_radb_o.{suffix}").is_file()


def test_a_report_without_validations_has_no_live_section(tmp_path: Path, study: Path) -> None:
    # A copy of the study's results without its validate directory.
    copy = tmp_path / "results"
    shutil.copytree(study, copy, ignore=shutil.ignore_patterns("validate", "report"))
    proc = netsens("report", copy)
    assert proc.returncode == 0, proc.stderr
    assert '<section id="live">' not in (copy / "report" / "report.html").read_text()


def test_a_damaged_validation_is_one_error_line(tmp_path: Path, study: Path) -> None:
    copy = tmp_path / "results"
    shutil.copytree(study, copy, ignore=shutil.ignore_patterns("validate", "report"))
    bad = copy / "validate" / "ft-o" / "validation.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps({"app": "ft"}))
    proc = netsens("report", copy)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"netsens: error: {bad}: not a validation written by netsens validate"]


def test_validate_takes_out_or_results_not_both(tmp_path: Path) -> None:
    proc = netsens("validate", "--app", "radb", "--axis", "o=0us..10us",
                   "--out", tmp_path / "a", "--results", tmp_path)  # fmt: skip
    assert proc.returncode == 2
    assert "--out or --results" in proc.stderr
