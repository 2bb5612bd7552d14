"""Inputs just outside the engine's range, run as a user runs them: each stops with
one `netsens: error:` line and exit code 2, never a wrapped time, a saturated time or
an abort. The engine's largest time is 2^64 - 1 ps (about 1.8e19 ps)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def assert_one_error_line(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("netsens: error: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def pair(size: int) -> str:
    return (
        f"num_ranks 2\nrank 0 {{\nbig: send {size}b to 1 tag 0\n}}\n"
        f"rank 1 {{\nrecv {size}b from 0 tag 0\n}}\n"
    )


# 10^16 B at G = 6 ns/B would take 6e22 ps (it used to end at a wrapped 4 659 768 s);
# 2^64 - 1 B used to "complete" in 5.488 us.
@pytest.mark.parametrize("size", [10**16, 2**64 - 1])
def test_a_message_past_the_largest_time_is_an_error(tmp_path: Path, size: int) -> None:
    goal = tmp_path / "big.goal"
    goal.write_text(pair(size))
    assert_one_error_line(netsens("run", "--goal", goal), "rank 0", "big: send", "largest time")


def test_two_calcs_past_the_largest_time_do_not_saturate(tmp_path: Path) -> None:
    # 18446744073709551 ns each = 1.8446744073709551e19 ps: one fits, two do not
    # (the sum used to be reported as exactly 2^64 - 1 ps).
    goal = tmp_path / "calc.goal"
    calc = "calc 18446744073709551"
    goal.write_text(f"num_ranks 1\nrank 0 {{\nc1: {calc}\nc2: {calc}\nc2 requires c1\n}}\n")
    assert_one_error_line(netsens("run", "--goal", goal), "rank 0", "c2: calc", "largest time")


def test_too_many_ranks_are_refused_before_allocating() -> None:
    # 4e9 ranks need at least 8 B of clock each (32e9 B, the allocation that used to
    # abort); the refusal names the estimate and what the machine has.
    proc = netsens("run", "--app", "radix", "--ranks", 4_000_000_000)
    line = assert_one_error_line(proc, "4000000000 ranks", "GB of memory", "available")
    needed = float(line.split("needs about ")[1].split(" GB")[0])
    assert needed >= 32.0, line


def test_an_allocation_that_fails_anyway_is_one_line_not_an_abort() -> None:
    # 10^7 ranks fit the machine's free memory by the estimate, but not a 3 GB
    # address-space limit: an allocation fails mid-run.
    run = "run --app radix --ranks 10000000 --size tiny"
    command = f"ulimit -v 3000000; exec {sys.executable} -m netsens {run}"
    proc = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert_one_error_line(proc, "out of memory", "B failed")


def netsens_limited(limit: str, run: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NETSENS_MEMORY_LIMIT": limit}
    command = [sys.executable, "-m", "netsens", *run.split()]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def test_memory_an_application_grows_into_is_refused_not_killed() -> None:
    # ft at 3 million ranks passes the up-front estimate (the engine's state) but its
    # data grows with the rank count: on a 24 GiB machine the kernel killed it (exit
    # 137) once it had touched the memory. Under a 1 GiB cap the
    # allocator refuses the allocation that would cross it: one line, exit 2.
    proc = netsens_limited("1GiB", "run --app ft --ranks 3000000 --size tiny")
    line = assert_one_error_line(proc, "out of memory", "MiB left to this run")
    left_mib = int(line.split("only ")[1].split(" MiB")[0])
    assert left_mib < 1024, line


def test_a_memory_limit_the_engine_cannot_read_is_an_error() -> None:
    proc = netsens_limited("2GB", "run --goal examples/goal/pingpong.goal")
    assert_one_error_line(proc, "NETSENS_MEMORY_LIMIT", '"2GB"', "GiB")
    # Well spelled but past 2^64 bytes (2^34 GiB = 2^64 B): no cap the allocator can
    # hold, so an error too, not a run without the cap.
    proc = netsens_limited("17179869184GiB", "run --goal examples/goal/pingpong.goal")
    assert_one_error_line(proc, "NETSENS_MEMORY_LIMIT", '"17179869184GiB"', "2^64")


def test_a_run_within_the_memory_limit_is_unchanged() -> None:
    # The ping-pong on loggopsim: 4o + 2L = 4 x 1.5 + 2 x 2.5 = 11 us.
    proc = netsens_limited("1GiB", "run --goal examples/goal/pingpong.goal --json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["makespan_ps"] == 11_000_000
