"""Traces from other tools on the command line (no MPI needed): Score-P-style OTF2
archives and liballprof traces written here, replayed to times derived by hand
(crates/netsens-trace/tests/scorep.rs and allprof.rs derive them), described by
``netsens trace info``, and bad ones refused in one line; GOAL's any-tag as Schedgen
writes it."""

import json
from pathlib import Path

from cli_run import netsens, one_error_line

from netsens import _core

# L = 5 us, o = 1 us, g = 0, G = 6 ns/B, O = 0: the tests' platform of the Rust side.
NETWORK = ("--L", "5us", "--o", "1us", "--g", "0us", "--G", "6ns/B", "--O", "0ns/B")
# netsens_trace::SCOREP_NONBLOCKING, SCOREP_REGIONS_ONLY, SCOREP_NO_MPI
NONBLOCKING, REGIONS_ONLY, NO_MPI = 1, 2, 4


def replay(*args: object) -> dict:
    proc = netsens("replay", *args, *NETWORK, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def rank_ends_ns(result: dict) -> list[int]:
    return [r["end_ps"] // 1000 for r in result["ranks"]]


def test_a_scorep_archive_replays_from_where_mpi_init_returns(tmp_path):
    # Ranks launched 716 ms and 100 ms after the clock's offset, 5 ms with measurement
    # off, a 2 ms buffer flush: none of it is compute (19 584 ns and 14 584 ns, not
    # the 716 ms that counting from the offset gave).
    anchor = _core.write_scorep_style_trace(str(tmp_path / "t"), 0)
    result = replay(anchor)
    assert rank_ends_ns(result) == [19584, 14584]
    assert result["workload"]["tracer"] == "Score-P 8.4"
    assert result["workload"]["warnings"] == []
    # Another tracer's archive records no tracer cost: its gaps are charged whole, and
    # the replay says so.
    assert result["workload"]["tracer_gap_ps"] == [None, None]
    shown = netsens("replay", anchor, *NETWORK)
    assert "not recorded in the trace: gaps between calls charged whole" in shown.stdout


def test_nonblocking_collectives_progress_in_calls_or_on_a_thread(tmp_path):
    anchor = _core.write_scorep_style_trace(str(tmp_path / "t"), NONBLOCKING)
    assert rank_ends_ns(replay(anchor)) == [19584, 18584]
    assert rank_ends_ns(replay(anchor, "--collectives", "nonblocking=thread")) == [19584, 16542]


def test_trace_info_shows_tracer_ranks_measured_time_and_calls(tmp_path):
    anchor = _core.write_scorep_style_trace(str(tmp_path / "t"), 0)
    proc = netsens("trace", "info", anchor, "--json")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert (info["tracer"], info["ranks"], info["ticks_per_second"]) == (
        "Score-P 8.4",
        2,
        2_100_000_000,
    )
    assert [r["measured_ps"] // 1000 for r in info["ranks_measured"]] == [21000, 24500]
    # rank 0 had 5 ms off, rank 1 a 2 ms flush
    assert [r["paused_ps"] // 1000 for r in info["ranks_measured"]] == [5_000_000, 2_000_000]
    calls = {c["call"]: (c["count"], c["replay"]) for c in info["calls"]}
    assert calls["MPI_Allreduce"] == (4, "modelled")
    assert calls["MPI_Comm_split"] == (2, "kept as compute")
    text = netsens("trace", "info", anchor)
    assert text.returncode == 0, text.stderr
    assert "Score-P 8.4" in text.stdout and "2,100,000,000 ticks/s" in text.stdout
    assert "21 us" in text.stdout and "MPI_Comm_split" in text.stdout


def test_a_nonblocking_collective_without_its_request_is_replayed_with_a_warning(tmp_path):
    # MPI_Iallreduce's region only: the blocking allreduce at the call, of no bytes
    # (ends derived in crates/netsens-trace/tests/scorep.rs), and one warning line
    anchor = _core.write_scorep_style_trace(str(tmp_path / "t"), REGIONS_ONLY)
    proc = netsens("replay", anchor, *NETWORK, "--json")
    assert proc.returncode == 0, proc.stderr
    assert rank_ends_ns(json.loads(proc.stdout)) == [23542, 18542]
    warning = [line for line in proc.stderr.splitlines() if "MPI_Iallreduce" in line]
    assert len(warning) == 1 and "without a request record" in warning[0], proc.stderr
    assert "1 time(s) on each rank" in warning[0]


def test_a_trace_without_mpi_and_a_directory_are_one_line(tmp_path):
    anchor = _core.write_scorep_style_trace(str(tmp_path / "gpu"), NO_MPI)
    line = one_error_line(netsens("replay", anchor))
    assert "the trace has no MPI processes" in line and anchor in line
    line = one_error_line(netsens("trace", "info", anchor))
    assert "the trace has no MPI processes" in line and anchor in line
    empty = tmp_path / "empty"
    empty.mkdir()
    line = one_error_line(netsens("replay", empty))
    assert f"{empty}: a directory, not a trace" in line
    line = one_error_line(netsens("trace", "info", empty))
    assert "a directory, not a trace" in line


def test_a_cpu_clock_ahead_of_the_wall_clock_is_said_on_stderr(tmp_path):
    # faults bit 5: each 1000 ns of compute records 2000 ns of CPU time
    anchor = _core.write_synthetic_trace(str(tmp_path / "t"), 2, 3, 1000, 1, 0, 32)
    proc = netsens("replay", anchor, *NETWORK)
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert (
        line.startswith("netsens: warning: ") and "rank 0's replayed compute (5us) exceeds" in line
    )
    quiet = netsens("replay", anchor, *NETWORK, "--compute", "wall")
    assert quiet.returncode == 0 and quiet.stderr == ""


LIBALLPROF = {
    0: """# htor's PMPI Tracer 1 Output File
MPI_Init:-:1:2:1000
MPI_Send:1003:11251872:1:11,8,8:1:7:0,0,2:1004
MPI_Irecv:1010:11251872:1:11,8,8:-1:-1:0,0,2:7104000:1010
MPI_Wait:1012:7104000:140734714680384:1040
MPI_Allreduce:1041:1:2:1:11,8,8:3:0,0,2:1050
MPI_Finalize:1050:-
""",
    1: """# htor's PMPI Tracer 1 Output File
MPI_Init:-:1:2:2000
MPI_Recv:2005:11287888:1:11,8,8:0:7:0,1,2:140737488340112:2020
MPI_Send:2022:11287888:1:11,8,8:0:9:0,1,2:2023
MPI_Allreduce:2030:1:2:1:11,8,8:3:0,1,2:2040
MPI_Finalize:2040:-
""",
}


def write_liballprof(directory: Path) -> Path:
    directory.mkdir()
    for rank, text in LIBALLPROF.items():
        (directory / f"pmpi-trace-rank-{rank}.txt").write_text(text)
    return directory


def test_a_liballprof_trace_is_a_workload_of_replay_and_to_goal(tmp_path):
    trace = write_liballprof(tmp_path / "allprof")
    # crates/netsens-trace/tests/allprof.rs derives 27 084 and 27 126 ns
    result = replay(trace)
    assert rank_ends_ns(result) == [27084, 27126]
    assert result["workload"]["tracer"] == "liballprof"
    goal = tmp_path / "allprof.goal"
    proc = netsens("trace", "to-goal", trace / "pmpi-trace-rank-0.txt", goal)
    assert proc.returncode == 0, proc.stderr
    assert "recv 8b from -1 tag -1" in goal.read_text()
    truncated = write_liballprof(tmp_path / "cut")
    (truncated / "pmpi-trace-rank-1.txt").write_text(LIBALLPROF[1].split("MPI_Allreduce")[0])
    line = one_error_line(netsens("replay", truncated))
    assert "pmpi-trace-rank-1.txt: truncated" in line


def test_schedgens_any_tag_reads_as_loggopsim_reads_it(tmp_path):
    # Schedgen prints MPI_ANY_TAG as 2^64 - 1: a receive that matches tag 5 (LOGGP.md
    # vector 1 with o = 1.5 us, L = 2.5 us: received at 5500 ns)
    goal = tmp_path / "any.goal"
    goal.write_text(
        "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 5\n}\n"
        "rank 1 {\nl1: recv 1b from 0 tag 18446744073709551615\n}\n"
    )
    proc = netsens("run", "--goal", goal, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["makespan_ps"] == 5_500_000
    goal.write_text("num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 3000000000\n}\nrank 1 {\n}\n")
    assert "tag 3000000000 is too large" in one_error_line(netsens("run", "--goal", goal))


def test_served_communicators_change_only_receives_a_test_completes(tmp_path):
    # The synthetic archive's ranks exchange in blocking MPI_Sendrecv calls: nothing is
    # completed by a test, so serving the world changes nothing; 2 ranks, 3 iterations
    # of 1000 ns of compute and 1 byte: 3 * (1 + o + L + o) = 24 us (the Rust side's
    # crates/netsens-trace/tests/polling.rs derives a served program's replay by hand).
    anchor = _core.write_synthetic_trace(str(tmp_path / "t"), 2, 3, 1000, 1, 0, 0)
    assert replay(anchor)["makespan_ps"] == replay(anchor, "--served", "0")["makespan_ps"] == 24e6
    line = one_error_line(netsens("replay", anchor, "--served", "world"))
    assert 'served: "world" is not a communicator reference' in line


def test_trace_info_of_a_trace_replay_refuses_says_why_beside_its_figures(tmp_path):
    # rank 1 ends with an MPI_Put (fault bit 1): the time between calls is shown, the
    # replayed compute is "-", and one line names the call replay does not model
    anchor = _core.write_synthetic_trace(str(tmp_path / "put"), 2, 2, 1000, 1, 0, 2)
    info = json.loads(netsens("trace", "info", anchor, "--json").stdout)
    assert [r["between_calls_ps"] // 1000 for r in info["ranks_measured"]] == [1000, 1001]
    assert all(r["replayed_compute_ps"] is None for r in info["ranks_measured"])
    assert "MPI_Put is an MPI call replay does not model" in info["replay_refused"]
    proc = netsens("trace", "info", anchor)
    assert proc.returncode == 0, proc.stderr
    assert "replay refuses it: " in proc.stdout and "MPI_Put" in proc.stdout
    assert "1 us" in proc.stdout and " - " in proc.stdout
