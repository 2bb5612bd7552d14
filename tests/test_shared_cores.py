"""Ranks sharing cores from the command line (--ranks-per-node all --cores-per-node C
and the platform file's [shape]) against end times derived by hand, bad values as one
line with exit code 2, and calibrate --live --save recording the machine's cores."""

import json
import os
import subprocess
import tomllib

import pytest
from cli_run import netsens, one_error_line

# Four ranks, each computes 10 us (GOAL times are ns), then rank 0 sends 1 byte to 3.
GOAL = """num_ranks 4
rank 0 {
c: calc 10000
s: send 1b to 3 tag 0
s requires c
}
rank 1 {
c: calc 10000
}
rank 2 {
c: calc 10000
}
rank 3 {
c: calc 10000
r: recv 1b from 0 tag 0
r requires c
}
"""
# loggopsim: L = 2.5 us, o = 1.5 us; 1 byte, so G adds nothing.
SHARED = ("--ranks-per-node", "all", "--cores-per-node")


def ends_us(tmp_path, *flags) -> list[float]:
    goal = tmp_path / "four.goal"
    goal.write_text(GOAL)
    proc = netsens("run", "--goal", goal, "--platform", "loggopsim", "--json", *flags)
    assert proc.returncode == 0, proc.stderr
    return [r["end_ps"] / 1e6 for r in json.loads(proc.stdout)["ranks"]]


def test_ranks_on_one_core_compute_in_turn(tmp_path):
    # A core each: rank 0 sends at 10 us (o until 11.5), arrival 14, rank 3's o until 15.5.
    assert ends_us(tmp_path) == [11.5, 10, 10, 15.5]
    # 4 ranks on 2 cores: 0 and 2 on core 0, 1 and 3 on core 1. Ranks 2 and 3 compute
    # 10..20 us (they came at 0, before rank 0's send at 10 us); rank 0's o waits for
    # core 0: 20..21.5, arrival 24; rank 3 posted its receive at 20: o 24..25.5.
    assert ends_us(tmp_path, *SHARED, 2) == [21.5, 10, 20, 25.5]
    # As many cores as ranks: as a core each.
    assert ends_us(tmp_path, *SHARED, 4) == [11.5, 10, 10, 15.5]


def test_a_platform_file_gives_the_cores(tmp_path):
    machine = tmp_path / "machine.toml"
    machine.write_text('base = "loggopsim"\n[shape]\nranks_per_node = "all"\ncores_per_node = 2\n')
    goal = tmp_path / "four.goal"
    goal.write_text(GOAL)
    proc = netsens("run", "--goal", goal, "--platform", machine, "--json")
    assert [r["end_ps"] / 1e6 for r in json.loads(proc.stdout)["ranks"]] == [21.5, 10, 20, 25.5]
    shown = netsens("platform", "show", machine).stdout
    assert 'ranks_per_node = "all"' in shown and "cores_per_node = 2" in shown


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--cores-per-node", 0), "cores_per_node: must be at least 1, got 0"),
        (("--cores-per-node", -2), 'cores_per_node: "-2" is not a whole number'),
        (("--cores-per-node", "two"), 'cores_per_node: "two" is not a whole number'),
        (("--ranks-per-node", "some"), 'ranks_per_node: "some" is not a whole number'),
        (
            ("--ranks-per-node", "all", "--clusters", "2x2", "--wan-latency", "1ms",
             "--wan-bandwidth", "1MB/s"),
            "cannot span 2 clusters",
        ),
    ],
)  # fmt: skip
def test_bad_core_counts_are_one_line(tmp_path, flags, message):
    goal = tmp_path / "four.goal"
    goal.write_text(GOAL)
    line = one_error_line(netsens("run", "--goal", goal, *flags))
    assert message in line


def physical_cores() -> int:
    """This process's physical cores by lscpu (CORE,SOCKET of each allowed CPU)."""
    out = subprocess.run(
        ["lscpu", "-p=CPU,CORE,SOCKET"], capture_output=True, text=True, check=True
    ).stdout
    allowed = os.sched_getaffinity(0)
    rows = [line.split(",") for line in out.splitlines() if not line.startswith("#")]
    return len({(core, socket) for cpu, core, socket in rows if int(cpu) in allowed})


def test_calibrate_live_save_records_the_machines_cores(tmp_path):
    path = tmp_path / "machine.toml"
    proc = netsens("calibrate", "--live", "--reps", 10, "--save", path)
    assert proc.returncode == 0, proc.stderr
    shape = tomllib.loads(path.read_text())["shape"]
    assert shape == {"ranks_per_node": "all", "cores_per_node": physical_cores()}
