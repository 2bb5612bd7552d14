"""`netsens trace` and `netsens replay` on real Open MPI (make install-live): the OTF2
archives the library writes are read by otf2-print (Debian's otf2-tools) and hold the
events the programs' sources call for; replay counts the messages derived from those
sources; the GOAL form replays to the same end times; bad archives and unmodelled
calls end in one line with exit code 2."""

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from cli_run import netsens, one_error_line

ROOT = Path(__file__).resolve().parent.parent
PMPI = ROOT / "tests" / "pmpi"


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    subprocess.run(["apt-get", "install", "-y", "-qq", "otf2-tools"], check=False)
    subprocess.run(["make", "-s", "-C", str(ROOT / "native" / "pmpi")], check=True)
    out = tmp_path_factory.mktemp("trace-programs")
    for name in [
        "mix",
        "collectives",
        "pcontrol",
        "deadlock",
        "deadlock_big",
        "repeat",
        "pingpong",
        "sleeper",
    ]:
        subprocess.run(["mpicc.openmpi", "-O2", "-o", out / name, PMPI / f"{name}.c"], check=True)
    for name in ["pingpong", "wrapped"]:
        subprocess.run(
            ["mpif90.openmpi", "-O2", "-o", out / f"{name}_f", PMPI / f"{name}.f90"],
            check=True,
            cwd=out,
        )
    return {p.name: p for p in out.iterdir() if p.is_file()}


def trace(tmp_path: Path, ranks: int, *command: object, cpu_time: bool = True) -> Path:
    out = tmp_path / "trace"
    clock = "--cpu-time" if cpu_time else "--no-cpu-time"
    proc = netsens("trace", "--ranks", ranks, clock, "--out", out, "--", *command)
    assert proc.returncode == 0, proc.stderr
    return out / "traces.otf2"


def printed_events(anchor: Path) -> Counter:
    """otf2-print's count of each event kind (it must read the whole archive)."""
    proc = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    kinds = Counter()
    for line in proc.stdout.splitlines():
        word = line.split(maxsplit=1)[0] if line.strip() else ""
        if word.isupper() and not word.startswith("="):
            kinds[word] += 1
    return kinds


def test_a_c_program_mixing_send_flavours_is_traced_call_by_call(programs, tmp_path):
    # tests/pmpi/mix.c at 4 ranks, from its header: blocking sends A and D (2);
    # Isends: B, the ring's 4 Sendrecvs (their send half) and E's 3 persistent starts
    # (8), each completed; blocking receives: A, D and the 4 Sendrecvs (6); B's Irecv
    # and E's 3 persistent receives (4); collectives F, G, H and J on each rank (16).
    anchor = trace(tmp_path, 4, programs["mix"])
    kinds = printed_events(anchor)
    assert kinds["MPI_SEND"] == 2
    assert kinds["MPI_ISEND"] == kinds["MPI_ISEND_COMPLETE"] == 8
    assert kinds["MPI_RECV"] == 6
    assert kinds["MPI_IRECV_REQUEST"] == kinds["MPI_IRECV"] == 4
    assert kinds["MPI_COLLECTIVE_BEGIN"] == kinds["MPI_COLLECTIVE_END"] == 16
    assert kinds["ENTER"] == kinds["LEAVE"]


def test_a_fortran_program_is_traced_and_replayed_message_for_message(programs, tmp_path):
    # pingpong.f90 with 20 repetitions runs 25 iterations (i = -4..20): rank 0 Send +
    # Recv, rank 1 Irecv + Wait + Send; then one barrier (dissemination at p = 2: one
    # message each way).
    anchor = trace(tmp_path, 2, programs["pingpong_f"], 8, 20)
    kinds = printed_events(anchor)
    assert kinds["MPI_SEND"] == 50
    assert kinds["MPI_RECV"] == kinds["MPI_IRECV"] == 25
    proc = netsens("replay", anchor, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["messages"] == 50 + 2
    assert result["bytes"] == 50 * 8
    assert result["workload"]["kind"] == "trace"
    assert result["workload"]["ranks"] == 2


def test_the_fortran_calls_of_real_programs_are_traced_and_replayed(programs, tmp_path):
    # wrapped.f90 at 2 ranks: 6 collectives on its cartesian communicator and a barrier
    # on the world, each a record on each rank; point to point, a sendrecv_replace each
    # way (an Isend and a blocking receive each) and 3 exchanges of an Isend and an
    # Irecv each way. Replayed: those 8 messages and the collectives' at 2 ranks
    # (MPICH's algorithms): allgatherv 2, gatherv 1, scatterv 1, alltoallv 2,
    # reduce_scatter 2, scan 1, barrier 2.
    anchor = trace(tmp_path, 2, programs["wrapped_f"])
    kinds = printed_events(anchor)
    assert kinds["MPI_COLLECTIVE_END"] == 2 * 7
    assert kinds["MPI_ISEND"] == kinds["MPI_ISEND_COMPLETE"] == 2 * (1 + 3)
    assert kinds["MPI_RECV"] == 2 and kinds["MPI_IRECV"] == 2 * 3
    shown = subprocess.run(["otf2-print", anchor], capture_output=True, text=True).stdout
    ends = [line for line in shown.splitlines() if line.startswith("MPI_COLLECTIVE_END")]
    # The collectives of the cartesian communicator are on one of their own.
    assert len({line.split("Communicator: ")[1].split(",")[0] for line in ends}) == 2
    proc = netsens("replay", anchor, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["messages"] == 8 + 2 + 1 + 1 + 2 + 2 + 1 + 2


def test_collectives_replay_and_their_goal_form_gives_the_same_end_times(programs, tmp_path):
    anchor = trace(tmp_path, 4, programs["collectives"])
    assert printed_events(anchor)["MPI_COLLECTIVE_END"] > 0
    goal = tmp_path / "c.goal"
    proc = netsens("trace", "to-goal", anchor, goal)
    assert proc.returncode == 0, proc.stderr
    replayed = json.loads(netsens("replay", anchor, "--json", "--L", "3us").stdout)
    from_goal = json.loads(netsens("run", "--goal", goal, "--json", "--L", "3us").stdout)
    assert replayed["makespan_ps"] == from_goal["makespan_ps"]
    assert replayed["ranks"] == from_goal["ranks"]
    # deterministic: the same archive and platform, bit-identical results
    again = json.loads(netsens("replay", anchor, "--json", "--L", "3us").stdout)
    assert again == replayed


def test_an_unmodelled_call_is_named_with_its_rank_and_position(programs, tmp_path):
    # mix.c calls MPI_Win_create (one-sided), which replay does not model
    anchor = trace(tmp_path, 4, programs["mix"])
    line = one_error_line(netsens("replay", anchor))
    assert "MPI_Win_create is an MPI call replay does not model" in line
    assert "rank 0, event " in line


def test_bad_archives_are_one_line(programs, tmp_path):
    one_error_line(netsens("replay", tmp_path / "missing.otf2"))
    anchor = trace(tmp_path, 2, programs["pingpong_f"], 8, 5)
    for evt in (anchor.parent / "traces").glob("*.evt"):
        evt.write_bytes(evt.read_bytes()[: evt.stat().st_size // 3])
    line = one_error_line(netsens("replay", anchor))
    assert "traces.otf2" in line
    garbage = tmp_path / "garbage.otf2"
    garbage.write_bytes(b"not an archive")
    one_error_line(netsens("replay", garbage))


def test_trace_refuses_a_directory_that_is_in_use(programs, tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "file").write_text("x")
    proc = netsens("trace", "--ranks", 2, "--out", tmp_path / "used", "--", programs["mix"])
    assert "not an empty directory" in one_error_line(proc)


def test_a_trace_is_a_workload_of_the_python_api(programs, tmp_path):
    import netsens

    anchor = trace(tmp_path, 2, programs["pingpong_f"], 8, 3)
    slow = netsens.run(str(anchor), overrides={"L": "50us"})
    fast = netsens.run(str(anchor), overrides={"L": "1us"})
    # 8 round trips: 16 one-way latencies in a chain, each 49 us longer; the
    # barrier's two messages may overlap them. So 16 to 18 times 49 us apart.
    assert 16 * 49_000_000 <= slow.makespan_ps - fast.makespan_ps <= 18 * 49_000_000
    assert slow.workload["kind"] == "trace"


def test_a_trace_is_a_workload_of_a_study(programs, tmp_path):
    # one trace, o at two values and the baseline: 3 points, all run
    anchor = trace(tmp_path, 2, programs["pingpong_f"], 8, 3)
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "trace-o"\nplatform = "loggopsim"\n'
        f'workloads = ["{anchor.relative_to(tmp_path)}"]\nranks = [2]\nseeds = 1\n'
        '[axes]\no = ["1us", "50us"]\n'
    )
    proc = netsens("sweep", study)
    assert proc.returncode == 0, proc.stderr
    assert "3/3 points" in proc.stderr + proc.stdout
    assert "0 failed" in proc.stderr + proc.stdout
    # Its report's communication table, from pingpong.f90's source: 3 repetitions are
    # 8 iterations (i = -4..3), in each of which each rank sends one 8-byte message,
    # plus the barrier's one message per rank: 9 per rank, 8 of them point-to-point.
    from netsens.report.page import build_report, read_source

    table = build_report(read_source(study)).communication
    rows = [dict(zip([h for h, _ in table.headers], r, strict=True)) for r in table.rows]
    (row,) = [r for r in rows if "traces.otf2" in r["workload"]]
    assert row["messages per rank, mean"] == "9"
    assert row["bulk share"] == f"{100 * 8 / 9:.1f}"
    assert row["collective share"] == f"{100 * 1 / 9:.1f}"
    assert row["median message size"] == "8–15"


def test_profile_of_a_trace_counts_the_programs_messages(programs, tmp_path):
    # pingpong.c with 100 bytes and 10 repetitions runs 15 round trips (5 warm-up):
    # each rank sends 15 messages of 100 B to the other, all point-to-point.
    anchor = trace(tmp_path, 2, programs["pingpong"], 100, 10)
    proc = netsens("profile", "--app", anchor, "--ranks", 2, "--platform", "loggopsim", "--json")
    assert proc.returncode == 0, proc.stderr
    p = json.loads(proc.stdout)
    assert (p["messages_mean"], p["messages_max"]) == (15, 15)
    assert (p["bytes_mean"], p["bytes_max"]) == (1500, 1500)
    assert p["shares"] == {"reads": 0.0, "writes": 0.0, "bulk": 1.0, "collective": 0.0}
    assert (p["median_bytes_lo"], p["median_bytes_hi"]) == (64, 127)
    assert p["mean_bytes"] == 100.0
    assert {(c["src"], c["dst"], c["messages"]) for c in p["matrix"]} == {(0, 1, 15), (1, 0, 15)}
    # a rank count other than the trace's is one line
    line = one_error_line(netsens("profile", "--app", anchor, "--ranks", 4))
    assert "has 2 ranks, not 4" in line


def test_collective_algorithms_can_be_chosen(programs, tmp_path):
    # An allreduce on 4 ranks is 8 messages by recursive doubling (2 rounds, every
    # rank sends once per round) and 6 as a binomial reduce then bcast (3 + 3); on 2
    # ranks both are 2 messages. So the choice removes 2 messages per 4-rank allreduce.
    anchor = trace(tmp_path, 4, programs["collectives"])
    proc = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, timeout=120)
    world = sum(
        "Operation: ALLREDUCE" in line and '"MPI_COMM_WORLD"' in line
        for line in proc.stdout.splitlines()
    )
    assert world > 0 and world % 4 == 0
    mpich = json.loads(netsens("replay", anchor, "--json").stdout)
    other = json.loads(
        netsens("replay", anchor, "--json", "--collectives", "allreduce=reduce-bcast").stdout
    )
    assert mpich["messages"] - other["messages"] == 2 * (world // 4)
    line = one_error_line(netsens("replay", anchor, "--collectives", "allreduce=tree"))
    assert "allreduce=tree" in line
    goal = ROOT / "tests" / "data" / "pingpong.goal"
    line = one_error_line(netsens("replay", goal, "--collectives", "bcast=linear"))
    assert "applies to traces, not GOAL files" in line


def test_time_paused_by_pcontrol_is_not_replayed(programs, tmp_path):
    # pcontrol.c at 2 ranks: the 200 ms before its first pause are set-up (the pause is
    # its first call after MPI_Init); the set-up, the pause and the end, 200 ms each,
    # are not recorded: replay charges the program's 10 + 5 ms of compute and one
    # barrier (a message each way, microseconds). Charging any of the four 200 ms
    # parts would pass 215 ms. The busy loops count their thread's CPU time, which is
    # what replay charges, so a loaded machine cannot shorten them below 15 ms.
    anchor = trace(tmp_path, 2, programs["pcontrol"])
    assert printed_events(anchor)["MPI_COLLECTIVE_END"] == 2  # the second barrier only
    result = json.loads(netsens("replay", anchor, "--json", "--compute", "cpu").stdout)
    assert 15_000_000_000 <= result["makespan_ps"] < 100_000_000_000


def test_a_program_of_several_runs_replays_its_median_run(programs, tmp_path):
    # repeat.c at 2 ranks: three runs of 30, 10 and 20 ms of CPU time and a barrier, the
    # recording paused between them. Replay reports the median run, the third (20 ms
    # and a barrier of microseconds); --run 1 the first (30 ms); --run whole all three
    # (60 ms). The busy loops count CPU time, which replay charges: load cannot
    # shorten them, and the 10 ms between the runs' lengths dwarfs what it adds.
    anchor = trace(tmp_path, 2, programs["repeat"])

    def replay(*args: object) -> dict:
        proc = netsens("replay", anchor, "--json", *args)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    median = replay()
    assert median["workload"]["runs"] == 3 and median["workload"]["run"] == 3
    assert len(median["workload"]["run_makespans_ps"]) == 3
    assert 20_000_000_000 <= median["makespan_ps"] < 30_000_000_000
    first = replay("--run", "1")
    assert first["workload"]["run"] == 1 and 30_000_000_000 <= first["makespan_ps"] < 40e9
    whole = replay("--run", "whole")
    assert "runs" not in whole["workload"] and whole["makespan_ps"] >= 60_000_000_000
    line = one_error_line(netsens("replay", anchor, "--run", "4"))
    assert "run: 4 asked for, but the trace" in line and "records 3 run(s)" in line


def test_trace_repeat_records_the_runs_of_a_suite_application(programs, tmp_path):
    # netsens trace --repeat 3: three runs of radb in one job, each replayed on its own.
    out = tmp_path / "radb"
    proc = netsens("trace", "--app", "radb", "--size", "tiny", "--ranks", 2, "--repeat", 3,
                   "--out", out)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "3 runs, median run time" in proc.stdout
    result = json.loads(netsens("replay", out / "traces.otf2", "--json").stdout)
    assert result["workload"]["runs"] == 3 and len(result["workload"]["run_makespans_ps"]) == 3
    line = one_error_line(netsens("trace", "--ranks", 2, "--repeat", 2, "--", programs["repeat"]))
    assert "--repeat: netsens repeats a suite application" in line


def test_replay_serves_the_one_sided_requests_of_a_suite_application(tmp_path):
    # em3d-write's stores travel as MPI_Issend on the backend's request communicator,
    # each received on the probe that found it and completed by a test: replay serves
    # that communicator by default (and its makespan is not the one of --served none);
    # radb sends no synchronous message, so it serves none.
    served = {}
    for app in ["em3d-write", "radb"]:
        out = tmp_path / app
        proc = netsens("trace", "--app", app, "--size", "tiny", "--ranks", 2, "--out", out)
        assert proc.returncode == 0, proc.stderr
        anchor = out / "traces.otf2"
        auto = json.loads(netsens("replay", anchor, "--json").stdout)
        none = json.loads(netsens("replay", anchor, "--served", "none", "--json").stdout)
        served[app] = (auto["workload"]["served"], auto["makespan_ps"] != none["makespan_ps"])
        assert none["workload"]["served"] == []
    assert served["radb"] == ([], False)
    comms, moved = served["em3d-write"]
    assert len(comms) == 1 and moved
    shown = netsens("replay", tmp_path / "em3d-write" / "traces.otf2").stdout
    assert re.search(rf"served communicators +{comms[0]} ", shown), shown


def test_a_deadlocked_run_stopped_by_the_timeout_replays_as_one_line_naming_the_stuck(
    programs, tmp_path
):
    # deadlock.c at 2 ranks: each rank's events are MPI_Init's enter and leave (0, 1),
    # one exchange (rank 0: enter MPI_Send, the send, leave; rank 1: the same with
    # MPI_Recv: 2, 3, 4), then the enter of the MPI_Recv that never returns: event 5.
    out = tmp_path / "stuck"
    proc = netsens(
        "trace", "--ranks", 2, "--timeout", "3s", "--out", out, "--", programs["deadlock"]
    )
    line = one_error_line(proc)
    assert "timed out after 3 s" in line and f"{out / 'traces.otf2'}" in line
    assert not list(out.glob("*.partial"))
    assert printed_events(out / "traces.otf2")["MPI_SEND"] == 1
    # The ranks' tracer costs travel through their partial files too.
    defs = ["otf2-print", "-G", out / "traces.otf2"]
    shown = subprocess.run(defs, capture_output=True, text=True).stdout
    assert shown.count("LOCATION_PROPERTY") >= 2 and "netsens::tracer_gap_wall" in shown
    line = one_error_line(netsens("replay", out / "traces.otf2", timeout=60))
    assert "never finished" in line
    assert "rank 0 in MPI_Recv (event 5)" in line and "rank 1 in MPI_Recv (event 5)" in line


def test_a_large_trace_stopped_by_the_timeout_is_written_whole(programs, tmp_path):
    # deadlock_big.c at 2 ranks: a million polls each (2 million records, 128 MB a rank
    # to write on SIGTERM), then deadlock.c's head-to-head MPI_Recv. The ranks get the
    # time to write all of it before their launcher is stopped: the archive holds every
    # poll, and each rank is stuck in the MPI_Recv after them, its event 2 + 2 000 000
    # (MPI_Init's enter and leave, then an enter and a leave per poll). Killed while
    # writing, a rank would leave a half-written file and no archive.
    out = tmp_path / "stuck"
    polls = 1_000_000
    proc = netsens(
        "trace", "--ranks", 2, "--no-cpu-time", "--timeout", "20s", "--out", out, "--",
        programs["deadlock_big"], polls,
    )  # fmt: skip
    line = one_error_line(proc)
    assert "timed out after 20 s" in line and f"{out / 'traces.otf2'}" in line
    assert not list(out.glob("*.partial*"))
    line = one_error_line(netsens("replay", out / "traces.otf2", timeout=120))
    stuck = 2 + 2 * polls
    assert f"rank 0 in MPI_Recv (event {stuck})" in line, line
    assert f"rank 1 in MPI_Recv (event {stuck})" in line, line


def test_replay_charges_each_ranks_cpu_time_between_calls(programs, tmp_path):
    # sleeper.c at 2 ranks: 5 rounds of 20 ms asleep, then 20 ms of the thread's CPU
    # time, then a one-int exchange. Every Enter and Leave carries the thread CPU time,
    # so replay charges the 5 x 20 ms = 100 ms of CPU (plus five exchanges of
    # microseconds on loggopsim); the sleep is not CPU. By the wall clock the compute
    # is at least 5 x (20 + 20) ms = 200 ms.
    anchor = trace(tmp_path, 2, programs["sleeper"])
    shown = subprocess.run(["otf2-print", "-A", anchor], capture_output=True, text=True)
    stamped = [line for line in shown.stdout.splitlines() if "ADDITIONAL ATTRIBUTES" in line]
    assert all('"netsens::thread_cpu_time"' in line for line in stamped)
    assert len(stamped) == sum(printed_events(anchor)[k] for k in ("ENTER", "LEAVE"))
    cpu = json.loads(netsens("replay", anchor, "--json", "--compute", "cpu").stdout)
    wall = json.loads(netsens("replay", anchor, "--json", "--compute", "wall").stdout)
    assert (cpu["workload"]["compute_clock"], wall["workload"]["compute_clock"]) == ("cpu", "wall")
    assert 100_000_000_000 <= cpu["makespan_ps"] < 140_000_000_000
    assert wall["makespan_ps"] >= 200_000_000_000
    line = one_error_line(netsens("replay", anchor, "--compute", "user"))
    assert "'user' is not one of 'cpu', 'wall'" in line
    # Traced without CPU times: no attribute, and replay falls back to the wall time.
    out = tmp_path / "wall-only"
    proc = netsens("trace", "--ranks", 2, "--no-cpu-time", "--out", out, "--", programs["sleeper"])
    assert proc.returncode == 0, proc.stderr
    plain = out / "traces.otf2"
    shown = subprocess.run(["otf2-print", "-A", plain], capture_output=True, text=True)
    assert "ADDITIONAL ATTRIBUTES" not in shown.stdout
    result = json.loads(netsens("replay", plain, "--json").stdout)
    assert result["workload"]["compute_clock"] == "wall"
    assert result["makespan_ps"] >= 200_000_000_000


def test_the_tracers_own_cost_between_calls_is_recorded_and_not_charged(programs, tmp_path):
    # pingpong.c at 2 ranks, 105 round trips: each rank's calls are MPI_Init, 210 sends
    # and receives and MPI_Finalize. Each rank measures the time its tracer adds to a
    # gap between two calls and the archive keeps it (OTF2 location properties, on the
    # wall clock; with CPU times also on the CPU clock, which costs a system call per
    # record). Replay removes it from every gap it charges, never more than the gap.
    for clock, cpu_time in (("wall", False), ("cpu", True)):
        (tmp_path / clock).mkdir()
        anchor = trace(tmp_path / clock, 2, programs["pingpong"], 8, 100, cpu_time=cpu_time)
        shown = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, text=True)
        props = [line for line in shown.stdout.splitlines() if "LOCATION_PROPERTY" in line]
        assert sum('"netsens::tracer_gap_wall"' in line for line in props) == 2, props
        assert sum('"netsens::tracer_gap_cpu"' in line for line in props) == (2 if cpu_time else 0)
        result = json.loads(netsens("replay", anchor, "--json").stdout)
        w = result["workload"]
        assert w["compute_clock"] == clock
        # Two clock reads and a record at most: under 100 us on any machine.
        assert all(0 < gap < 100_000_000 for gap in w["tracer_gap_ps"]), w["tracer_gap_ps"]
        for gap, removed, gaps in zip(
            w["tracer_gap_ps"], w["tracer_removed_ps"], w["compute_gaps"], strict=True
        ):
            assert gaps >= 211 and 0 < removed <= gap * gaps
        # Charged whole (0ps), the compute is larger by exactly what was removed, to
        # the nanosecond each gap is rounded to.
        whole = json.loads(netsens("replay", anchor, "--json", "--tracer-gap", "0ps").stdout)
        assert whole["workload"]["tracer_removed_ps"] == [0, 0]
        for rank, (a, b) in enumerate(zip(result["ranks"], whole["ranks"], strict=True)):
            diff = b["compute_ps"] - a["compute_ps"]
            assert abs(diff - w["tracer_removed_ps"][rank]) <= 1000 * w["compute_gaps"][rank], rank
    shown = netsens("replay", anchor).stdout
    assert "tracer cost" in shown and "per rank removed" in shown
    line = one_error_line(netsens("replay", anchor, "--tracer-gap", "25"))
    assert "tracer_gap" in line


def test_cpu_time_is_recorded_by_default_only_when_ranks_share_cores(programs, tmp_path):
    # Alone on a core a rank's wall and CPU time between calls agree, and reading the
    # CPU time (a system call per enter and leave) only slows the traced run; with more
    # ranks than cores the wall time also holds the waits for the core.
    from netsens.live.calibrate import machine_cores

    cores = machine_cores()
    for ranks, recorded in ((1, False), (cores + 1, True)):
        out = tmp_path / f"default-{ranks}"
        proc = netsens("trace", "--ranks", ranks, "--out", out, "--", programs["collectives"])
        assert proc.returncode == 0, proc.stderr
        shown = subprocess.run(
            ["otf2-print", "-A", out / "traces.otf2"], capture_output=True, text=True
        )
        stamped = [line for line in shown.stdout.splitlines() if "ADDITIONAL ATTRIBUTES" in line]
        assert bool(stamped) == recorded, (ranks, cores)


def test_a_replay_of_ranks_sharing_a_core_serializes_their_compute(programs, tmp_path):
    # sleeper.c at 4 ranks on one node of 2 cores: ranks 0 and 2 share core 0, 1 and 3
    # core 1. Each round both ranks of a core need 20 ms of CPU: 40 ms a round on the
    # core, 5 x 40 = 200 ms in all (each rank's own 100 ms with a core per rank).
    anchor = trace(tmp_path, 4, programs["sleeper"])
    own = json.loads(netsens("replay", anchor, "--json", "--compute", "cpu").stdout)
    own = own["makespan_ps"]
    shared = json.loads(
        netsens("replay", anchor, "--json", "--ranks-per-node", "all", "--cores-per-node", 2).stdout
    )["makespan_ps"]
    assert 100_000_000_000 <= own < 140_000_000_000
    assert 200_000_000_000 <= shared < 240_000_000_000
    line = one_error_line(netsens("replay", anchor, "--cores-per-node", 0))
    assert "cores_per_node: must be at least 1, got 0" in line
