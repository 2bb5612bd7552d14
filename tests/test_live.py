"""`netsens live` on real Open MPI (installed by `make install-live`), run as a user
runs it: counts and injected times of a ring program derived by hand, every suite
application verified live, and every way a live run can fail ending in one line with
exit code 2 and no MPI process left behind.

Times are compared by ratio or as bounds derived from the injected values, never as
absolute wall-clock figures: this box is shared and has 2 cores for 4 ranks.
"""

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from cli_run import netsens, one_error_line

from netsens.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "live"
US = 1_000_000  # ps


def live_json(*args: object) -> dict:
    proc = netsens("live", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    """The test programs built with each implementation's compiler wrapper."""
    out = tmp_path_factory.mktemp("live-programs")
    built = {}
    for source in PROGRAMS.glob("*.c"):
        for mpi, cc in (("openmpi", "mpicc.openmpi"), ("mpich", "mpicc.mpich")):
            exe = out / f"{source.stem}-{mpi}"
            subprocess.run([cc, "-O2", "-o", exe, source], check=True)
            built[f"{source.stem}-{mpi}"] = exe
    return built


# --- what a run reports ------------------------------------------------------------------


def test_ring_counts_match_the_program(programs):
    # 4 ranks, 20 rounds: each rank sends 20 messages of 8 B to its right neighbour
    # (MPI_Sendrecv), so 80 messages, 640 B, one matrix cell per rank and all in the
    # 8-15 B bin.
    r = live_json("--ranks", 4, "--", programs["ring-openmpi"], 20, 8)
    assert r["mode"] == "live"
    assert r["mpi"]["implementation"] == "openmpi"
    assert "Open MPI" in r["mpi"]["library"]
    assert r["messages"] == 80 and r["bytes"] == 640
    for rank in r["ranks"]:
        assert rank["sent_messages"] == 20 and rank["recv_messages"] == 20
        assert rank["sent_bytes"] == 160
    cells = {(m["src"], m["dst"]): (m["messages"], m["bytes"]) for m in r["matrix"]}
    assert cells == {(s, (s + 1) % 4): (20, 160) for s in range(4)}
    assert r["histogram"] == [{"lo_bytes": 8, "hi_bytes": 15, "messages": 80, "bytes": 640}]
    assert r["unhandled_calls"] == {}
    assert r["makespan_ps"] == max(rank["end_ps"] for rank in r["ranks"])


def test_injected_overhead_is_busy_cpu_on_both_ends(programs):
    # Each round a rank sends one message and receives one: 2 o of injected CPU per
    # round, 20 rounds at o = 100 us: 4 ms per rank, counted exactly as overhead.
    r = live_json("--ranks", 4, "--o", "100us", "--", programs["ring-openmpi"], 20, 8)
    for rank in r["ranks"]:
        assert abs(rank["overhead_ps"] - 20 * 2 * 100 * US) <= 0.01 * 20 * 2 * 100 * US
        assert rank["end_ps"] >= 20 * 2 * 100 * US


def test_injected_latency_is_a_floor_per_round(programs):
    # Every round's receive completes no earlier than its send + L, and the next round
    # starts after it: 20 rounds take at least 20 L; the rest is the machine's own
    # round time (the run without L bounds it, with a generous factor for noise). The
    # floor holds in every run; the ceiling in one of three, as the other timing tests
    # retry: with 4 ranks on 2 cores one late wake-up from a wait's sleep can cost a
    # time slice (a fresh clone's run here took 14.5 ms once, 10 ms + 3 x 0.55 ms
    # allowed).
    seen = []
    for _ in range(3):
        base = live_json("--ranks", 4, "--", programs["ring-openmpi"], 20, 8)["makespan_ps"]
        slow = live_json("--ranks", 4, "--L", "500us", "--", programs["ring-openmpi"], 20, 8)
        assert slow["makespan_ps"] >= 20 * 500 * US
        seen.append((slow["makespan_ps"], base))
        if slow["makespan_ps"] <= 20 * 500 * US * 1.15 + 3 * base:
            return
    pytest.fail(f"makespans with L = 500 us and without (ps): {seen}")


def test_mpich_runs_the_same_program(programs):
    r = live_json("--ranks", 2, "--mpi", "mpich", "--", programs["ring-mpich"], 10, 8)
    assert r["mpi"]["implementation"] == "mpich"
    assert r["messages"] == 20


# --- bad input and failures: one line, exit 2 ------------------------------------------


def test_crashed_rank_is_one_line(programs):
    line = one_error_line(netsens("live", "--ranks", 2, "--", programs["crash-openmpi"]))
    assert "rank" in line or "signal" in line, line


def test_not_an_mpi_program(programs):
    line = one_error_line(netsens("live", "--ranks", 2, "--", programs["not_mpi-openmpi"]))
    assert "not an MPI program" in line


def test_program_linked_against_the_other_mpi(programs):
    line = one_error_line(netsens("live", "--ranks", 2, "--", programs["ring-mpich"], 1, 1))
    assert "--mpi mpich" in line


def test_unknown_mpi_and_missing_program(programs):
    one_error_line(netsens("live", "--ranks", 2, "--mpi", "lam", "--", programs["ring-openmpi"]))
    line = one_error_line(netsens("live", "--ranks", 2, "--", "/no/such/program"))
    assert "/no/such/program" in line


def test_missing_mpirun(programs):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))
    line = one_error_line(
        netsens("live", "--ranks", 2, "--", programs["ring-openmpi"], 1, 1, env=env)
    )
    assert "mpirun.openmpi" in line and "make install-live" in line


def test_wrong_answer_of_a_live_application():
    line = one_error_line(netsens("live", "--app", "_wrong-answer", "--ranks", 2, "--size", "tiny"))
    assert "rank 1" in line and "wrong answer" in line


def test_repeated_application_reports_its_median_run():
    # Five runs in one job: the result is the run whose makespan is the median of the
    # five, and the library's counts are one run's: the same messages as a job of one
    # run, and on each rank o = 10 us per message sent or received.
    once = live_json("--app", "radb", "--ranks", 4, "--size", "tiny", "--o", "10us")
    r = live_json("--app", "radb", "--ranks", 4, "--size", "tiny", "--o", "10us", "--repeat", 5)
    assert r["verified"] is True
    assert len(r["makespans_ps"]) == 5
    assert r["makespan_ps"] == sorted(r["makespans_ps"])[2]
    assert (r["messages"], r["bytes"]) == (once["messages"], once["bytes"])
    for rank, single in zip(r["ranks"], once["ranks"], strict=True):
        assert rank["sent_messages"] == single["sent_messages"]
        messages = rank["sent_messages"] + rank["recv_messages"]
        assert rank["overhead_ps"] == messages * 10 * US, rank


def test_a_schedule_gives_each_run_of_a_job_its_own_values():
    # Three runs in one job with o = 10, 30 and 20 us (NETSENS_SCHEDULE) inject as much
    # o as three runs at 20 us each: the library's o per run is 20 us per message of the
    # program. The set-up and drain around each run keep the job's own o (0 here), so
    # per run that is less than three plain runs at o = 20 us inject, which charge their
    # set-up too.
    from netsens.live.run import run_live

    def job(schedule):
        r = run_live(4, app="radb", size="tiny", repeat=3, schedule=schedule)
        assert r["verified"] is True and len(r["makespans_ps"]) == 3
        return [rank["overhead_ps"] for rank in r["ranks"]]

    plain = live_json("--app", "radb", "--ranks", 4, "--size", "tiny", "--o", "20us", "--repeat", 3)
    turns = job([{"o": "10us"}, {"o": "30us"}, {"o": "20us"}])
    same = job([{"o": "20us"}] * 3)
    assert turns == same
    for mine, rank in zip(turns, plain["ranks"], strict=True):
        assert mine % (20 * US) == 0 and 0 < mine < rank["overhead_ps"], (mine, rank)


def test_a_schedule_changes_only_the_network_parameters():
    from netsens.live.run import run_live

    with pytest.raises(InputError, match="changes only L, o, g, G and O"):
        run_live(4, app="radb", size="tiny", repeat=2, schedule=[{}, {"cores_per_node": "1"}])
    with pytest.raises(InputError, match="each run of a repeated application"):
        run_live(4, app="radb", size="tiny", repeat=3, schedule=[{}, {"o": "1us"}])


def test_open_mpi_ranks_are_bound_unless_the_user_places_them():
    from netsens.live.mpi import implementation

    openmpi = implementation("openmpi")
    bound = openmpi.command(4, {}, ["prog"], [])
    assert bound[bound.index("--bind-to") + 1] == "core:overload-allowed"
    assert bound[bound.index("--map-by") + 1] == "core"
    # An MCA parameter whose name merely contains "map" leaves the binding in place.
    mca = openmpi.command(4, {}, ["prog"], ["--mca", "rmaps_base_verbose", "0"])
    assert "--bind-to" in mca
    own = openmpi.command(4, {}, ["prog"], ["--bind-to", "none"])
    assert own.count("--bind-to") == 1 and "--map-by" not in own
    assert "-bind-to" not in implementation("mpich").command(4, {}, ["prog"], [])


def test_repeat_needs_a_suite_application(programs):
    line = one_error_line(
        netsens("live", "--ranks", 2, "--repeat", 3, "--", programs["ring-openmpi"], 2, 8)
    )
    assert "--repeat" in line


# --- no stray processes ----------------------------------------------------------------


def _running(exe: Path) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(exe) in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def _start_sleepers(exe: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "netsens", "live", "--ranks", "2", "--", str(exe), "120"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: Ctrl-C is not ignored (a background job inherits it
        # ignored, and Python then never raises KeyboardInterrupt).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while len([p for p in _running(exe) if p != proc.pid]) < 2:
        assert time.monotonic() < deadline, "the MPI processes never started"
        time.sleep(0.2)
    return proc


def _gone(exe: Path, within: float = 15) -> bool:
    deadline = time.monotonic() + within
    while _running(exe):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_killed_live_leaves_no_mpi_process(programs, tmp_path, sig):
    exe = tmp_path / "sleeper"
    exe.write_bytes(programs["sleeper-openmpi"].read_bytes())
    exe.chmod(0o755)
    proc = _start_sleepers(exe)
    proc.send_signal(sig)
    proc.wait(timeout=30)
    if sig == signal.SIGINT:
        assert proc.returncode == 130
    assert _gone(exe), f"MPI processes left after {sig.name}: {_running(exe)}"


# --- the suite on real MPI ----------------------------------------------------------------


def _apps() -> list[str]:
    from netsens import apps

    return [name for name, _, _ in apps()]


@pytest.mark.parametrize("app", _apps())
def test_every_application_verifies_live_with_and_without_injection(app):
    for flags in ([], ["--o", "5us", "--L", "10us", "--g", "2us", "--G", "1ns/B"]):
        r = live_json("--app", app, "--ranks", 4, "--size", "tiny", *flags)
        assert r["verified"] is True, (app, flags)
        assert r["app"] == app and len(r["ranks"]) == 4
        assert r["primitives"], app


# --- calibrate --live, validate, the Python API and live studies --------------------------


def _calibrate(*flags: object) -> dict:
    # Seven calibrations each way: one job's values on a 2-core virtual machine sit 1-2 us
    # above or below another's as a whole (the machine's o_s 3.2 us in some jobs, 4.7-5.3
    # us in others), and an injected o_r 3-8 us above machine + o in some stretches of
    # jobs; an overhead is the lowest of the runs (five: 1 test in 8 failed, o_r).
    proc = netsens("calibrate", "--live", "--json", "--reps", 30, "--runs", 7, *flags)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["runs"] == 7 and len(result["machine_runs"]) == 7
    return result


@pytest.mark.parametrize(
    ("flags", "checked"),
    [
        # 100 us: on a 2-core virtual machine an injected o came out 1-3 us long in most
        # jobs at 20 us, more than the 2 us allowed there, and 0-3 us at 100 us, within
        # 5 % of it.
        (("--o", "100us"), ["o_s", "o_r", "o_s_stream", "o_r_stream"]),
        (("--L", "80us"), ["L"]),
        (("--g", "40us"), ["g"]),
        (("--G", "20ns/B"), ["G"]),
        # Long messages (256 KiB to 1 MiB): G per byte of the messages LogGP means.
        (("--G", "10ns/B"), ["G_long"]),
    ],
    ids=["o", "L", "g", "G", "G_long"],
)
def test_calibrate_live_recovers_the_injected_parameter(flags, checked):
    # Each injected value is recovered within max(5 %, 2 us) (G_long: 10 %) of what the
    # library should deliver on this machine (o adds to the machine's own; L, g and G are
    # floors). A per-byte cost's 2 us is spread over the largest message it is fitted
    # on: the largest eager one for G, the largest probed (1 MiB) for G_long. A
    # calibration of seven runs can still fall in a stretch where every injected o_r
    # runs 6 us long (once in about 50 here): the whole calibration is made a second time
    # before the test fails, as the other live timing tests retry.
    misses = []
    for _ in range(2):
        missed = _calibration_misses(_calibrate(*flags), checked)
        if not missed:
            return
        misses.append(missed)
    pytest.fail(f"outside the allowance in both calibrations: {misses}")


def _calibration_misses(result: dict, checked: list[str]) -> list[dict]:
    """The rows of `checked` that `result` does not recover within their allowance."""
    rows = {r["name"]: r for r in result["rows"]}
    missed = []
    for key in checked:
        row = rows[key]
        if key == "G_long" and row["measured"] is None:
            # The eager bursts' O as large as the long slope: that slope bounds G.
            (p,) = (p for p in result["injected"]["parameters"] if p["name"] == key)
            row = {**row, "measured": p["bound"]["value"]}
        if row["measured"] is None:
            missed.append(row)
            continue
        # max(5 %, 2 us) of the time that measures it: a per-byte cost is seen over the
        # largest message of its fit, so 2 us of it is 2 us / (size - 1) per byte.
        largest = (1 << 20) if key == "G_long" else rows["S"]["measured"]
        per_message = 2 * US if row["unit"] == "ps" else 2 * US / (largest - 1)
        # The long messages' slope is of waits (10 ms at 1 MiB) that a loaded machine
        # ends late by up to a time slice: 10 % (at a load of 5 on 2 cores, five
        # calibrations were within -5.5 % and +2.2 %).
        share = 0.10 if key == "G_long" else 0.05
        allowed = max(share * row["expected"], per_message)
        if abs(row["measured"] - row["expected"]) > allowed:
            missed.append({**row, "allowed": allowed})
    return missed


def test_calibrate_live_save_writes_a_platform(tmp_path):
    path = tmp_path / "machine.toml"
    proc = netsens("calibrate", "--live", "--reps", 10, "--save", path, "--json")
    assert proc.returncode == 0, proc.stderr
    shown = netsens("platform", "show", path)
    assert shown.returncode == 0, shown.stderr
    assert 'name = "machine"' in shown.stdout
    # What the result says was saved is what the file holds, derived from the measured
    # rows: o the mean of the streaming o_s and o_r (the single message's mean beside
    # it), negative noise clamped to 0.
    result = json.loads(proc.stdout)
    measured = {r["name"]: r["machine"] for r in result["rows"]}
    saved = result["saved"]
    file = tomllib.loads(path.read_text())["cluster"]
    clamp = {k: max(v, 0.0) if v is not None else None for k, v in measured.items()}
    assert round(saved["o"]) == round((clamp["o_s_stream"] + clamp["o_r_stream"]) / 2)
    assert round(saved["o_ping_pong"]) == round((clamp["o_s"] + clamp["o_r"]) / 2)
    assert saved["o_from"] == "stream"
    assert file["o"] == f"{round(saved['o'])}ps" and file["L"] == f"{round(saved['L'])}ps"
    assert file["G"] == f"{saved['G']:.3f}ps/B" and file["O"] == f"{saved['O']:.3f}ps/B"
    # G is the long messages' (LogGP's G), the eager sizes' slope kept beside it.
    if clamp["G_long"] is not None:
        assert saved["G"] == clamp["G_long"] and "G_short" in saved
    assert min(saved[k] for k in ("L", "o", "g", "G", "O")) >= 0
    if clamp["L"] is not None:
        assert saved["L"] == clamp["L"]
    # The table shows the saved column beside the machine's.
    table = netsens("calibrate", "--live", "--reps", 10, "--save", tmp_path / "again.toml")
    assert table.returncode == 0, table.stderr
    # Above Open MPI's copy limit (read with ompi_info) messages take the handshake and
    # O is the long messages' slope; the eager sizes' O is kept beside it.
    long = saved.get("long_messages")
    if long is not None:
        assert file["S"] == f"{long['S']}B" and saved["O"] == long["O"] and "O_eager" in saved
        assert file["o_control"] == f"{round(saved['o'])}ps"
    assert "saved" in table.stdout
    assert ("all eager" in table.stdout) == (long is None)
    assert "a single message's (ping-pong) o" in table.stdout


def test_more_ranks_than_cores_put_o_on_the_cpu_clock(monkeypatch):
    # With ranks sharing cores the library's o is CPU time (docs/reference/pmpi.md); alone on a
    # core it stays on the wall clock, and a setting the user made is kept.
    from netsens.live import calibrate as live_calibrate
    from netsens.live import run as live

    monkeypatch.setattr(live_calibrate, "machine_cores", lambda: 2)
    monkeypatch.delenv("NETSENS_O_CLOCK", raising=False)
    assert [live.ranks_share_cores(p) for p in (1, 2, 3)] == [False, False, True]
    assert live.shared_core_env(False) == {}
    assert live.shared_core_env(True) == {"NETSENS_O_CLOCK": "cpu"}
    monkeypatch.setenv("NETSENS_O_CLOCK", "wall")
    assert live.shared_core_env(True) == {}


@pytest.mark.parametrize("app", ["radb", "em3d-write", "ft"])
def test_validate_live_curve_within_ten_percent_of_simulated(app, tmp_path):
    # The bound: the live slowdown within 10 % of the simulated one at every
    # point. A batch disturbed by other work on the machine (every live point of one
    # application 2x slow) happens here now and then, so the bound must hold in one
    # of three batches, as the pmpi timing tests do.
    machine = tmp_path / "machine.toml"
    assert netsens("calibrate", "--live", "--save", machine).returncode == 0
    seen = []
    for attempt in range(3):
        out = tmp_path / f"v{attempt}"
        proc = netsens(
            "validate", "--app", app, "--axis", "o=0us..100us", "--points", 5, "--ranks", 4,
            "--machine", machine, "--out", out, "--json",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert (out / "validation.html").is_file()
        assert (out / f"validate_{app}_o.png").is_file()
        # Five values from 0 to 100 us, and the simulated slowdown grows with o.
        assert [p["value"] for p in result["points"]] == ["0us", "25us", "50us", "75us", "100us"]
        sim = [p["simulated_slowdown"] for p in result["points"]]
        assert sim == sorted(sim) and sim[-1] > sim[0], sim
        errors = [round(p["error"], 3) for p in result["points"]]
        seen.append(errors)
        if max(map(abs, errors)) <= 0.10:
            return
    pytest.fail(f"{app}: errors per point in three batches {seen}, bound 10 %")


def test_python_api_runs_live():
    import netsens

    r = netsens.run(
        "radb", ranks=2, size="tiny", mode="live", platform=None, overrides={"o": "1us"}
    )
    assert r.verified is True
    assert r.to_dict()["mode"] == "live"
    assert r.ranks["overhead_ps"].min() > 0


def test_live_study_stores_every_point_and_no_failed_one(tmp_path):
    study = tmp_path / "live.toml"
    study.write_text(
        'name = "live"\nmode = "live"\nplatform = "inject.toml"\nworkloads = ["radb"]\n'
        'size = "tiny"\nranks = [2]\nseeds = 1\n[axes]\no = ["10us", "20us"]\n'
    )
    (tmp_path / "inject.toml").write_text(
        'name = "inject"\nbase = "loggopsim"\n[cluster]\nL = "0ns"\no = "0ns"\ng = "0ns"\n'
        'G = "0ns/B"\nO = "0ns/B"\n'
    )
    proc = netsens("sweep", study)
    assert proc.returncode == 0, proc.stderr
    points = list((tmp_path / "results" / "live" / "points").glob("*.parquet"))
    assert len(points) == 3  # the baseline and two values of o
    again = netsens("sweep", study)
    assert again.returncode == 0 and "3/3" in again.stderr + again.stdout


def test_failed_live_point_is_not_stored(tmp_path):
    # mg cannot split its grid over 3 ranks: netsens-mpi-run refuses the job, the
    # point is reported as failed and nothing is stored for it.
    study = tmp_path / "bad.toml"
    study.write_text(
        'name = "bad"\nmode = "live"\nworkloads = ["mg"]\nsize = "tiny"\n'
        'ranks = [3]\nseeds = 1\n[axes]\no = ["10us"]\n'
    )
    proc = netsens("sweep", study)
    assert "mg" in proc.stderr and "3 ranks" in proc.stderr, proc.stderr
    assert not list((tmp_path / "results" / "bad" / "points").glob("*.parquet"))
