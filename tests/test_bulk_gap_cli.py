"""`--G-above`: G charged only on messages above a size (docs/concepts/bulk-gap.md), from the
command line. Expected times derived by hand from LOGGP.md's rules on the `loggopsim`
preset (L=2500 o=1500 g=1000 ns, G=6 ns/B): one message of 17 B is received at
o + L + o + k·G with k = 16, or without the k·G term when 17 B is not above G_above."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NS = 1000  # ps per ns

GOAL = """num_ranks 2
rank 0 {
l1: send 17b to 1 tag 0
}
rank 1 {
l1: recv 17b from 0 tag 0
}
"""


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def makespan_ns(goal: Path, *flags: str) -> int:
    proc = netsens("run", "--goal", goal, "--json", *flags)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["makespan_ps"] // NS


def test_g_above_drops_the_per_byte_gap_of_small_messages(tmp_path):
    goal = tmp_path / "one.goal"
    goal.write_text(GOAL)
    # 1500 + 2500 + 1500 + 16 * 6 = 5596 ns: G on every message (the default).
    assert makespan_ns(goal) == 5596
    # 17 B is above 16 B: still pays G.
    assert makespan_ns(goal, "--G-above", "16B") == 5596
    # 17 B is not above 17 B: no G, 5500 ns.
    assert makespan_ns(goal, "--G-above", "17B") == 5500


def test_g_above_without_a_unit_is_one_error_line(tmp_path):
    goal = tmp_path / "one.goal"
    goal.write_text(GOAL)
    proc = netsens("run", "--goal", goal, "--G-above", "16")
    assert proc.returncode == 2
    assert proc.stderr.startswith("netsens: error: G_above") and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
