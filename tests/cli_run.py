"""Running the netsens command line from tests: the command as a subprocess from the
repository root, and the check that bad input ends in one error line with exit 2."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def netsens(
    *args: object, env: dict | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, timeout=timeout, env=env
    )


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    """The one line of a run that stopped on bad input (exit 2, no traceback)."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("netsens: error: "), lines
    assert "Traceback" not in proc.stderr
    return lines[0]
