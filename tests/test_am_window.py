"""Active Messages' flow control from the command line (`--am-window N`, a platform's
`am_window`): the window in the resolved platform, a Split-C program that verifies
under it and acknowledges every store, and bad values refused with one line, exit 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def radix(*flags: object) -> subprocess.CompletedProcess[str]:
    return netsens("run", "--app", "radix", "--ranks", 4, "--size", "tiny", "--json", *flags)


def test_a_window_acknowledges_every_store_and_the_sort_still_verifies():
    free, held = radix(), radix("--am-window", 1)
    assert free.returncode == 0 and held.returncode == 0, free.stderr + held.stderr
    a, b = json.loads(free.stdout), json.loads(held.stdout)
    assert "am_window" not in a["platform"] and b["platform"]["am_window"] == 1
    assert a["verified"] and b["verified"]
    stores = sum(p["count"] for p in b["primitives"] if p["primitive"] == "store")
    # Every store gets an acknowledgement, which the run counts among its control
    # messages (radix sends no other); without a window it sends none.
    assert (a["control_messages"], b["control_messages"]) == (0, stores)
    assert b["makespan_ps"] > a["makespan_ps"]


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("0", "a window of 0 requests lets none through; write a whole number ≥ 1 such as 4"),
        ("-2", '"-2" is not a whole number of requests; write a whole number ≥ 1 such as 4'),
        ("1.5", '"1.5" is not a whole number of requests; write a whole number ≥ 1 such as 4'),
    ],
)
def test_a_bad_window_is_one_line_and_exit_2(value, why):
    proc = radix("--am-window", value)
    assert proc.returncode == 2
    assert proc.stderr == f"netsens: error: am_window: {why}\n"


def test_a_bad_window_in_a_file_names_the_file_and_field(tmp_path):
    spec = tmp_path / "now.toml"
    spec.write_text('base = "now1997"\nam_window = 0\n')
    proc = radix("--platform", spec)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"{spec}: am_window: a window of 0 requests" in proc.stderr
