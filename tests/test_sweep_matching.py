"""A sweep states which workloads can match messages by timing.

The engine counts a run's wildcard receives (source or tag -1 in GOAL) and tests; the
ping-pong names every source and tag (none), the gather below receives twice from any
source (2 per run, at every point: the count is the program's, not the timing's).
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import netsens
from netsens.study.definition import Study
from netsens.study.sweep import run_study
from netsens.study.timing import dependence, summary_line

ROOT = Path(__file__).resolve().parent.parent
PINGPONG = ROOT / "examples/goal/pingpong.goal"
# Ranks 1 and 2 send to rank 0, which receives from any source twice.
GATHER = (
    "num_ranks 3\n\nrank 0 {\nl1: recv 8b from -1 tag 0\nl2: recv 8b from -1 tag 0\n}\n\n"
    "rank 1 {\nl1: send 8b to 0 tag 0\n}\n\nrank 2 {\nl1: send 8b to 0 tag 0\n}\n"
)
STUDY = 'name = "m"\nworkloads = ["pingpong.goal", "gather.goal"]\n[axes]\nL = ["5us", "50us"]\n'


@pytest.fixture
def study_file(tmp_path: Path) -> Path:
    shutil.copy(PINGPONG, tmp_path / "pingpong.goal")
    (tmp_path / "gather.goal").write_text(GATHER)
    path = tmp_path / "study.toml"
    path.write_text(STUDY)
    return path


def test_the_run_result_counts_wildcard_receives(study_file):
    gather = netsens.run_goal(study_file.parent / "gather.goal", "loggopsim")
    assert gather["timing_dependence"] == {"wildcard_receives": 2, "tests": 0}
    # Absent where there is none: such a run's output is as before.
    assert "timing_dependence" not in netsens.run_goal(PINGPONG, "loggopsim")
    # The API's result reads zero counts for the ping-pong, the gather's two receives.
    assert netsens.run(PINGPONG).timing_dependence == {"wildcard_receives": 0, "tests": 0}
    api_gather = netsens.run(study_file.parent / "gather.goal")
    assert api_gather.timing_dependence["wildcard_receives"] == 2


def test_dependence_in_words():
    assert dependence({}) is None
    assert dependence({"timing_dependence": {"wildcard_receives": 0, "tests": 0}}) is None
    counts = {"wildcard_receives": 1240, "tests": 3}
    assert dependence({"timing_dependence": counts}) == "1 240 wildcard receives, 3 tests"
    line = summary_line({"a": None, "b": "3 tests", "c": None})
    assert line == (
        "matching: messages fixed by the program in 2 of 3 workloads; can depend on timing "
        "in b (3 tests in one run)"
    )


def test_sweep_states_each_workloads_matching(study_file):
    summary = run_study(Study.from_toml(study_file), jobs=1, progress=False)
    assert (summary.done, summary.failed) == (6, 0)
    assert summary.matching == {"pingpong.goal": None, "gather.goal": "2 wildcard receives"}
    assert summary.matching_line() == (
        "matching: messages fixed by the program in 1 of 2 workloads; can depend on timing "
        "in gather.goal (2 wildcard receives in one run)"
    )
    # Run again, every point is stored: nothing ran, nothing to state.
    again = run_study(Study.from_toml(study_file), jobs=1, progress=False)
    assert (again.done, again.matching, again.matching_line()) == (0, {}, None)


def test_sweep_command_prints_the_line(study_file):
    command = [sys.executable, "-m", "netsens", "sweep", str(study_file)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "can depend on timing in gather.goal (2 wildcard receives in one run)" in out.stdout
