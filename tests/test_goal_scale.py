"""A GOAL run of many ranks from Python: the spread over the ranks computed in the
engine equals the one computed here from every rank, and a GOAL file's parse is
reported as it goes."""

import statistics

from netsens.cli import progress as cli_progress
from netsens.engine import run_goal

COLUMNS = ["end_ps", "compute_ps", "overhead_ps", "wait_ps", "noise_ps"]


def uneven_goal(p: int) -> str:
    """Rank i computes i x 100 ns, then sends 1 byte to the next rank and receives
    from the previous one: every rank ends at a different time."""
    lines = [f"num_ranks {p}"]
    for i in range(p):
        lines += [f"rank {i} {{", f"c: calc {100 * i}", f"s: send 1b to {(i + 1) % p} tag 0"]
        lines += [f"r: recv 1b from {(i - 1) % p} tag 0", "s requires c", "}"]
    return "\n".join(lines) + "\n"


def test_the_rank_summary_is_the_spread_of_the_ranks(tmp_path):
    goal = tmp_path / "uneven.goal"
    goal.write_text(uneven_goal(37))
    whole = run_goal(goal, matrix=False)
    summed = run_goal(goal, matrix=False, summary_over=16)
    assert len(whole["ranks"]) == 37 and "rank_summary" not in whole
    assert summed["ranks"] == [] and summed["rank_summary"]["ranks"] == 37
    assert summed["makespan_ps"] == whole["makespan_ps"]
    for column in COLUMNS:
        values = [r[column] for r in whole["ranks"]]
        spread = [summed["rank_summary"][k][column] for k in ("min", "median", "max")]
        assert spread == [min(values), statistics.median_low(values), max(values)], column
    ends = [r["end_ps"] for r in whole["ranks"]]
    assert len(set(ends)) > 1  # the median is not the min or max by accident
    # At most `summary_over` ranks: listed as before.
    assert len(run_goal(goal, matrix=False, summary_over=37)["ranks"]) == 37


def test_parsing_is_reported_up_to_the_whole_file(tmp_path):
    # A file past the parser's 4 MiB threshold for cutting it into parts.
    goal = tmp_path / "many.goal"
    goal.write_text(uneven_goal(60_000))
    size = goal.stat().st_size
    assert size > 4 << 20
    calls = []
    result = run_goal(goal, matrix=False, parsing=lambda *a: calls.append(a), summary_over=16)
    assert result["rank_summary"]["ranks"] == 60_000
    assert calls and calls[-1] == (size, size)
    assert all(total == size for _, total in calls)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_the_terminal_progress_shows_parse_then_simulation(monkeypatch):
    monkeypatch.setattr(cli_progress.sys.stderr, "isatty", lambda: True, raising=False)
    with cli_progress.run_progress() as (progress, parsing):
        assert progress is not None and parsing is not None
        parsing(64 << 20, 1 << 30)
        parsing(1 << 30, 1 << 30)
        progress(1 << 20, 5_000_000, 10, 100)


def test_no_progress_hooks_when_stderr_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr(cli_progress.sys.stderr, "isatty", lambda: False, raising=False)
    with cli_progress.run_progress() as hooks:
        assert hooks == (None, None)
