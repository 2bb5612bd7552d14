"""The wide-area gateways' cost per message (`[wan] gateway`, `--wan-gateway`) from the
command line: the preset's value in the resolved platform, a run that pays it, and a
negative or unit-less cost refused with one line naming the file and the field, exit 2."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def ping(*flags: object) -> subprocess.CompletedProcess[str]:
    # pingpong between rank 0 (cluster 0) and rank 1 (cluster 1).
    return netsens(
        "run", "--app", "pingpong", "--ranks", 2, "--size", "tiny", "--platform", "das1998",
        "--clusters", "1,1", "--json", *flags,
    )  # fmt: skip


def test_das1998_pays_32us_at_each_gateway():
    base, free = ping(), ping("--wan-gateway", "0us")
    assert base.returncode == 0 and free.returncode == 0, base.stderr + free.stderr
    a, b = json.loads(base.stdout), json.loads(free.stdout)
    assert a["platform"]["wan"]["gateway"] == 32_000_000
    assert b["platform"]["wan"]["gateway"] == 0
    # Every one-way trip passes two gateways, one after another, nothing queued: the
    # run is longer by 64 us per trip; the trips are the wide-area messages it sent.
    trips = sum(link["messages"] for link in a["wan_links"])
    assert trips > 0
    assert a["makespan_ps"] - b["makespan_ps"] == trips * 64_000_000


def test_a_negative_gateway_cost_is_one_line_and_exit_2():
    proc = ping("--wan-gateway", "-5us")
    assert proc.returncode == 2
    assert (
        proc.stderr == 'netsens: error: wan_gateway: "-5us" is negative; write a time such as 5us\n'
    )


def test_a_gateway_cost_without_unit_in_a_file_names_the_file_and_field(tmp_path):
    spec = tmp_path / "far.toml"
    spec.write_text('base = "das1998"\n[wan]\ngateway = 30\n')
    proc = netsens("run", "--app", "pingpong", "--ranks", 2, "--size", "tiny", "--platform", spec)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f'{spec}: wan.gateway: "30" has no unit; write a time such as 5us' in proc.stderr
