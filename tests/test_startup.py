"""Start-up: a command imports only what it uses. `netsens run` on a GOAL file makes
no frame, fit or figure, so polars, scipy, numpy and plotly stay unloaded (polars
alone cost 0.13 s and 30 MiB of every run); it loads no other command's module, and
printing its tables to a file or pipe needs no rich. `netsens --help` lists every
command without importing one, from a table whose one-line help is each command's."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

from netsens.cli import progress as cli_progress
from netsens.cli.main import COMMANDS, cli, load_command, main

ROOT = Path(__file__).resolve().parent.parent
GOAL = ROOT / "examples" / "goal" / "pingpong.goal"
HEAVY = ("polars", "scipy", "numpy", "plotly")
# What `run` leaves alone: the other commands' modules and what only they use.
OTHERS = (
    "netsens.live.run",
    "netsens.live.mpi",
    "netsens.ace.live",
    "netsens.slurm.executor",
    "netsens.study.store",
    "netsens.study.definition",
    "netsens.report.page",
    "tomllib",
)
# The modules the commands are in (cli_run among them).
COMMAND_MODULES = sorted({target.split(":")[0] for target, _ in COMMANDS.values()})

PROBE = """
import importlib
import json
import sys
for module in {preload!r}:
    importlib.import_module(module)
from netsens.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(json.dumps({{"modules": sorted(sys.modules), "exit": code}}), file=sys.stderr)
"""


def loaded_after(*args: str, preload: tuple[str, ...] = ()) -> tuple[set[str], int]:
    """The modules loaded once `netsens ARGS` ran in a fresh interpreter (after
    importing `preload`), its stdout a pipe, and the command's exit code."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(preload=preload), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return set(report["modules"]), report["exit"]


@pytest.mark.parametrize("output", [[], ["--json"]], ids=["tables", "json"])
def test_run_on_a_goal_file_loads_no_library_or_module_it_does_not_use(output) -> None:
    modules, code = loaded_after("run", "--goal", str(GOAL), *output)
    assert code == 0
    assert [m for m in modules if m.split(".")[0] in HEAVY] == []
    assert [m for m in OTHERS if m in modules] == []
    assert [m for m in COMMAND_MODULES if m in modules] == ["netsens.cli.run"]
    # The tables went to a pipe: drawn without rich (netsens.cli.text_table).
    assert [m for m in modules if m.split(".")[0] == "rich"] == []


def test_the_probe_sees_a_library_that_was_loaded() -> None:
    # The store makes frames (polars): loaded first, the probe reports it, so the
    # test above can fail.
    modules, code = loaded_after(
        "run", "--goal", str(GOAL), "--json", preload=("netsens.study.store",)
    )
    assert code == 0 and "polars" in modules and "netsens.study.store" in modules


def test_help_lists_every_command_without_loading_one() -> None:
    modules, code = loaded_after("--help")
    assert code == 0
    assert [m for m in COMMAND_MODULES if m in modules] == []


def test_each_command_is_where_the_table_says_with_the_table_s_help() -> None:
    for name, (_, short_help) in COMMANDS.items():
        command = load_command(name)
        assert command.name == name
        assert command.get_short_help_str(limit=1000) == short_help


@pytest.mark.parametrize("width", [80, 50])
def test_the_lazy_command_list_is_click_s_own(width) -> None:
    # click's listing, which loads every command, against the lazy one (the
    # narrower width shortens the help, as click does it).
    ctx = click.Context(cli, info_name="netsens")
    lazy, loaded = click.HelpFormatter(width=width), click.HelpFormatter(width=width)
    cli.format_commands(ctx, lazy)
    click.Group.format_commands(cli, ctx, loaded)
    assert lazy.getvalue() == loaded.getvalue()
    assert lazy.getvalue().count("\n") == len(COMMANDS) + 1  # "Commands:" and one each


def test_an_unknown_command_is_one_error_line(capsys) -> None:
    assert main(["nosuch"]) == 2
    assert capsys.readouterr().err == (
        "netsens: error: No such command 'nosuch'. (see 'netsens --help')\n"
    )


def test_import_netsens_is_light_and_ace_stays_the_function() -> None:
    probe = (
        "import sys, json, netsens; light = sorted(sys.modules);"
        "from netsens.ace.emulator import load_ace_file; import netsens.cli.ace;"
        "print(json.dumps([light, netsens.ace.__module__, callable(netsens.ace)]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    light, ace_module, ace_callable = json.loads(out.stdout)
    assert [m for m in ("tomllib", "pathlib", "click", "rich") if m in light] == []
    assert [m for m in light if m.split(".")[0] in HEAVY] == []
    assert ace_module == "netsens.ace.emulator" and ace_callable  # the function, not the module


def started(bar: "cli_progress._Bar", patience_s: float = 5.0) -> bool:
    """Whether the bar's timer has started it (waiting up to ``patience_s``)."""
    end = time.monotonic() + patience_s
    while bar.progress is None and time.monotonic() < end:
        time.sleep(0.01)
    return bar.progress is not None


def test_a_short_run_draws_no_progress_bar(monkeypatch) -> None:
    monkeypatch.setattr(cli_progress, "SHOW_AFTER_S", 0.5)
    bar = cli_progress._Bar()
    bar.stop()  # the run ended before its bar was due
    assert not started(bar, patience_s=1.0)


def test_a_long_run_shows_its_bar_before_the_engine_reports(monkeypatch) -> None:
    # While a large GOAL file is read the engine reports nothing: the timer shows the bar,
    # its elapsed time counted from the run's start.
    monkeypatch.setattr(cli_progress, "SHOW_AFTER_S", 0.0)
    bar = cli_progress._Bar()
    try:
        assert started(bar)
        assert bar.progress.tasks[0].start_time == bar.began
        bar.update(1 << 20, 5_000_000, 10, 40)
        assert bar.progress.tasks[0].completed == 10 and bar.progress.tasks[0].total == 40
    finally:
        bar.stop()


def test_the_engine_s_first_report_starts_the_bar_if_it_comes_first(monkeypatch) -> None:
    monkeypatch.setattr(cli_progress, "SHOW_AFTER_S", 60.0)
    bar = cli_progress._Bar()
    try:
        bar.update(1 << 20, 5_000_000, 3, 0)
        assert bar.progress is not None and bar.progress.tasks[0].completed == 3
    finally:
        bar.stop()
