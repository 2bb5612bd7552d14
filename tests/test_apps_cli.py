"""`netsens run --app` and `netsens apps`, run as a subprocess exactly as a user runs them.

Expected numbers are derived by hand from LOGGP.md (loggopsim preset: L=2500 o=1500
g=1000 ns, G=6 ns/B, O=0, S=65535 B): one eager round trip of s bytes on an idle
network costs 2 * (2o + L + (s-1) * G) = 2 * (5500 + 6 (s-1)) ns.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PING = Path(__file__).resolve().parent / "data" / "ping1.goal"
NS = 1000  # ps per ns

RESULT_KEYS = {
    "makespan_ps",
    "ranks",
    "messages",
    "bytes",
    "control_messages",
    "events",
    "histogram",
    "matrix",
    "wan_links",
    "seed",
    "phases",
    "primitives",
    "platform",
    "platform_name",
    "workload",
    "app",
    "size",
    "verified",
}


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def run_json(*args: object) -> dict:
    proc = netsens("run", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


def round_trip_ns(size: int) -> int:
    return 2 * (2 * 1500 + 2500 + (size - 1) * 6)


def test_pingpong_json():
    result = run_json("--app", "pingpong", "--ranks", "2")
    assert result.keys() == RESULT_KEYS
    assert result["verified"] is True
    assert (result["app"], result["size"]) == ("pingpong", "small")
    assert result["workload"] == {"kind": "app", "app": "pingpong", "size": "small", "ranks": 2}
    # small: sizes 1 B .. 64 KiB (17 of them, all eager: below S = 65535 B), 10 round
    # trips each, 2 messages per round trip.
    sizes = [1 << i for i in range(17)]
    assert result["messages"] == 17 * 10 * 2
    assert result["bytes"] == 10 * 2 * sum(sizes)
    assert result["makespan_ps"] == 10 * sum(round_trip_ns(s) for s in sizes) * NS
    phases = {p["phase"] for p in result["phases"]}
    assert {"1B", "1KiB", "64KiB"} <= phases and len(phases) == 17
    primitives = {(p["rank"], p["primitive"]): p["count"] for p in result["primitives"]}
    assert primitives[(0, "send")] == primitives[(1, "recv")] == 170


def test_pingpong_tiny_by_hand():
    # tiny: 1 B .. 1 KiB (11 sizes), 2 round trips each: 290.864 us on rank 0.
    result = run_json("--app", "pingpong", "--ranks", "2", "--size", "tiny")
    assert result["makespan_ps"] == 2 * sum(round_trip_ns(1 << i) for i in range(11)) * NS
    assert result["makespan_ps"] == 290_864 * NS


def test_stencil_json():
    result = run_json("--app", "stencil", "--ranks", "4")
    assert result.keys() == RESULT_KEYS
    assert result["verified"] is True
    assert result["workload"] == {"kind": "app", "app": "stencil", "size": "small", "ranks": 4}
    # small: 256 x 256, 20 iterations, on a 2 x 2 process grid of 128 x 128 blocks. Each
    # rank has 2 neighbours and sends each one edge of 128 f64 (1024 B) per iteration.
    assert result["messages"] == 20 * 4 * 2
    assert result["bytes"] == 20 * 4 * 2 * 1024
    assert {p["phase"] for p in result["phases"]} == {"compute", "halo"}
    # 5 flops per point at 1 ns each: 20 iterations x 128 x 128 points x 5 ns.
    assert all(r["compute_ps"] == 20 * 128 * 128 * 5 * NS for r in result["ranks"])


def test_plain_output_has_app_and_phases():
    proc = netsens("run", "--app", "pingpong", "--ranks", "3", "--size", "tiny")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "pingpong (size tiny): 3 ranks" in out
    assert "verified" in out and "yes" in out
    assert "per phase" in out
    # Phases by size, not alphabetically; the 1 B phase of rank 0 is 2 round trips (22 us).
    assert out.index(" 1B ") < out.index(" 2B ") < out.index(" 512B ") < out.index(" 1KiB ")
    assert "22 us" in out
    stencil = netsens("run", "--app", "stencil", "--ranks", "4", "--size", "tiny").stdout
    assert "halo" in stencil and "compute" in stencil


def test_same_seed_same_output():
    args = ("run", "--app", "stencil", "--ranks", "8", "--size", "tiny", "--json", "--seed", "9")
    first, second = netsens(*args), netsens(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert json.loads(first.stdout)["seed"] == 9


def test_apps_lists_the_programs():
    proc = netsens("apps")
    assert proc.returncode == 0, proc.stderr
    for name in ("pingpong", "stencil", "tiny, small, paper"):
        assert name in proc.stdout
    assert "_deadlock" not in proc.stdout


def test_help_mentions_apps():
    assert "--app" in netsens("run", "--help").stdout
    assert netsens("apps", "--help").returncode == 0


BAD = {
    "unknown app": (
        ["--app", "nosuch", "--ranks", "2"],
        'unknown application "nosuch"; applications: pingpong, stencil',
    ),
    "zero ranks": (["--app", "stencil", "--ranks", "0"], "ranks: must be at least 1, got 0"),
    "one rank for pingpong": (
        ["--app", "pingpong", "--ranks", "1"],
        "pingpong needs at least 2 ranks (ranks 0 and 1 play, any others idle), got 1",
    ),
    "non-numeric ranks": (["--app", "stencil", "--ranks", "four"], "'four' is not a valid integer"),
    "goal and app": (
        ["--goal", PING, "--app", "stencil", "--ranks", "2"],
        "give either --goal or --app, not both",
    ),
    "neither goal nor app": ([], "Missing option '--goal', '--app' or '--job'"),
    "app without ranks": (["--app", "stencil"], "--ranks is required with --app"),
    "ranks with goal": (["--goal", PING, "--ranks", "2"], "--ranks is for --app"),
    "size with goal": (["--goal", PING, "--size", "tiny"], "--size is for --app"),
    "unknown size": (
        ["--app", "stencil", "--ranks", "4", "--size", "huge"],
        'unknown size "huge" for stencil; sizes: tiny, small, paper',
    ),
    "process grid too wide": (
        ["--app", "stencil", "--ranks", "37", "--size", "tiny"],
        "stencil: 37 ranks form a 37x1 process grid",
    ),
    "bad platform value": (
        ["--app", "stencil", "--ranks", "4", "--L", "5"],
        'L: "5" has no unit; write a time such as 5us',
    ),
    "program deadlock": (
        ["--app", "_deadlock", "--ranks", "3"],
        "deadlock: 1 rank(s) cannot finish: rank 0 waits in `recv from 2 tag 0`",
    ),
    "program failure": (
        ["--app", "_wrong-answer", "--ranks", "3"],
        "the program failed: rank 2: checksum 41 != 42",
    ),
}


@pytest.mark.parametrize(("args", "says"), BAD.values(), ids=BAD.keys())
def test_bad_input_is_one_line_and_exit_2(args, says):
    proc = netsens("run", *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("netsens: error: ")
    assert says in lines[0]
