"""The report's one-run section (netsens.report.one_run): each workload's curves from
one recorded run beside the study's full runs, their difference, and why they differ.
The swept points are full runs (netsens.run), so where the section says the two agree
the record equals the engine; where they differ, the reason is the one the workload
was built to show."""

from pathlib import Path

import polars as pl
import pytest
from cli_run import netsens as netsens_cli
from cli_run import one_error_line
from frames import loaded_frame, stored_row
from report_study import REAL_AXES, REAL_WORKLOADS, real_points, synthetic_points

import netsens
from netsens.errors import NetsensError
from netsens.report.one_run import Comparison, compare
from netsens.report.page import build_report, read_source, render_html

US = 1_000_000  # ps per µs

# docs/guides/sensitivity.md's swap (tests/test_sensitivity.py): rank 3 receives from 0
# after one L and from 1 after three; at L = 2.5 us rank 1's message comes first, and
# from L = 7 us on rank 0's does: the record keeps the first order.
SWAP = Path(__file__).resolve().parent / "data" / "arrival_swap.goal"
SWAP_L = ["2.5us", "4us", "6us", "9us", "12us"]


def swap_study(tmp_path: Path) -> tuple[Path, pl.DataFrame]:
    """The swap's GOAL file in ``tmp_path`` and its study swept in L by full runs."""
    goal = tmp_path / "swap.goal"
    goal.write_text(SWAP.read_text())
    rows = []
    for i, value in enumerate(SWAP_L):
        over = {} if i == 0 else {"L": value}
        result = netsens.run(goal, "loggopsim", overrides=over)
        rows.append(stored_row(result, axis="L" if over else "baseline", overrides=over))
    return goal, loaded_frame(rows)


def test_a_small_study_agrees_near_its_baseline_and_says_where_it_does_not(
    tmp_path: Path,
) -> None:
    # Swept by full runs: at and below the swap the one-run curve is the run to the ps;
    # beyond it, the section gives the order of events as the reason.
    _, frame = swap_study(tmp_path)
    (c,) = compare(frame, tmp_path)
    assert isinstance(c, Comparison) and c.axis == "L"
    assert c.x == [2.5 * US, 4 * US, 6 * US, 9 * US, 12 * US]
    for x, swept, mine in zip(c.x, c.swept_ps, c.one_run_ps, strict=True):
        if x <= 6 * US:
            assert mine == swept, x
    beyond = zip(c.one_run_ps[3:], c.swept_ps[3:], strict=True)
    assert any(mine != swept for mine, swept in beyond)
    assert "order of events" in c.why and "from L = 9e+06 ps on" in c.why


def test_the_line_between_the_swept_values_is_the_full_runs_before_the_swap(
    tmp_path: Path,
) -> None:
    # The dashed line goes through the swept values and 3 between each two; up to the
    # swap (L = 6 us) the record there is a full run's makespan, to the ps.
    goal, frame = swap_study(tmp_path)
    said: list[str] = []
    (c,) = compare(frame, tmp_path, jobs=1, progress=said.append)
    assert c.line_x[:5] == [2.5 * US, 2.875 * US, 3.25 * US, 3.625 * US, 4 * US]
    assert len(c.line_x) == len(c.line_ps) == 4 * (len(SWAP_L) - 1) + 1
    for x, t in zip(c.line_x, c.line_ps, strict=True):
        if x <= 6 * US:
            assert t == netsens.run(goal, "loggopsim", overrides={"L": f"{x:.0f}ps"}).makespan_ps
    # The swept points are on the line.
    assert [c.line_ps[c.line_x.index(x)] for x in c.x] == c.one_run_ps
    assert len(said) == 1 and said[0].startswith(f"one run: {c.series} (1/1, "), said


def test_workloads_analysed_in_parallel_give_what_one_process_gives(tmp_path: Path) -> None:
    frame = loaded_frame(real_points())
    said: list[str] = []
    one = compare(frame, tmp_path, jobs=1)
    assert compare(frame, tmp_path, jobs=2, progress=said.append) == one
    # A line as each workload finishes, counted.
    assert sorted(line.split(" (")[1][:3] for line in said) == ["1/2", "2/2"], said
    assert {line.split(" (")[0] for line in said} == {f"one run: {w}" for w in REAL_WORKLOADS}


def test_a_worker_that_dies_is_one_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two workloads whose records take far more than 1 MiB: capped at that, each worker
    # ends itself at its first look at its memory (its own error line, exit 2).
    rows = []
    for app in ("em3d-read", "connect"):
        for over in ({}, {"o": "10us"}):
            r = netsens.run(app, "now1997", ranks=32, size="small", overrides=over)
            rows.append(stored_row(r, axis="o" if over else "baseline", overrides=over))
    monkeypatch.setenv("NETSENS_MEMORY_LIMIT", "1MiB")
    with pytest.raises(NetsensError, match="a worker process died .* fewer --jobs"):
        compare(loaded_frame(rows), tmp_path, jobs=2)


def test_jobs_below_one_are_one_error_line(tmp_path: Path) -> None:
    line = one_error_line(netsens_cli("report", tmp_path, "--jobs", "0"))
    assert "--jobs" in line and "0 is not in the range" in line


def test_the_report_of_a_real_study_has_the_section_per_workload_and_axis(
    tmp_path: Path,
) -> None:
    from report_study import write_points

    results = write_points(real_points(), tmp_path / "results")
    report = build_report(read_source(results), one_run=True)
    assert [f.name for f in report.one_run] == [f"one_run_{a}" for a in ("o", "L")]
    for fig in report.one_run:
        labels = {s.label for s in fig.series}
        assert labels == {f"{w}: {k}" for w in REAL_WORKLOADS for k in ("swept", "one run")}
    table = report.one_run_table
    assert table is not None
    # A row per workload, axis and swept value (the baseline is on both curves), seed 0.
    assert len(table.rows) == len(REAL_WORKLOADS) * sum(len(v) for v in REAL_AXES.values())
    for row in table.rows:
        same = row[4] in ("+0.000", "-0.000")
        assert same == (row[6] == ""), row  # a reason exactly where they differ
        if "2.9" in row[1] or "5e+06" in row[1]:
            assert same, row  # the platform's own values: the recorded run itself
    assert "One run against the sweep" in render_html(report)


def test_results_that_are_not_this_engines_are_named_as_such() -> None:
    # The synthetic study's run times follow a formula, not the engine: the record
    # differs already at the baseline, and the section says the stored run is another.
    found = compare(loaded_frame(synthetic_points(), keep_baseline_rows=True))
    rows = [c for c in found if isinstance(c, Comparison)]
    assert rows and all("stored baseline run is not" in c.why for c in rows)


def test_the_figure_draws_run_times_in_their_unit_with_one_legend_entry_per_workload(
    tmp_path: Path,
) -> None:
    # The swap runs for tens of µs: the y axis in µs, the values divided accordingly;
    # both lines of a workload in its group (the legend: the workload once, then the
    # two line styles), none without one (an empty legend entry).
    from netsens.report import draw
    from netsens.report.one_run import figure

    _, frame = swap_study(tmp_path)
    (c,) = compare(frame, tmp_path)
    fig = figure("L", [c], {})
    assert fig.y_title == "run time (µs)"
    swept, line = fig.series
    assert swept.y == [t / US for t in c.swept_ps] and line.y == [t / US for t in c.line_ps]
    assert swept.group == line.group == c.series
    # The hover text says the value's unit, not the slowdown's "×".
    hovers = [t.hovertemplate for t in draw.to_plotly(fig).data]
    assert all("%{y:.4g} µs<" in h for h in hovers), hovers
    assert draw.hover_unit("slowdown (×)") == "×" and draw.hover_unit("messages") == ""

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn = draw._mpl_lines(plt, fig)
    _, labels = draw._legend_entries(drawn.axes[0], fig)
    assert labels == [c.series, "swept", "one run"]
