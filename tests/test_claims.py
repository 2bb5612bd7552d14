"""Claims on points (netsens.study.claims): one holder at a time, stale claims (expired, or
their holder gone) taken over, and two sweeps of one study started together computing
each point exactly once between them."""

import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from netsens.study import claims, store

ROOT = Path(__file__).resolve().parent.parent


def other_host(pid: int = 1) -> claims.Holder:
    return claims.Holder("a-host-sharing-the-filesystem", pid, 12.5)


def test_one_holder_at_a_time_until_it_releases(tmp_path: Path) -> None:
    me, them = claims.Holder.current(), other_host()
    assert claims.try_claim(tmp_path, "p1", them, ttl=60)
    assert not claims.try_claim(tmp_path, "p1", me)
    assert claims.holder_of(tmp_path, "p1") == them
    claims.release(tmp_path, "p1", me)  # not mine: nothing happens
    assert claims.holder_of(tmp_path, "p1") == them
    claims.release(tmp_path, "p1", them)
    assert claims.holder_of(tmp_path, "p1") is None
    assert claims.try_claim(tmp_path, "p1", me)


def test_an_expired_claim_of_another_host_is_taken_over(tmp_path: Path) -> None:
    assert claims.try_claim(tmp_path, "p1", other_host(), ttl=-1.0)  # expired at once
    assert claims.holder_of(tmp_path, "p1") is None
    assert claims.try_claim(tmp_path, "p1", claims.Holder.current())
    assert not list((tmp_path / claims.CLAIMS).glob("*.stale-*"))


def test_a_claim_of_a_dead_process_on_this_host_is_taken_over(tmp_path: Path) -> None:
    finished = subprocess.Popen(["true"])
    finished.wait()  # its pid names no live process now
    dead = claims.Holder(socket.gethostname(), finished.pid, 1.0)
    assert claims.try_claim(tmp_path, "p1", dead, ttl=3600)
    assert claims.try_claim(tmp_path, "p1", claims.Holder.current())


# A process that claims a point and is killed at the step given (a stopped sweep
# terminates its workers wherever they are): right after the claim's name is opened
# (where a claim created in place was still empty), or right before it is linked.
KILLED_WHILE_CLAIMING = """
import os, sys
from netsens.study import claims
step = sys.argv[2]
real_open, real_link = os.open, os.link
def open_then_die(path, *args, **kwargs):
    fd = real_open(path, *args, **kwargs)
    if step == "open" and str(path).endswith(claims.SUFFIX):
        os._exit(9)
    return fd
def die_before_link(*args, **kwargs):
    if step == "link":
        os._exit(9)
    return real_link(*args, **kwargs)
os.open, os.link = open_then_die, die_before_link
claims.try_claim(sys.argv[1], "p1")
"""


def test_a_process_killed_while_claiming_leaves_no_claim_that_blocks(tmp_path: Path) -> None:
    for step in ("open", "link"):
        results = tmp_path / step
        killed = subprocess.run([sys.executable, "-c", KILLED_WHILE_CLAIMING, str(results), step])
        # The next sweep claims the point at once, not a ttl (120 s) later.
        assert claims.holder_of(results, "p1") is None, step
        assert claims.try_claim(results, "p1", claims.Holder.current()), step
        # A claim is linked into place, never opened by its name: only "link" kills.
        assert killed.returncode == (9 if step == "link" else 0), step


def test_a_heartbeat_keeps_a_short_claim_alive(tmp_path: Path) -> None:
    me = claims.Holder.current()
    assert claims.try_claim(tmp_path, "p1", me, ttl=0.3)
    with claims.Heartbeat(tmp_path, "p1", me, ttl=0.3):
        time.sleep(0.8)  # past the first expiry: renewed every 0.1 s
        assert not claims.try_claim(tmp_path, "p1", other_host())
    time.sleep(0.4)  # no heartbeat: expired, though the holder (this process) lives
    data = (tmp_path / claims.CLAIMS / "p1.claim").read_text()
    assert claims.try_claim(tmp_path, "p1", other_host()), data


def test_two_sweeps_started_together_compute_each_point_once(tmp_path: Path) -> None:
    # radix (small, 4 ranks): baseline + 6 L + 6 o = 13 points of a few tenths of a s.
    shutil.copy(ROOT / "examples/goal/pingpong.goal", tmp_path / "pingpong.goal")
    path = tmp_path / "study.toml"
    path.write_text(
        'name = "slow"\nworkloads = ["radix"]\nranks = [4]\nsize = "small"\n'
        '[axes]\nL = { from = "3us", to = "8us", points = 6 }\n'
        'o = { from = "2us", to = "7us", points = 6 }\n'
    )
    command = [sys.executable, "-m", "netsens", "sweep", str(path), "--jobs", "1"]
    procs = [
        subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    ran = [int(re.search(r"sweep: (\d+) points run", out).group(1)) for out, _ in outputs]
    assert sum(ran) == 13, outputs  # none computed twice, none left out
    points = tmp_path / "results" / "slow" / store.POINTS
    assert len(list(points.glob("*.parquet"))) == 13
    assert not list((tmp_path / "results" / "slow" / claims.CLAIMS).glob("*.claim"))
