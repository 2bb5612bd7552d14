"""netsens.sensitivity and `netsens sensitivity` against full runs: the exact curve
equals `run`'s makespan at sampled points to the ps, the tolerances are tight (at
it T <= (1 + eps) T0, one ps beyond it more), the slopes are the hand-counted L's and
o's of LOGGP.md's vectors; bad input is one error line and exit code 2."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from netsens import run_goal
from netsens.errors import InputError
from netsens.sensitivity import analyze

ROOT = Path(__file__).resolve().parent.parent
GOAL = ROOT / "examples" / "goal"


def netsens(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)


def assert_one_error_line(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("netsens: error: "), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


def by_param(out: dict) -> dict:
    return {p["param"]: p for p in out["params"]}


def test_the_dissemination_barrier_crosses_four_l_and_eight_o() -> None:
    # LOGGP.md vector 3: 4 rounds of (o, L, o) = 22 us; 1 % of it is 220 ns, which
    # 4 L's reach at +55 ns and 8 o's at +27.5 ns.
    out = analyze(GOAL / "dissemination16.goal")
    assert out["makespan_ps"] == 22_000_000
    p = by_param(out)
    assert (p["L"]["slope_down"], p["L"]["slope_up"]) == (4, 4)
    assert (p["o"]["slope_down"], p["o"]["slope_up"]) == (8, 8)
    assert [t["delta"] for t in p["L"]["tolerance"]] == [55_000, 110_000, 275_000, 550_000]
    assert p["o"]["tolerance"][0]["delta"] == 27_500
    parts = {q["part"]: q["ps"] for q in out["critical_path"]["parts"]}
    assert parts == {"o": 12_000_000, "L": 10_000_000}


def test_the_curve_is_the_full_runs_to_the_ps(tmp_path: Path) -> None:
    # Rank 1 computes 4 us, then receives from rank 0: T(L) = max(5.5 us, L + 3 us).
    goal = tmp_path / "tie.goal"
    goal.write_text(
        "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\n}\n"
        "rank 1 {\nl1: calc 4000\nl2: recv 1b from 0 tag 0\nl2 requires l1\n}\n"
    )
    out = analyze(goal, params=["L"], curves=["L=0us:20us"])
    points = out["curves"][0]["points"]
    assert points == [[0, 5_500_000], [2_500_000, 5_500_000], [20_000_000, 23_000_000]]
    for x_ps in (0, 1_000_000, 2_500_000, 2_500_001, 7_777_777, 20_000_000):
        full = run_goal(goal, overrides={"L": f"{x_ps}ps"})["makespan_ps"]
        # Between corners the curve is the line through them.
        (x0, t0), (x1, t1) = next(
            (a, b) for a, b in zip(points, points[1:], strict=False) if a[0] <= x_ps <= b[0]
        )
        assert full == t0 + (t1 - t0) * (x_ps - x0) / (x1 - x0)
    p = by_param(out)["L"]
    assert (p["slope_down"], p["slope_up"]) == (0, 1)


def test_tolerances_are_tight_by_full_runs() -> None:
    out = analyze(GOAL / "rendezvous.goal", params=["L", "o", "G"], confirm=True)
    for p in out["params"]:
        for t in p["tolerance"]:
            assert t["delta"] is not None
            assert t["confirmed"] is True, (p["param"], t)
            limit = (1 + t["epsilon"]) * out["makespan_ps"]
            assert t["at_ps"] <= limit < t["beyond_ps"]


def test_a_wildcard_receive_is_flagged_and_its_tolerances_checked(tmp_path: Path) -> None:
    goal = tmp_path / "any.goal"
    goal.write_text(
        "num_ranks 3\nrank 0 {\nl1: send 1b to 2 tag 0\n}\nrank 1 {\nl1: send 1b to 2 tag 0\n}\n"
        "rank 2 {\nl1: recv 1b from -1 tag 0\nl2: recv 1b from -1 tag 0\nl2 requires l1\n}\n"
    )
    out = analyze(goal, params=["L", "o"])
    assert out["timing_dependent"] is True
    assert all("confirmed" in t for p in out["params"] for t in p["tolerance"])


def test_an_app_is_analysed_from_one_run() -> None:
    out = analyze(app="stencil", ranks=4, size="tiny", params=["L"])
    assert out["run"]["verified"] is True
    assert out["makespan_ps"] == out["run"]["makespan_ps"]
    slope = by_param(out)["L"]["slope_up"]
    assert slope > 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--param", "lat"], ["unknown parameter `lat`", "L, o, g"]),
        (["--curve", "L=1ns/B:2ns/B"], ["L:", "unit"]),
        (["--curve", "G=1us:2us"], ["G:", "per-byte"]),
        (["--epsilon", "1.5"], ["epsilon", "between 0 and 1"]),
        (["--epsilon", "0"], ["epsilon", "between 0 and 1"]),
        (["--epsilon", "abc"], ["epsilon", "abc"]),
        (["--curve", "L=5us:1us"], ["curve of L", "range"]),
        (["--at", "L="], ["at L: no values", "L=1us,2us"]),
        (["--at", "wan.L=1us"], ["unknown parameter `wan.L`"]),
    ],
)
def test_bad_input_is_one_line(args: list[str], words: list[str]) -> None:
    assert_one_error_line(netsens("sensitivity", GOAL / "pingpong.goal", *args), *words)


@pytest.mark.parametrize("threads", ["0", "two", "-1", ""])
def test_a_bad_number_of_analysis_threads_is_one_line(threads: str) -> None:
    env = {**os.environ, "NETSENS_ANALYSIS_THREADS": threads}
    proc = netsens("sensitivity", GOAL / "pingpong.goal", env=env)
    assert_one_error_line(proc, "NETSENS_ANALYSIS_THREADS", f'"{threads}"', "number of threads")


def test_one_thread_and_several_give_the_same_answers() -> None:
    # radix's searches take six rounds of up to 30 points, each spread over the threads;
    # with one thread the recording has no thread making its pages ready either.
    args = ["--app", "radix", "--ranks", "8", "--size", "tiny", "--no-confirm", "--json"]
    outs = []
    for threads in ["1", "3"]:
        env = {**os.environ, "NETSENS_ANALYSIS_THREADS": threads}
        proc = netsens("sensitivity", *args, env=env)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        out.pop("run")  # the run's own wall times
        outs.append(out)
    assert outs[0]["params"] and outs[0] == outs[1]


def test_threads_asked_of_one_analysis_give_the_same_answers() -> None:
    # `threads=` holds for that call alone (a comparison's points beside its workers):
    # one thread, then three, then the process's own number again.
    kw = {"app": "radix", "ranks": 8, "size": "tiny", "confirm": False}
    outs = [analyze(**kw, threads=n) for n in (1, 3, None)]
    for out in outs:
        out.pop("run")  # the run's own wall times
    assert outs[0]["params"] and outs[0] == outs[1] == outs[2]


@pytest.mark.parametrize("threads", [0, -2, 1.5, "2"])
def test_a_bad_number_of_threads_is_refused(threads: object) -> None:
    with pytest.raises(InputError, match="number of threads"):
        analyze(GOAL / "pingpong.goal", threads=threads)  # type: ignore[arg-type]


def test_a_file_kept_as_read_is_read_again_once_it_changes(tmp_path: Path) -> None:
    # LogGOPSim's preset: o = 1.5 us, L = 2.5 us, G = 6 ns/B: one message of n B ends at
    # o + L + (n - 1) G + o = 5.5 us + (n - 1) x 6 ns.
    from netsens import _core

    goal = tmp_path / "one.goal"
    text = "num_ranks 2\nrank 0 {\nl0: send %sb to 1\n}\nrank 1 {\nl0: recv %sb from 0\n}\n"
    kw = {"params": ["L"], "confirm": False, "keep_read": True}
    goal.write_text(text % (1001, 1001))
    stat = goal.stat()
    assert analyze(goal, **kw)["makespan_ps"] == 5_500_000 + 1000 * 6000
    # The same size and modification time: the file as kept (a bound of the key, not a
    # read of it), then, its time changed, the file as it is.
    goal.write_text(text % (2001, 2001))
    os.utime(goal, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert analyze(goal, **kw)["makespan_ps"] == 5_500_000 + 1000 * 6000
    os.utime(goal, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert analyze(goal, **kw)["makespan_ps"] == 5_500_000 + 2000 * 6000
    # Without keep_read, or once forgotten, a file is read anew.
    goal.write_text(text % (3001, 3001))
    os.utime(goal, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert analyze(goal, params=["L"], confirm=False)["makespan_ps"] == 5_500_000 + 3000 * 6000
    _core.forget_kept_read()


def test_the_api_refuses_what_the_cli_refuses() -> None:
    with pytest.raises(InputError, match="between 0 and 1"):
        analyze(GOAL / "pingpong.goal", epsilons=[1.0])
    with pytest.raises(InputError, match="ranks"):
        analyze(app="stencil")


def test_json_has_units_and_the_run() -> None:
    proc = netsens("sensitivity", GOAL / "pingpong.goal", "--json", "--curve", "L")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["run"]["makespan_ps"] == out["makespan_ps"]
    assert {p["unit"] for p in out["params"]} <= {"ps", "ps/B", "1/cpu_speed"}
    # Default range: 0.1x to 100x the platform's 2.5 us.
    # A ping-pong's round trip (4 o + 2 L) crosses L twice.
    proc = netsens("sensitivity", GOAL / "pingpong.goal", "--json", "--at", "L=0us,1ms")
    assert proc.returncode == 0, proc.stderr
    l0 = by_param(out)["L"]["value"]
    at = json.loads(proc.stdout)["at"][0]
    assert at["makespan_ps"] == [out["makespan_ps"] + 2 * (x - l0) for x in (0, 1e9)]
    assert out["curves"][0]["points"][0][0] == 250_000
    assert out["curves"][0]["points"][-1][0] == 250_000_000


def test_the_timeline_holds_each_ranks_compute_and_overhead(tmp_path: Path) -> None:
    # The bars are taken from the record; the run counts the same times its own way.
    out = analyze(app="stencil", ranks=4, size="tiny", params=["L"], timeline=True)
    t = out["timeline"]
    assert t["ranks"] == [0, 3] and t["window_ps"] == [0, out["makespan_ps"]]
    for r in out["run"]["ranks"]:
        for name in ("compute", "overhead"):
            bars = sum(end - start for rank, start, end in t[name] if rank == r["rank"])
            assert bars == r[f"{name}_ps"], (r["rank"], name)
    assert t["critical"][-1][1] == out["makespan_ps"]
    for suffix in ("html", "png"):
        proc = netsens(
            "sensitivity",
            "--app",
            "stencil",
            "--ranks",
            4,
            "--size",
            "tiny",
            "--param",
            "L",
            "--timeline",
            tmp_path / f"t.{suffix}",
            "--timeline-ranks",
            "1:2",
        )
        assert proc.returncode == 0, proc.stderr
        assert (tmp_path / f"t.{suffix}").stat().st_size > 10_000
    assert_one_error_line(
        netsens("sensitivity", GOAL / "pingpong.goal", "--timeline", tmp_path / "t.svg"), ".svg"
    )


def test_where_the_order_of_arrivals_changes_full_runs_find_the_tolerance() -> None:
    # Rank 3 receives from 0 (after 20 us of compute: one L) and from 1 (after a
    # ping-pong with 2: three L's). At L = 2.5 us rank 1's message arrives first
    # (15 us against 24 us); 4.5 us more L and rank 0's does. The record keeps the
    # first order, so at eps = 50 % (beyond the swap) its tolerance is off and full
    # runs find the real one.
    goal = ROOT / "tests" / "data" / "arrival_swap.goal"
    out = analyze(goal, params=["L"], epsilons=[0.01, 0.5])
    small, large = by_param(out)["L"]["tolerance"]
    assert small["confirmed"] is True
    assert large["confirmed"] is False and large["delta_by_runs"] != large["delta"]
    limit = 1.5 * out["makespan_ps"]
    at = 2_500_000 + int(large["delta_by_runs"])
    assert run_goal(goal, overrides={"L": f"{at}ps"})["makespan_ps"] <= limit
    assert run_goal(goal, overrides={"L": f"{at + 1}ps"})["makespan_ps"] > limit


def test_a_trace_is_analysed_like_its_replay(tmp_path: Path) -> None:
    from netsens import _core

    trace = _core.write_synthetic_trace(str(tmp_path / "t"), 4, 5, 1000, 64, 2, 0)
    out = analyze(trace, params=["L", "o"], curves=["L=1us:5us"])
    assert out["makespan_ps"] == run_goal(trace)["makespan_ps"]
    assert all(t["confirmed"] for p in out["params"] for t in p["tolerance"])
    for x, t in out["curves"][0]["points"]:
        assert run_goal(trace, overrides={"L": f"{round(x)}ps"})["makespan_ps"] == t


def lp_tolerance(graph: dict, x0: float, limit: float) -> float:
    """LLAMP's question as a linear program over the record, solved by HiGHS: the
    largest x with times t such that every node is no earlier than each predecessor
    plus each of its cost lines (a + b·x) and the end is at most ``limit``."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    n = len(graph["lines"])
    rows, cols, vals, rhs = [], [], [], []
    for v, (preds, lines) in enumerate(zip(graph["preds"], graph["lines"], strict=True)):
        for a, b in lines:
            for q in preds or [None]:
                # t_q + a + b x - t_v <= 0 (variables: t_0..t_{n-1}, then x)
                r = len(rhs)
                rows += [r, r]
                cols += [v, n]
                vals += [-1.0, b]
                if q is not None:
                    rows.append(r)
                    cols.append(q)
                    vals.append(1.0)
                rhs.append(-a)
    a_ub = coo_matrix((vals, (rows, cols)), shape=(len(rhs), n + 1)).tocsr()
    bounds = [(0, None)] * n + [(x0, None)]
    bounds[graph["sink"]] = (0, limit)
    c = np.zeros(n + 1)
    c[n] = -1.0  # maximise x
    res = linprog(c, A_ub=a_ub, b_ub=rhs, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return float(res.x[n])


@pytest.mark.parametrize(
    ("goal", "param"),
    [("dissemination16.goal", "L"), ("rendezvous.goal", "G"), ("pingpong.goal", "o")],
)
def test_tolerances_equal_a_linear_program_solved_by_highs(goal: str, param: str) -> None:
    out = analyze(GOAL / goal, params=[param], graph=param, confirm=False)
    p = by_param(out)[param]
    for t in p["tolerance"]:
        limit = (1 + t["epsilon"]) * out["makespan_ps"]
        lp = lp_tolerance(out["graph"], p["value"], limit) - p["value"]
        # The analysis answers on the engine's grid: the step at or below the LP's root.
        grid = 0.001 if p["unit"] == "ps/B" else 1.0
        assert t["delta"] == pytest.approx(math.floor(lp / grid + 1e-6) * grid, abs=1e-9), (t, lp)


TAPERED_PAIR = """[cluster]
L = "1us"
o = "1us"
g = "0ns"
G = "1ns/B"
S = "1MiB"

[topology]
kind = "fat-tree"
down = [2, 2]
up = [1]
bandwidth = "1GB/s"
latency = "100ns"
"""


def test_on_a_topology_the_critical_path_holds_the_links_time(tmp_path: Path) -> None:
    # 0 -> 2 and 1 -> 3 at once, 1001 B: their k = 1000 B share leaf 0's one up link
    # (2:1) at 0.5 B/ns: 2000 ns instead of 1000, a wait of 1000 ns; 4 links of 100 ns
    # on the route. T = o + L + 400 ns + 1000 ns + o + 1000 B x G = 5400 ns.
    platform = tmp_path / "tapered.toml"
    platform.write_text(TAPERED_PAIR)
    goal = tmp_path / "pair.goal"
    goal.write_text(
        "num_ranks 4\nrank 0 {\nl1: send 1001b to 2 tag 0\n}\n"
        "rank 1 {\nl1: send 1001b to 3 tag 0\n}\n"
        "rank 2 {\nl1: recv 1001b from 0 tag 0\n}\nrank 3 {\nl1: recv 1001b from 1 tag 0\n}\n"
    )
    out = analyze(goal, platform=platform, params=["L"], confirm=False)
    assert out["makespan_ps"] == 5_400_000 == run_goal(goal, platform)["makespan_ps"]
    assert out["link_waits_held_fixed"] is True
    parts = {q["part"]: q["ps"] for q in out["critical_path"]["parts"]}
    assert parts == {
        "o": 2_000_000,
        "L": 1_000_000,
        "route latency": 400_000,
        "link queueing": 1_000_000,
        "G": 1_000_000,
    }
    # L shifts both flows alike: its 1 % tolerance is 1 % of 5400 ns, 54 ns.
    (tol,) = [t for t in by_param(out)["L"]["tolerance"] if t["epsilon"] == 0.01]
    assert tol["delta"] == pytest.approx(54_000)


def test_an_app_on_the_example_fat_tree_is_analysed_from_one_run() -> None:
    platform = ROOT / "examples" / "platforms" / "fat-tree-64.toml"
    out = analyze(app="stencil", ranks=64, size="tiny", platform=platform, params=["L", "o"])
    parts = {q["part"]: q["ps"] for q in out["critical_path"]["parts"]}
    # The record reproduces the run's end to the ps (the analysis checks it), and its
    # make-up adds up to it; each message on the path crossed 100 ns links.
    assert out["makespan_ps"] == out["run"]["makespan_ps"]
    assert sum(parts.values()) == pytest.approx(out["makespan_ps"], abs=1)
    assert parts["route latency"] > 0 and parts["route latency"] % 100_000 == 0
    for p in out["params"]:
        for t in p["tolerance"]:
            assert t["confirmed"] or "delta_by_runs" in t, (p["param"], t)


def test_a_search_by_runs_that_never_leaves_the_limit_ends_at_its_bound() -> None:
    # A run whose time stops growing: the search doubles at most MAX_DOUBLINGS times
    # and answers "at least" the last value that held, instead of running forever.
    from netsens.sensitivity import confirm as C

    calls = []

    def fits(x: float) -> bool:
        calls.append(x)
        return True

    found = C.search(fits, 0.0, 10.0, 1.0)
    assert found == C.Found(10.0 * 2 ** (C.MAX_DOUBLINGS - 1), None, False)
    assert len(calls) == C.MAX_DOUBLINGS
    # A breakpoint at 1000: found to the grid step.
    assert C.search(lambda x: x <= 1000, 0.0, 10.0, 1.0) == C.Found(1000, 1001, True)


def test_a_search_by_runs_from_a_far_guess_stops_at_its_halvings_with_an_interval() -> None:
    # 10^30 grid steps out (about 2^100): MAX_HALVINGS halvings leave a bracket of
    # about 2^36 steps, answered as an interval holding the breakpoint.
    from netsens.sensitivity import confirm as C

    calls = []

    def fits(x: float) -> bool:
        calls.append(x)
        return x <= 12_345

    found = C.search(fits, 0.0, 1e30, 1.0)
    assert len(calls) == 1 + C.MAX_HALVINGS and not found.exact
    assert found.hi is not None and found.lo <= 12_345 < found.hi
    assert 2**35 < found.hi - found.lo < 2**37


@pytest.mark.parametrize("grid", [0.001, 1.0])
def test_a_search_by_runs_on_fs_per_byte_ends_on_every_breakpoint(grid: float) -> None:
    # The search once halved a float span: a bracket between 1.5 and 2 fs/B wide
    # (float error) took its own low end as the middle and ran on forever. In whole
    # grid steps every halving moves: each breakpoint is found to the step.
    from netsens.sensitivity import confirm as C

    for k in range(0, 3000, 7):
        top = 0.5 + k * grid
        found = C.search(lambda x, top=top: x <= top + grid / 4, 0.5, 0.5 + 3 * grid, grid)
        assert found.exact and abs(found.lo - top) < grid / 100, (k, found)


def _schedules():
    import importlib.util

    path = ROOT / "scripts" / "sensitivity_schedules.py"
    spec = importlib.util.spec_from_file_location("sensitivity_schedules", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check_by_runs(goal: Path, out: dict) -> None:
    """Every tolerance checked: where the runs confirmed the record's, fine; where
    they found another, a run at it fits the limit and a grid step beyond does not."""
    t0 = out["makespan_ps"]
    for p in out["params"]:
        for t in p["tolerance"]:
            assert "interrupted" not in t
            if t["confirmed"] is not False:
                continue
            assert "delta_by_runs_at_most" not in t and t["delta_by_runs"] is not None
            grid, unit = (0.001, "ps/B") if p["unit"] == "ps/B" else (1.0, "ps")
            at = p["value"] + round(t["delta_by_runs"] / grid) * grid
            limit = (1 + t["epsilon"]) * t0

            def run(x: float, name: str = p["param"], unit: str = unit) -> int:
                text = f"{x:.3f}{unit}" if unit == "ps/B" else f"{int(x)}ps"
                return run_goal(goal, overrides={name: text})["makespan_ps"]

            assert run(at) <= limit < run(at + grid), (p["param"], t)


def test_the_pipeline_that_hung_answers_every_parameter_checked_by_runs(tmp_path: Path) -> None:
    # An 8-rank pipeline of 16 chunks of 8 KiB: O's confirmation ran on forever in the
    # search by runs (see the test above); every parameter answers now, each
    # tolerance either confirmed or found by runs to the grid step.
    goal = tmp_path / "pipeline.goal"
    _schedules().write(str(goal), _schedules().pipeline(8, 16, 8192))
    proc = netsens("sensitivity", goal, "--json", "--chain", "0")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {p["param"] for p in out["params"]} == {"L", "o", "g", "G", "O", "cpu"}
    assert any(t["confirmed"] is False for t in by_param(out)["O"]["tolerance"])
    _check_by_runs(goal, out)


def test_random_pairs_of_many_sizes_answer_os_tolerance(tmp_path: Path) -> None:
    # 32 ranks, 24 rounds of random pairs, 1 B to 200 000 B: O's search at 10 %.
    goal = tmp_path / "pairs.goal"
    _schedules().write(str(goal), _schedules().pairs(32, 24, 200_000, 1))
    out = analyze(goal, params=["O"], epsilons=[0.1], chain=0)
    _check_by_runs(goal, out)


def test_ctrl_c_during_the_full_runs_prints_what_is_known_and_exits_130(tmp_path: Path) -> None:
    import signal

    # 64 ranks, 100 rounds: its full runs take several s.
    goal = tmp_path / "pairs.goal"
    _schedules().write(str(goal), _schedules().pairs(64, 100, 200_000, 1))
    command = [sys.executable, "-m", "netsens", "sensitivity", str(goal), "--json"]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert proc.stderr is not None
    # The first progress line (off a terminal, once the full runs have taken 2 s).
    line = proc.stderr.readline()
    assert line.startswith("sensitivity: confirming: "), line
    assert "full runs" in line and "ETA" in line
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "stopped during the full runs" in stderr and "Traceback" not in stderr
    out = json.loads(stdout)
    tolerances = [t for p in out["params"] for t in p["tolerance"]]
    checked = [t for t in tolerances if "interrupted" not in t]
    assert checked and len(checked) < len(tolerances)
    # The record's answer stays for every tolerance; the checked ones have their runs.
    assert all("delta" in t for t in tolerances)
    assert all("at_ps" in t for t in checked if t["confirmed"] is not None)


def test_values_asked_alone_are_the_full_runs_and_the_curve_to_the_ps(tmp_path: Path) -> None:
    # test_the_curve_is_the_full_runs_to_the_ps's tie: T(L) = max(5.5 us, L + 3 us),
    # asked only at some L (in ps, or as text with units), o's values in the same call.
    goal = tmp_path / "tie.goal"
    goal.write_text(
        "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\n}\n"
        "rank 1 {\nl1: calc 4000\nl2: recv 1b from 0 tag 0\nl2 requires l1\n}\n"
    )
    xs = [0, 1_000_000, 2_500_000, 2_500_001, 7_777_777, 20_000_000]
    out = analyze(goal, params=[], at=[("L", xs), "o=0us,1us,10us"], curves=["L=0us:20us"])
    by_hand = [max(5_500_000, x + 3_000_000) for x in xs]
    (at_l, at_o) = out["at"]
    assert (at_l["param"], at_l["unit"], at_l["values"]) == ("L", "ps", xs)
    assert at_l["makespan_ps"] == by_hand
    assert at_l["makespan_ps"] == [
        run_goal(goal, overrides={"L": f"{x}ps"})["makespan_ps"] for x in xs
    ]
    (x0, t0), (x1, t1) = out["curves"][0]["points"][1:]
    assert at_l["makespan_ps"][4] == t0 + (t1 - t0) * (xs[4] - x0) / (x1 - x0)
    # T(o) = max(4 us + o, o + 2.5 us + o): the receive's o after the computation, or
    # after the send's o and L = 2.5 us.
    assert at_o["values"] == [0, 1_000_000, 10_000_000]
    assert at_o["makespan_ps"] == [4_000_000, 5_000_000, 22_500_000]
    assert at_o["makespan_ps"] == [
        run_goal(goal, overrides={"o": f"{x}ps"})["makespan_ps"] for x in at_o["values"]
    ]


@pytest.mark.parametrize(
    ("at", "words"),
    [
        ([("lat", [1.0])], ["unknown parameter `lat`", "L, o, g"]),
        ([("L", [])], ["at L: no values", "L=1us,2us"]),
        (["G="], ["at G: no values", "G=1ns/B,2ns/B"]),
        (["L"], ["at L", "gives no values"]),
        (["L=1us,2ns/B"], ["L:", "unit"]),
        ([("o", [1e6, -1.0])], ["at o", "≥ 0 ps", "-1"]),
    ],
)
def test_bad_values_asked_are_one_line(at: list, words: list[str]) -> None:
    with pytest.raises(InputError) as e:
        analyze(GOAL / "pingpong.goal", params=[], at=at, confirm=False)
    assert "\n" not in str(e.value)
    for word in words:
        assert word in str(e.value), str(e.value)


def test_a_bounded_answer_is_printed_as_what_is_known() -> None:
    # Where a search stopped at its bound: an interval, or "at least"; where Ctrl-C
    # stopped the runs before a tolerance, the record's answer marked not checked.
    from netsens.cli.sensitivity import _tolerance

    ps = "ps"
    assert _tolerance(ps, {"delta": 5e6}) == "+5 us"
    assert _tolerance(ps, {"delta": 5e6, "delta_at_most": 7e6}) == "+5 us to +7 us"
    assert _tolerance(ps, {"delta": 5e6, "delta_at_most": None}) == ">= +5 us"
    runs = {"delta": 5e6, "confirmed": False, "delta_by_runs": 4e6}
    assert _tolerance(ps, runs) == "+4 us (runs)"
    interval = {**runs, "delta_by_runs_at_most": 4.5e6}
    assert _tolerance(ps, interval) == "+4 us to +4.5 us (runs)"
    at_least = {**runs, "delta_by_runs": None, "delta_by_runs_at_least": 9e6}
    assert _tolerance(ps, at_least) == ">= +9 us (runs)"
    stopped = {"delta": 5e6, "confirmed": None, "interrupted": True}
    assert _tolerance(ps, stopped) == "+5 us (not checked)"
