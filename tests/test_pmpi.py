"""libnetsens-pmpi.so (native/pmpi), preloaded into small MPI programs of tests/pmpi/ run
with mpirun directly: the injected o, g, G, L and wide-area links change round trips and
bursts by what docs/reference/pmpi.md's semantics give by hand; the stats file counts exactly the
messages the programs send (derived from their source); expanded collectives give right
answers; bad settings stop the job with one line and exit code 2.

Timing tests run 2 ranks on the 2 cores with NETSENS_SPIN_NS above the longest wait (so
every wait spins) and repeat a measurement up to three times before failing, since the
machine is shared; each compares against a baseline run in the same attempt."""

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "pmpi"
IMPLEMENTATIONS = ["openmpi", "mpich"]
US = 1000  # ns
SPIN = {"NETSENS_SPIN_NS": 5_000_000}


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """The library for both implementations and the test programs compiled by each."""
    subprocess.run(["make", "-s", "-C", str(ROOT / "native" / "pmpi")], check=True)
    out = tmp_path_factory.mktemp("pmpi")
    for impl in IMPLEMENTATIONS:
        for name in ["pingpong", "burst", "wan", "mix", "collectives", "notyet", "exchange"]:
            subprocess.run(
                [f"mpicc.{impl}", "-O2", "-o", out / f"{name}.{impl}", PROGRAMS / f"{name}.c"],
                check=True,
            )
        subprocess.run(
            [f"mpif90.{impl}", "-O2", "-o", out / f"pingpong_f.{impl}", PROGRAMS / "pingpong.f90"],
            check=True,
            cwd=out,
        )
        subprocess.run(
            [f"mpif90.{impl}", "-O2", "-o", out / f"wrapped_f.{impl}", PROGRAMS / "wrapped.f90"],
            check=True,
            cwd=out,
        )
    return out


def library(impl: str) -> Path:
    return ROOT / "native" / "pmpi" / "build" / impl / "libnetsens-pmpi.so"


def mpirun(impl, ranks, command, settings=None, preload=True, one_core=False):
    """Runs `command` on `ranks` ranks with the NETSENS_* `settings` (and nothing else);
    with `one_core`, every rank on CPU 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NETSENS_")}
    pairs = dict(settings or {})
    if preload:
        pairs["LD_PRELOAD"] = library(impl)
    if impl == "openmpi":
        args = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)]
        for key, value in pairs.items():
            args += ["-x", f"{key}={value}"]
    else:
        args = ["mpirun.mpich", "-np", str(ranks)]
        for key, value in pairs.items():
            args += ["-genv", key, str(value)]
    if one_core:  # the launcher's affinity is inherited; Open MPI would bind by itself
        args = ["taskset", "-c", "0", *args]
        if impl == "openmpi":  # placed, and yielding when idle, as netsens live runs it
            args[5:5] = ["--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"]
    return subprocess.run(
        [*args, *map(str, command)], capture_output=True, text=True, env=env, timeout=120
    )


def measured(proc, key: str) -> float:
    assert proc.returncode == 0, proc.stderr
    for line in proc.stdout.splitlines():
        if line.startswith(key + " "):
            return float(line.split()[1])
    raise AssertionError(f"no {key} in {proc.stdout!r}")


def tolerance(expected_ns: float) -> float:
    return max(0.05 * expected_ns, 2 * US)


def settles(measure, expected_ns: float):
    """Passes once `measure()` is within tolerance of `expected_ns` (three attempts)."""
    seen = []
    for _ in range(3):
        value = measure()
        seen.append(value)
        if abs(value - expected_ns) <= tolerance(expected_ns):
            return
    pytest.fail(f"measured {seen} ns, expected {expected_ns:.0f} ± {tolerance(expected_ns):.0f}")


# ---- o, L, g, G on ping-pongs and bursts ------------------------------------------


def rtt(impl, program, size, reps, settings):
    return measured(mpirun(impl, 2, [*program, size, reps], {**SPIN, **settings}), "rtt_ns")


def overhead_grows_rtt_by_four_o(impl, program):
    # A round trip is two messages; each costs o at its sender and o at its receiver.
    o_ns = 20 * US
    settles(
        lambda: (
            rtt(impl, program, 8, 300, {"NETSENS_O_PS": o_ns * 1000})
            - rtt(impl, program, 8, 300, {})
        ),
        4 * o_ns,
    )


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize(
    "clock,o_per_round,key", [("wall", 2, "round_ns"), ("cpu", 4, "served_ns")]
)
def test_o_clock_on_a_shared_core(build, impl, clock, o_per_round, key):
    # Two ranks on one core each pay o to send and o to receive in a round of their
    # exchange. Spun on the wall clock the two ranks' o overlap: a round takes 2 o
    # (and the round's waits with them). As CPU time the core serves both ranks' o in
    # turn: 4 o. A round also pays for its messages, the waits' polls and each spin's
    # last turn, about the same at any o (7-25 us a round on a 2-core virtual machine,
    # where a switch between the ranks takes 2 us): the test takes the difference of
    # rounds at o = 200 and 100 us, which is 100 us of o_per_round. Each o is timed on
    # its own clock: a wall-clock o absorbs time a hypervisor takes from the core, a
    # CPU-time o waits it out, so on the CPU clock a round is the time the core served
    # it (the two processes' CPU time; on this core, never idle, the wall time less the
    # stolen time: 0-6 % of a loop on a 2-core virtual machine here).
    program = [build / f"exchange.{impl}", 1000]

    def round_ns(o_ns):
        # The waits yield at every turn (MPICH's own progress does not yield, so a
        # wait's spin would hold the core the other rank's o needs).
        settings = {"NETSENS_O_PS": o_ns * 1000, "NETSENS_O_CLOCK": clock, "NETSENS_SPIN_NS": 0}
        return measured(mpirun(impl, 2, program, settings, one_core=True), key)

    settles(lambda: round_ns(200 * US) - round_ns(100 * US), o_per_round * 100 * US)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_overhead_c_pingpong(build, impl):
    overhead_grows_rtt_by_four_o(impl, [build / f"pingpong.{impl}"])


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_overhead_fortran_pingpong(build, impl):
    overhead_grows_rtt_by_four_o(impl, [build / f"pingpong_f.{impl}"])


def test_overhead_mpi4py_pingpong(build):
    overhead_grows_rtt_by_four_o("openmpi", [sys.executable, PROGRAMS / "pingpong.py"])


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_latency_c_pingpong(build, impl):
    # L = 100 us hides the hardware's sub-microsecond latency: each one-way trip is
    # delivered at its send time + L, so a round trip takes 2·L.
    l_ns = 100 * US
    settles(
        lambda: rtt(impl, [build / f"pingpong.{impl}"], 8, 200, {"NETSENS_L_PS": l_ns * 1000}),
        2 * l_ns,
    )


def test_per_byte_cost_pingpong(build):
    # 16 KiB with G = 10 ns/B: delivery at send + (s - 1)·G = 163.83 us each way, which
    # hides the hardware copy (measured baseline well below it). Waits stay under ~300 us:
    # longer spins on a shared, loaded machine get preempted for whole time slices.
    s, g_fs = 16384, 10_000_000
    one_way = (s - 1) * g_fs / 1e6
    assert rtt("openmpi", [build / "pingpong.openmpi"], s, 20, {}) < one_way
    settles(
        lambda: rtt("openmpi", [build / "pingpong.openmpi"], s, 20, {"NETSENS_GAP_FS_PER_B": g_fs}),
        2 * one_way,
    )


def test_gap_spaces_a_burst(build):
    # 20 messages with g = 20 us leave at 0, g, ..., 19·g; the burst ends when the last
    # one arrives and its acknowledgement returns (a one-message burst, measured).
    g_ns, count = 20 * US, 20
    program = [build / "burst.openmpi", 8]
    passed = {**SPIN, "NETSENS_COLLECTIVES": "pass"}

    def burst(n, settings):
        return measured(mpirun("openmpi", 2, [*program, n, 20], {**passed, **settings}), "burst_ns")

    settles(
        lambda: burst(count, {"NETSENS_GAP_PS": g_ns * 1000}) - burst(1, {}), (count - 1) * g_ns
    )


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("latency_ms", [0, 200])
def test_probe_and_test_wait_for_delivery(build, impl, latency_ms):
    # The message physically arrives within microseconds; 20 ms later Iprobe and Test see
    # it without injection, and report "not yet" with L = 200 ms, whose Wait returns at
    # the delivery time, 200 ms after the common start.
    settings = {"NETSENS_COLLECTIVES": "pass", "NETSENS_L_PS": latency_ms * 10**9}
    proc = mpirun(impl, 2, [build / f"notyet.{impl}"], settings)
    seen = 0 if latency_ms else 1
    assert measured(proc, "probed") == seen and measured(proc, "tested") == seen
    if latency_ms:
        assert measured(proc, "wait_ns") >= latency_ms * 1e6 - 2 * US


# ---- wide-area links ----------------------------------------------------------------

WAN_BYTES, WAN_L_NS, WAN_FS_PER_B = 25_000, 300 * US, 20_000_000  # 20 ns/B = 50 MB/s
WAN_BUSY_NS = WAN_BYTES * WAN_FS_PER_B / 1e6  # 500 us on the link per message
WAN = {"NETSENS_WAN_L_PS": WAN_L_NS * 1000, "NETSENS_WAN_FS_PER_B": WAN_FS_PER_B}


def test_wan_one_message(build):
    # Clusters of one rank each: a message occupies the link for s·G_w, then flies L_w:
    # 10 000 B at 20 ns/B (200 us) + 100 us.
    settles(
        lambda: rtt(
            "openmpi",
            [build / "pingpong.openmpi"],
            10_000,
            20,
            {"NETSENS_CLUSTERS": "1,1", **WAN, "NETSENS_WAN_L_PS": 100 * US * 1000},
        ),
        2 * (10_000 * WAN_FS_PER_B / 1e6 + 100 * US),
    )


@pytest.mark.parametrize("arrival", ["first_ns", "second_ns"])
def test_wan_link_is_shared(build, arrival):
    # Ranks 0 and 1 (cluster 0) send to rank 2 (cluster 1) at once: the first message
    # arrives at s·G_w + L_w, the second waits for the link and arrives s·G_w later.
    # Three ranks share two cores, so waits keep the default spin window: they sleep.
    settings = {**WAN, "NETSENS_CLUSTERS": "2,1", "NETSENS_COLLECTIVES": "pass"}
    expected = {"first_ns": 1, "second_ns": 2}[arrival] * WAN_BUSY_NS + WAN_L_NS
    settles(
        lambda: measured(
            mpirun("openmpi", 3, [build / "wan.openmpi", WAN_BYTES, 10], settings), arrival
        ),
        expected,
    )


# ---- the stats file -------------------------------------------------------------------


def binomial_bcast(p, root, nbytes):
    """(src, dst, bytes) of a binomial-tree broadcast, as a textbook lays it out: in
    round k every rank that has the data sends it 2^k ranks further (largest step first)."""
    sends, have = [], {0}
    step = 1
    while step < p:
        step *= 2
    step //= 2
    rounds = []
    while step >= 1:
        rounds.append(step)
        step //= 2
    for step in rounds:
        for v in sorted(have):
            if v + step < p and v % (2 * step) == 0:
                sends.append(((v + root) % p, (v + step + root) % p, nbytes))
        have |= {v + step for v in have if v + step < p and v % (2 * step) == 0}
    return sends


def mix_messages(p=4):
    """Every application-level message tests/pmpi/mix.c sends, from its header."""
    m = [(0, 1, 400), (1, 0, 1000)]  # A, B
    m += [(r, (r + 1) % p, 64) for r in range(p)]  # C: ring Sendrecv
    m += [(2, 3, 80)]  # D: 10 blocks of 2 ints
    m += [(3, 2, 16)] * 3  # E: persistent, started three times
    m += [(r, r ^ mask, 4) for r in range(p) for mask in (1, 2)]  # F: recursive doubling
    m += binomial_bcast(p, 0, 512)  # G
    m += [(r, (r + i) % p, 4) for r in range(p) for i in range(1, p)]  # H: pairwise
    m += [(r, (r + k) % p, 0) for r in range(p) for k in (1, 2)]  # J: dissemination
    return m


def read_stats(directory: Path, ranks: int) -> list[dict]:
    files = sorted(directory.glob("rank-*.json"))
    assert [f.name for f in files] == [f"rank-{r}.json" for r in range(ranks)]
    return [json.loads((directory / f"rank-{r}.json").read_text()) for r in range(ranks)]


def test_binomial_model_matches_hand_count():
    # 4 ranks from root 0: 0 -> 2, then 0 -> 1 and 2 -> 3 (three messages).
    assert sorted(binomial_bcast(4, 0, 1)) == [(0, 1, 1), (0, 2, 1), (2, 3, 1)]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("latency_ps", [0, 1_000_000])
def test_stats_count_every_message(build, tmp_path, impl, latency_ps):
    proc = mpirun(
        impl,
        4,
        [build / f"mix.{impl}"],
        {"NETSENS_STATS_DIR": tmp_path, "NETSENS_L_PS": latency_ps},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    stats = read_stats(tmp_path, 4)
    messages = mix_messages()
    for r, s in enumerate(stats):
        mine = [(d, b) for src, d, b in messages if src == r]
        received = [b for _, d, b in messages if d == r]
        assert (s["rank"], s["size"]) == (r, 4)
        assert (s["sent_messages"], s["sent_bytes"]) == (len(mine), sum(b for _, b in mine))
        assert (s["recv_messages"], s["recv_bytes"]) == (len(received), sum(received))
        per_dst = Counter(d for d, _ in mine)
        assert s["matrix"] == [
            [d, per_dst[d], sum(b for dd, b in mine if dd == d)] for d in sorted(per_dst)
        ]
        bins = Counter(b.bit_length() for _, b in mine)
        assert s["histogram"] == [
            [k, bins[k], sum(b for _, b in mine if b.bit_length() == k)] for k in sorted(bins)
        ]
        assert s["calls"]["MPI_Sendrecv"] == 1
        for name in ["MPI_Allreduce", "MPI_Bcast", "MPI_Alltoall", "MPI_Barrier"]:
            assert s["collectives"][name] == 1
        assert s["unhandled"] == {"MPI_Ibarrier": 1, "MPI_Win_create": 1}
        # Stamps travel only when a receiver needs the send time (here: L > 0).
        assert s["shadow_messages"] == (len(mine) if latency_ps else 0)
        assert s["injected"]["L_ps"] == latency_ps
        assert s["injected"]["clusters"] == [4]
        assert s["wait_ps"] == s["in_mpi_ps"] - s["overhead_ps"]
        assert 0 <= s["in_mpi_ps"] <= s["elapsed_ps"] == s["end_ps"] - s["start_ps"]
    assert stats[0]["start_ps"] == 0
    assert stats[1]["calls"]["MPI_Isend"] == 1 and stats[0]["calls"]["MPI_Test"] >= 1
    assert stats[3]["calls"]["MPI_Probe"] == 1 and stats[3]["calls"]["MPI_Start"] == 3


def test_stats_overhead_and_wan(build, tmp_path):
    # o = 10 us on each of the 205 sends and 205 receives of each rank (200 + 5 warm-up
    # round trips); 2 clusters of one rank: every message crosses link 0 -> 1 or 1 -> 0.
    settings = {
        "NETSENS_STATS_DIR": tmp_path,
        "NETSENS_O_PS": 10_000_000,
        "NETSENS_CLUSTERS": "1,1",
        "NETSENS_WAN_FS_PER_B": 1000,
    }
    proc = mpirun("openmpi", 2, [build / "pingpong.openmpi", 100, 200], settings)
    assert proc.returncode == 0, proc.stderr
    for r, s in enumerate(read_stats(tmp_path, 2)):
        assert s["overhead_ps"] == 2 * 205 * 10_000_000
        # 100 B at 1000 fs/B keep the link busy 100 ps each.
        assert s["wan"] == [[r, 1 - r, 205, 205 * 100, 205 * 100]]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_fortran_calls_of_real_programs_are_wrapped(build, tmp_path, impl):
    # tests/pmpi/wrapped.f90 at 2 ranks, collectives passed to the MPI (counted, not
    # expanded): each rank sends 4 messages and receives 4 (sendrecv_replace, then an
    # Isend and an Irecv in each of 3 exchanges), each paying the injected o of 10 us.
    o_ps = 10_000_000
    settings = {"NETSENS_STATS_DIR": tmp_path, "NETSENS_O_PS": o_ps, "NETSENS_COLLECTIVES": "pass"}
    proc = mpirun(impl, 2, [build / f"wrapped_f.{impl}"], settings)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "wrapped ok" in proc.stdout
    for s in read_stats(tmp_path, 2):
        assert (s["sent_messages"], s["recv_messages"]) == (4, 4)
        assert (s["sent_bytes"], s["recv_bytes"]) == (16 + 3 * 4, 16 + 3 * 4)
        assert s["overhead_ps"] == 8 * o_ps
        calls = s["calls"]
        for name in [
            "MPI_Comm_split_type",
            "MPI_Comm_create",
            "MPI_Comm_create_group",
            "MPI_Cart_create",
            "MPI_Cart_sub",
            "MPI_Sendrecv_replace",
        ]:
            assert calls[name] == 1, name
        assert calls["MPI_Waitany"] == 2 and calls["MPI_Testany"] >= 2 and calls["MPI_Testall"] >= 1
        assert (calls["MPI_Isend"], calls["MPI_Irecv"]) == (3, 3)
        for name in ["Allgatherv", "Gatherv", "Scatterv", "Alltoallv", "Reduce_scatter", "Scan"]:
            assert s["collectives"][f"MPI_{name}"] == 1, name
        assert s["unhandled"] == {}


def test_fortran_collectives_are_expanded_and_injected(build, tmp_path):
    # The same program with the collectives expanded into the library's messages: each
    # of them pays o too, so every message end of the run, and only those, pays it.
    o_ps = 10_000_000
    settings = {"NETSENS_STATS_DIR": tmp_path, "NETSENS_O_PS": o_ps}
    proc = mpirun("openmpi", 2, [build / "wrapped_f.openmpi"], settings)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "wrapped ok" in proc.stdout
    for s in read_stats(tmp_path, 2):
        # the 4 point-to-point messages and at least one of each of the 7 collectives
        # (allgatherv, alltoallv, reduce_scatter, scan and the barrier on both ranks)
        assert s["sent_messages"] > 4 + 4 and s["recv_messages"] > 4 + 4
        assert s["overhead_ps"] == (s["sent_messages"] + s["recv_messages"]) * o_ps


# ---- collectives, bad settings ----------------------------------------------------------


@pytest.mark.parametrize("impl,ranks", [("openmpi", 3), ("openmpi", 4), ("mpich", 3)])
def test_expanded_collectives_answer_right(build, impl, ranks):
    proc = mpirun(impl, ranks, [build / f"collectives.{impl}"], {"NETSENS_L_PS": 2_000_000})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "collectives ok" in proc.stdout


_NOT_AN_ENTRY = (
    "an entry is not KEY=VALUE with KEY one of O_PS, GAP_PS, L_PS, O_FS_PER_B, GAP_FS_PER_B"
)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize(
    "name,value,why",
    [
        ("NETSENS_O_PS", "5us", "not an integer"),
        ("NETSENS_L_PS", "-3", "negative"),
        ("NETSENS_CLUSTERS", "3,3", "cluster sizes add up to 6, the world has 2 ranks"),
        ("NETSENS_WAN_SHAPE", "mesh", "unknown shape (full, star or ring)"),
        ("NETSENS_O_CLOCK", "tsc", "neither wall nor cpu"),
        ("NETSENS_SCHEDULE", "O_PS=1;G=2", _NOT_AN_ENTRY),
        ("NETSENS_SCHEDULE", "O_PS=1,L_PS", _NOT_AN_ENTRY),
        ("NETSENS_SCHEDULE", "O_PS=-1", "a value is not a non-negative integer"),
        ("NETSENS_SCHEDULE", "O_PS=5us", "a value is not a non-negative integer"),
    ],
)
def test_bad_setting_stops_with_one_line(build, impl, name, value, why):
    settings = {name: value, "NETSENS_CLUSTERS": "1,1"} if "WAN" in name else {name: value}
    proc = mpirun(impl, 2, [build / f"pingpong.{impl}", 8, 2], settings)
    assert proc.returncode == 2
    ours = [line for line in proc.stderr.splitlines() if line.startswith("netsens-pmpi:")]
    assert ours == [f"netsens-pmpi: error: {name}={value}: {why}"]
    assert "rtt_ns" not in proc.stdout


def test_mpi_tools_present():
    # make install-live installs both implementations, gfortran and mpi4py.
    for tool in ["mpicc.openmpi", "mpicc.mpich", "mpif90.openmpi", "mpirun.mpich"]:
        assert shutil.which(tool), tool
    subprocess.run([sys.executable, "-c", "import mpi4py"], check=True)
