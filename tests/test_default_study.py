"""The default study of `make run` (scripts/default_study.py): the L sweep's table.

On the loggopsim preset (o = 1500 ns) each of the 16-rank dissemination barrier's 4
rounds costs o + L + o, so its makespan is 4 (3000 + L) ns: 16, 20, 32, 52, 92 and
212 us at L = 1, 2, 5, 10, 20, 50 us, i.e. 1, 1.25, 2, 3.25, 5.75 and 13.25 times the
first point.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_default_study_table(tmp_path):
    out = tmp_path / "study.txt"
    command = [
        sys.executable,
        ROOT / "scripts/default_study.py",
        "--goal",
        ROOT / "tests/data/dissemination16.goal",
        "--out",
        out,
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert str(out) in proc.stdout
    rows = [line.split("│")[1:4] for line in out.read_text().splitlines() if "│" in line]
    table = [[cell.strip() for cell in row] for row in rows]
    assert table == [
        ["1us", "16 us", "1.000x"],
        ["2us", "20 us", "1.250x"],
        ["5us", "32 us", "2.000x"],
        ["10us", "52 us", "3.250x"],
        ["20us", "92 us", "5.750x"],
        ["50us", "212 us", "13.250x"],
    ]
