"""The netsens command line, run as a subprocess exactly as a user runs it.

Every expected number is derived by hand from the rules of LOGGP.md (the derivation
is in the comment beside it), never copied from the program's output. GOAL files and
flags are in ns; results are integer ps, hence the `* NS`.

LogGOPSim defaults (the `loggopsim` preset): L=2500 o=1500 g=1000 G=6/B O=0 S=65535,
all ns. A message of s bytes has k = max(s-1, 0) extra bytes.
"""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from netsens.cli import main as cli

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
BAD = DATA / "bad"
NS = 1000  # ps per ns

PRESETS = ["loggopsim", "now1997", "das1998", "ib100", "eth10g"]
# LOGGP.md's reference figures from LogGOPSim itself use these parameters.
LOGGOPSIM_REFERENCE = ["--L", "5000ns", "--o", "1000ns", "--g", "2000ns", "--G", "1ns/B"]
LOGGOPSIM_REFERENCE += ["--O", "0ns/B", "--S", "65536B"]


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    """Run `python -m netsens ARGS` from the repository root."""
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def run_json(goal: Path, *flags: object) -> dict:
    proc = netsens("run", "--goal", goal, "--json", *flags)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


def ends(result: dict) -> list[int]:
    """Each rank's end time (its largest cpu clock), in rank order, in ps."""
    return [r["end_ps"] for r in sorted(result["ranks"], key=lambda r: r["rank"])]


def dissemination_goal(num_ranks: int) -> str:
    """A dissemination barrier with 1-byte messages: in round r, rank i sends to
    i + 2^r and receives from i - 2^r; round r+1's send waits for round r's receive."""
    rounds = (num_ranks - 1).bit_length()
    lines = [f"num_ranks {num_ranks}", ""]
    for rank in range(num_ranks):
        lines.append(f"rank {rank} {{")
        for r in range(rounds):
            step = 1 << r
            lines.append(f"l{2 * r + 1}: send 1b to {(rank + step) % num_ranks} tag {r}")
            lines.append(f"l{2 * r + 2}: recv 1b from {(rank - step) % num_ranks} tag {r}")
        lines += [f"l{2 * r + 1} requires l{2 * r}" for r in range(1, rounds)]
        lines += ["}", ""]
    return "\n".join(lines)


# --- LOGGP.md's worked vectors through the CLI -------------------------------------


def test_vector1_ping_1_byte():
    # Sender: t0 = 0, cpu = 0 + o = 1500.  First byte arrives at t0 + o + L = 4000.
    # Receiver (recv posted at 0, idle): processed at 4000, cpu = 4000 + o + 0 = 5500.
    assert ends(run_json(DATA / "ping1.goal")) == [1500 * NS, 5500 * NS]


def test_vector2_ping_1001_bytes():
    # k = 1000.  Sender: cpu = 0 + o + k*O = 1500 (O = 0); nic_s = 0 + g + k*G = 7000.
    # Arrival at 0 + o + L = 4000; receiver cpu = 4000 + o + max(k*O, k*G)
    # = 4000 + 1500 + 6000 = 11500.
    assert ends(run_json(DATA / "ping1001.goal")) == [1500 * NS, 11500 * NS]


def test_case_sensitive_gap_flags():
    # --G is the gap per byte: with G = 1ns/B the 1001-byte ping's receiver ends at
    # 4000 + 1500 + max(0, 1000 * 1) = 6500.  --g is the gap per message: one message
    # never waits for it, so the receiver still ends at 11500 (vector 2).
    assert ends(run_json(DATA / "ping1001.goal", "--G", "1ns/B"))[1] == 6500 * NS
    assert ends(run_json(DATA / "ping1001.goal", "--g", "1ns"))[1] == 11500 * NS


DISSEMINATION16 = [DATA / "dissemination16.goal", ROOT / "examples/goal/dissemination16.goal"]


@pytest.mark.parametrize("goal", DISSEMINATION16, ids=["tests-data", "examples"])
def test_vector3_dissemination_barrier_16(goal):
    # Each of the 4 rounds: send (o = 1500), wire (L = 2500), receive (o = 1500) = 5500;
    # the receive of round r ends at 5500 (r+1) on every rank, and round r+1's send
    # starts there (nic_s, free since 1000 after the previous send, does not delay it).
    # 4 * 5500 = 22000 on every rank: the LogGOPSim README's example.
    result = run_json(goal)
    assert ends(result) == [22000 * NS] * 16
    assert result["makespan_ps"] == 22000 * NS


def test_vector4_back_to_back_sends():
    # Sender, default g = 1000: the first send starts at 0 (cpu 1500, nic_s 1000); the
    # second at max(cpu, nic_s) = 1500, cpu = 3000 = sender's end.
    # Receiver: the first message arrives at 4000 -> cpu 5500, nic_r 4000 + g = 5000;
    # the second arrives at 1500 + o + L = 5500 = max(5500, cpu 5500, nic_r 5000)
    # -> cpu 7000.
    assert ends(run_json(DATA / "two_sends.goal")) == [3000 * NS, 7000 * NS]


def test_vector4_back_to_back_sends_with_larger_gap():
    # g = 4000: the first send leaves nic_s = 4000, so the second starts at
    # max(cpu 1500, nic_s 4000) = 4000, cpu = 5500 = sender's end.
    # Receiver: first arrival 4000 -> cpu 5500, nic_r 4000 + 4000 = 8000; the second
    # arrives at 4000 + o + L = 8000, processed at max(8000, 5500, 8000) -> cpu 9500.
    result = run_json(DATA / "two_sends.goal", "--g", "4000ns")
    assert ends(result) == [5500 * NS, 9500 * NS]


def test_vector5_rendezvous_handshake():
    # s = 100000 > S = 65535, k = 99999, k*G = 599994.  Receive posted at 0.
    # RTS (1 byte): sender cpu 1500, arrives 4000, receiver processes -> cpu 5500.
    # CTS sent at 5500 (receiver cpu 7000), arrives at 5500 + o + L = 9500, sender
    # processes -> cpu 11000.  Data sent at 11000: sender cpu 11000 + o = 12500 = the
    # send's end; arrives 11000 + o + L = 15000; receiver processes at
    # max(15000, cpu 7000, nic_r 5000): cpu = 15000 + o + 599994 = 616494.
    result = run_json(DATA / "ping100000.goal", "--rendezvous", "handshake")
    assert ends(result) == [12500 * NS, 616494 * NS]


def test_vector6_rendezvous_loggopsim():
    # The data travels at once: sender cpu 0 + o = 1500; arrives 4000 and is matched by
    # the posted receive there, so the send is done at 4000 and the sender's cpu is
    # advanced to 4000 = its end.  Receiver: 4000 + o + 599994 = 605494.
    result = run_json(DATA / "ping100000.goal", "--rendezvous", "loggopsim")
    assert ends(result) == [4000 * NS, 605494 * NS]


def test_loggopsim_reference_ping_pong():
    # L=5000 o=1000 g=2000 G=1/B S=65536, 1-byte ping-pong (recv after send on host 0,
    # send after recv on host 1).  Host 0 sends at 0: cpu 1000, arrives 0 + o + L = 6000.
    # Host 1 processes at 6000 -> cpu 7000; its send starts at 7000 -> cpu 8000 = host 1's
    # end; arrives 7000 + 1000 + 5000 = 13000; host 0 processes -> cpu 14000.
    result = run_json(DATA / "pingpong.goal", *LOGGOPSIM_REFERENCE)
    assert ends(result) == [14000 * NS, 8000 * NS]


def test_loggopsim_reference_calc_before_receive():
    # Same parameters.  The 1-byte message arrives at 0 + 1000 + 5000 = 6000 while the
    # receiver computes (calc 10000, cpu busy until 10000), so it is processed at
    # max(6000, cpu 10000) = 10000 -> cpu 11000.  Sender: cpu 0 + o = 1000.
    result = run_json(DATA / "calc_recv.goal", *LOGGOPSIM_REFERENCE)
    assert ends(result) == [1000 * NS, 11000 * NS]


def test_ping_pong_grows_by_twice_the_latency_step():
    # Host 0's end is o + L (ping) + o + o + L (pong) + o = 4o + 2L with idle NICs, so
    # raising L by 1200 ns raises it by exactly 2400 ns.
    base = ends(run_json(DATA / "pingpong.goal", "--L", "2500ns"))[0]
    slower = ends(run_json(DATA / "pingpong.goal", "--L", "3700ns"))[0]
    assert base == (4 * 1500 + 2 * 2500) * NS
    assert slower - base == 2 * 1200 * NS


# --- the JSON result ----------------------------------------------------------------

TOP_LEVEL_KEYS = {
    "makespan_ps",
    "ranks",
    "messages",
    "bytes",
    "events",
    "platform",
    "platform_name",
    "workload",
    "seed",
    "histogram",
    "matrix",
    "wan_links",
}
RANK_KEYS = {"rank", "end_ps", "compute_ps", "overhead_ps", "wait_ps", "noise_ps"}


def test_json_has_documented_keys():
    result = run_json(DATA / "dissemination16.goal", "--seed", "7")
    assert TOP_LEVEL_KEYS <= result.keys()
    assert all(RANK_KEYS <= r.keys() for r in result["ranks"])
    assert result["seed"] == 7
    assert result["platform_name"] == "loggopsim"
    assert result["workload"]["kind"] == "goal"
    # 16 ranks x 4 rounds x (send, recv) = 128 operations.
    assert result["workload"]["ops"] == 128


def test_json_traffic_totals_agree():
    # 16 ranks x 4 rounds, one 1-byte message each: 64 messages, 64 bytes, every one
    # from rank i to rank i + 2^r (mod 16) for r = 0..3.
    result = run_json(DATA / "dissemination16.goal")
    assert (result["messages"], result["bytes"]) == (64, 64)
    histogram = result["histogram"]
    assert sum(b["messages"] for b in histogram) == 64
    assert sum(b["bytes"] for b in histogram) == 64
    matrix = {(m["src"], m["dst"]): (m["messages"], m["bytes"]) for m in result["matrix"]}
    expected = {(i, (i + (1 << r)) % 16): (1, 1) for i in range(16) for r in range(4)}
    assert {pair: cell for pair, cell in matrix.items() if cell != (0, 0)} == expected
    # Bytes sent by each rank = bytes received by each rank = 4.
    for rank in range(16):
        assert sum(b for (src, _), (_, b) in matrix.items() if src == rank) == 4
        assert sum(b for (_, dst), (_, b) in matrix.items() if dst == rank) == 4


def test_json_without_matrix():
    assert run_json(DATA / "ping1.goal", "--no-matrix")["matrix"] is None


def test_same_inputs_give_identical_output():
    first = netsens("run", "--goal", DATA / "dissemination16.goal", "--json", "--seed", "3")
    second = netsens("run", "--goal", DATA / "dissemination16.goal", "--json", "--seed", "3")
    assert first.returncode == 0
    assert first.stdout == second.stdout


# --- plain output, platforms, help ----------------------------------------------------


def test_plain_output_names_units():
    proc = netsens("run", "--goal", DATA / "dissemination16.goal")
    assert proc.returncode == 0, proc.stderr
    assert "makespan" in proc.stdout
    assert "22 us" in proc.stdout  # 22000 ns, vector 3


def test_plain_output_summarises_many_ranks(tmp_path):
    # 32 ranks: 5 rounds of 5500 ns = 27500 ns on every rank.
    goal = tmp_path / "dissemination32.goal"
    goal.write_text(dissemination_goal(32))
    proc = netsens("run", "--goal", goal)
    assert proc.returncode == 0, proc.stderr
    for label in ("min", "median", "max", "27.5 us"):
        assert label in proc.stdout


def test_platform_list_names_every_preset():
    proc = netsens("platform", "list")
    assert proc.returncode == 0, proc.stderr
    for preset in PRESETS:
        assert preset in proc.stdout


@pytest.mark.parametrize("preset", PRESETS)
def test_platform_show_is_a_platform_file(preset, tmp_path):
    proc = netsens("platform", "show", preset)
    assert proc.returncode == 0, proc.stderr
    tomllib.loads(proc.stdout)
    saved = tmp_path / f"{preset}.toml"
    saved.write_text(proc.stdout)
    again = netsens("platform", "show", saved)
    assert again.returncode == 0, again.stderr


def test_platform_file_with_override_reads_back(tmp_path):
    # `platform show loggopsim --L 5us` saved and replayed equals the override itself:
    # vector 1 with L = 5000: arrival at 0 + 1500 + 5000 = 6500, receiver ends at 8000.
    proc = netsens("platform", "show", "loggopsim", "--L", "5us")
    assert proc.returncode == 0, proc.stderr
    saved = tmp_path / "slow.toml"
    saved.write_text(proc.stdout)
    assert ends(run_json(DATA / "ping1.goal", "--platform", saved)) == [1500 * NS, 8000 * NS]
    assert ends(run_json(DATA / "ping1.goal", "--L", "5us")) == [1500 * NS, 8000 * NS]


@pytest.mark.parametrize(
    "args",
    [[], ["run"], ["platform"], ["platform", "show"], ["platform", "list"]],
    ids=["netsens", "run", "platform", "show", "list"],
)
def test_help_at_every_level(args):
    proc = netsens(*args, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Usage: netsens" in proc.stdout


def test_help_teaches_units_and_presets():
    for args in ([], ["run"], ["platform", "show"]):
        text = netsens(*args, "--help").stdout
        assert "5us" in text and "6ns/B" in text and "64KiB" in text
        assert all(preset in text for preset in PRESETS)
    assert "nanoseconds" in netsens("run", "--help").stdout


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "netsens"
    proc = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "netsens" in proc.stdout


# --- bad input: exit 2, one line on stderr, no traceback ------------------------------

PING = DATA / "ping1.goal"
BAD_INPUTS = {
    "bare number": (
        ["run", "--goal", PING, "--L", "5"],
        'L: "5" has no unit; write a time such as 5us',
    ),
    "unknown unit": (["run", "--goal", PING, "--L", "5parsecs"], 'unknown unit "parsecs"'),
    "time for a per-byte cost": (
        ["run", "--goal", PING, "--G", "6ns"],
        '"6ns" is a time, not a per-byte cost',
    ),
    "negative size": (["run", "--goal", PING, "--S=-1B"], 'S: "-1B" is negative'),
    "zero ranks per node": (
        ["run", "--goal", PING, "--ranks-per-node", "0"],
        "ranks_per_node: must be at least 1, got 0",
    ),
    "zero-rank clusters": (["run", "--goal", PING, "--clusters", "0x8"], "must be positive, got 0"),
    "unknown preset": (
        ["run", "--goal", PING, "--platform", "nosuch"],
        'unknown platform preset "nosuch"; known presets: loggopsim',
    ),
    "unknown preset shown": (["platform", "show", "nosuch"], 'unknown platform preset "nosuch"'),
    "malformed platform TOML": (
        ["run", "--goal", PING, "--platform", BAD / "malformed.toml"],
        "malformed.toml:2: malformed TOML",
    ),
    "GOAL unknown label": (
        ["run", "--goal", BAD / "unknown_label.goal"],
        'unknown_label.goal:7: unknown label "l9"',
    ),
    "GOAL dependency cycle": (
        ["run", "--goal", BAD / "cycle.goal"],
        "the dependencies of rank 0 form a cycle",
    ),
    "receive nobody sends": (
        ["run", "--goal", BAD / "unmatched_recv.goal"],
        "deadlock: 1 rank(s) cannot finish: rank 0 waits in `l1: recv 1b from 1 tag 0`",
    ),
    "truncated GOAL": (["run", "--goal", BAD / "truncated.goal"], "truncated.goal:9:"),
    "num_ranks 0": (
        ["run", "--goal", BAD / "zero_ranks.goal"],
        "zero_ranks.goal:2: num_ranks must be at least 1",
    ),
    "missing GOAL file": (["run", "--goal", DATA / "no-such-file.goal"], "does not exist"),
    "missing --goal": (["run"], "Missing option '--goal'"),
    "unknown flag": (["run", "--goal", PING, "--bogus", "1us"], "No such option '--bogus'"),
    "unknown rendezvous": (
        ["run", "--goal", PING, "--rendezvous", "eager"],
        "'eager' is not one of",
    ),
    "negative seed": (["run", "--goal", PING, "--seed", "-1"], "-1 is not between 0 and 2^64-1"),
    "unknown command": (["simulate"], "No such command 'simulate'"),
}


@pytest.mark.parametrize(("args", "says"), BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_is_one_line_and_exit_2(args, says):
    proc = netsens(*args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("netsens: error: ")
    assert says in lines[0]


def test_deadlock_names_the_stuck_rank():
    # Rank 0 waits for a message that rank 1 never sends.
    proc = netsens("run", "--goal", BAD / "unmatched_recv.goal")
    assert proc.returncode == 2
    assert "rank" in proc.stderr.lower() and "0" in proc.stderr


def test_interrupt_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("netsens.cli.run.run_goal", interrupted)
    assert cli.main(["run", "--goal", str(PING)]) == 130
    assert capsys.readouterr().err == "netsens: interrupted\n"


def test_wide_area_example_of_loggp_md(tmp_path):
    # Two clusters of 2 ranks, L_w = 3 ms, B = 1 MB/s (1 us/B), o = 1500 ns, G = 0:
    # 0 -> 2 (1000 B) reaches the link at 1500 ns, occupies it 1 ms, arrives at
    # 1500 ns + 1 ms + 3 ms = 4.0015 ms; the receive is done o later, at 4.003 ms.
    # 1 -> 3, also sent at 0, waits for the link: arrives 5.0015 ms, done 5.003 ms.
    goal = tmp_path / "wan.goal"
    goal.write_text(
        "num_ranks 4\n"
        "rank 0 {\nsend 1000b to 2\n}\nrank 1 {\nsend 1000b to 3\n}\n"
        "rank 2 {\nrecv 1000b from 0\n}\nrank 3 {\nrecv 1000b from 1\n}\n"
    )
    result = run_json(
        goal,
        "--clusters",
        "2x2",
        "--wan-latency",
        "3ms",
        "--wan-bandwidth",
        "1MB/s",
        "--G",
        "0ns/B",
    )
    ends = [r["end_ps"] for r in result["ranks"]]
    assert ends[2] == 4_003_000_000
    assert ends[3] == 5_003_000_000
    (link,) = result["wan_links"]
    assert (link["from_cluster"], link["to_cluster"], link["bytes"]) == (0, 1, 2000)
