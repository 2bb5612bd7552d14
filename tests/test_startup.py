"""Start-up: a command imports only what it uses. `netsens run` on a GOAL file makes
no frame, fit or figure, so polars, scipy, numpy and plotly stay unloaded (polars
alone cost 0.13 s and 30 MiB of every run)."""

import subprocess
import sys
from pathlib import Path

GOAL = Path(__file__).resolve().parent.parent / "examples" / "goal" / "pingpong.goal"
HEAVY = ("polars", "scipy", "numpy", "plotly")

PROBE = """
import importlib
import sys
for module in {preload!r}:
    importlib.import_module(module)
from netsens.cli import main
code = main(sys.argv[1:])
heavy = [m for m in {heavy!r} if m in sys.modules]
print("loaded:", ",".join(heavy) or "none", "exit:", code)
"""


def loaded_after(*args: str, preload: tuple[str, ...] = ()) -> str:
    """The heavy libraries loaded once `netsens ARGS` ran in a fresh interpreter
    (after importing `preload`), and the command's exit code."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY, preload=preload), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip().splitlines()[-1]


def test_run_on_a_goal_file_loads_no_frame_fit_or_figure_library() -> None:
    assert loaded_after("run", "--goal", str(GOAL), "--json") == "loaded: none exit: 0"


def test_the_probe_sees_a_library_that_was_loaded() -> None:
    # The store makes frames (polars): loaded first, the probe reports it, so the
    # test above can fail.
    out = loaded_after("run", "--goal", str(GOAL), "--json", preload=("netsens.store",))
    assert out.startswith("loaded: polars") and out.endswith("exit: 0")
