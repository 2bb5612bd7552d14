"""`netsens goal compile`: a compiled schedule (.nsg) runs exactly as its GOAL file
does, wherever a GOAL file is accepted, and a damaged, foreign or other-version file
stops with one `netsens: error:` line and exit code 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import one_error_line

import netsens

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "goal"

# Rank 1 waits for a message nobody sends: the report names the stuck op's label.
STUCK = "num_ranks 2\nrank 0 {\nc: calc 10\n}\nrank 1 {\nlate: recv 8b from 0 tag 7\n}\n"


def netsens_cli(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def compiled(tmp_path: Path, goal: Path) -> Path:
    out = tmp_path / (goal.stem + ".nsg")
    proc = netsens_cli("goal", "compile", goal, out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"NSGSCHED"
    return out


@pytest.mark.parametrize("name", ["dissemination16.goal", "pingpong.goal"])
def test_a_compiled_schedule_gives_the_goal_files_result(tmp_path: Path, name: str) -> None:
    goal = EXAMPLES / name
    nsg = compiled(tmp_path, goal)
    for flags in ([], ["--L", "5us", "--G", "1ns/B"]):
        a = json.loads(netsens_cli("run", "--goal", goal, "--json", *flags).stdout)
        b = json.loads(netsens_cli("run", "--goal", nsg, "--json", *flags).stdout)
        assert a.pop("workload")["file"] == str(goal)
        assert b.pop("workload")["file"] == str(nsg)
        assert a == b
    # The Python API takes it too.
    assert netsens.run_goal(nsg)["makespan_ps"] == netsens.run_goal(goal)["makespan_ps"]


def test_dissemination16_compiled_ends_at_the_hand_derived_time(tmp_path: Path) -> None:
    # 4 rounds of o + L + o = 1.5 + 2.5 + 1.5 us on LogGOPSim's defaults: 22 us.
    nsg = compiled(tmp_path, EXAMPLES / "dissemination16.goal")
    assert netsens.run_goal(nsg)["makespan_ps"] == 22_000_000


def test_a_deadlock_names_the_same_labelled_op(tmp_path: Path) -> None:
    goal = tmp_path / "stuck.goal"
    goal.write_text(STUCK)
    nsg = compiled(tmp_path, goal)
    from_goal = one_error_line(netsens_cli("run", "--goal", goal))
    from_nsg = one_error_line(netsens_cli("run", "--goal", nsg))
    assert "late: recv 8b from 0 tag 7" in from_goal
    assert from_nsg == from_goal


def test_damaged_foreign_and_other_version_files_are_one_error_line(tmp_path: Path) -> None:
    data = compiled(tmp_path, EXAMPLES / "dissemination16.goal").read_bytes()
    cases = {
        "truncated": (data[:-5], "truncated or damaged"),
        "short": (data[:20], "truncated"),
        "flipped": (data[:100] + bytes([data[100] ^ 1]) + data[101:], "checksum"),
        "version": (data[:8] + (7).to_bytes(4, "little") + data[12:], "format 7"),
        "garbage": (b"NSGSCHED" + (1).to_bytes(4, "little") + bytes(range(200)), "damaged"),
    }
    for name, (content, words) in cases.items():
        path = tmp_path / f"{name}.nsg"
        path.write_bytes(content)
        line = one_error_line(netsens_cli("run", "--goal", path))
        assert words in line and str(path) in line, (name, line)
    # A file that is neither: read as GOAL text, which it is not.
    other = tmp_path / "image.nsg"
    other.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    assert "GOAL" in one_error_line(netsens_cli("run", "--goal", other))
    assert "cannot write" in one_error_line(
        netsens_cli("goal", "compile", EXAMPLES / "pingpong.goal", tmp_path / "no" / "x.nsg")
    )


def test_a_study_takes_a_compiled_schedule_as_a_workload(tmp_path: Path) -> None:
    from netsens.study.definition import Study

    goal = tmp_path / "d16.goal"
    goal.write_text((EXAMPLES / "dissemination16.goal").read_text())
    compiled(tmp_path, goal)
    path = tmp_path / "s.toml"
    path.write_text('name = "s"\nworkloads = ["d16.goal", "d16.nsg"]\n[axes]\nL = ["5us"]\n')
    study = Study.from_toml(path)
    # Both have the file's 16 ranks (the .nsg's from its header).
    assert [(w.label, w.ranks) for w in study.workload_list] == [("d16.goal", 16), ("d16.nsg", 16)]
