"""The communication profile (Martin's Table 3.2 / 4.1 columns), against numbers
derived by hand."""

import json
import subprocess
import sys

import pytest

from netsens.api import RunResult
from netsens.models.profile import characterize


def test_pingpong_profile_by_hand():
    # tiny pingpong: sizes 1, 2, 4, ..., 1024 B (11 sizes), 2 round trips each: every
    # rank sends 22 messages of 2 x (2^11 - 1) = 4094 B in all; all point-to-point.
    proc = subprocess.run(
        [sys.executable, "-m", "netsens", "profile", "--app", "pingpong", "--ranks", "2",
         "--size", "tiny", "--platform", "loggopsim", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    p = json.loads(proc.stdout)
    assert (p["messages_mean"], p["messages_max"]) == (22, 22)
    assert (p["bytes_mean"], p["bytes_max"]) == (4094, 4094)
    assert p["shares"] == {"reads": 0.0, "writes": 0.0, "bulk": 1.0, "collective": 0.0}
    assert p["mean_bytes"] == pytest.approx(4094 / 22)
    # 44 messages, 4 of each size: the 22nd smallest is one of the 32 B ones.
    assert (p["median_bytes_lo"], p["median_bytes_hi"]) == (32, 63)
    assert p["messages_per_ms"] == pytest.approx(22 / (p["makespan_ps"] / 1e9))
    assert sum(c["bytes"] for c in p["matrix"]) == 2 * 4094


def test_shares_of_reads_writes_bulk_and_collectives():
    # 2 gets, 3 stores + 1 put + 1 active message, 4 sends, 2 collective sends: 13.
    prims = [
        {"rank": 0, "primitive": "get", "count": 2},
        {"rank": 0, "primitive": "store", "count": 3},
        {"rank": 1, "primitive": "put", "count": 1},
        {"rank": 1, "primitive": "am", "count": 1},
        {"rank": 1, "primitive": "send", "count": 4},
        {"rank": 0, "primitive": "coll_send", "count": 1},
        {"rank": 1, "primitive": "coll_send", "count": 1},
        {"rank": 1, "primitive": "recv", "count": 9},
    ]
    rank = {"compute_ps": 0, "overhead_ps": 0, "noise_ps": 0, "wait_ps": 0}
    data = {
        "makespan_ps": 2_000_000_000,  # 2 ms
        "messages": 10,
        "bytes": 1000,
        "events": 1,
        "seed": 0,
        "platform": {},
        "platform_name": "test",
        "workload": {"kind": "app", "app": "x"},
        "ranks": [
            {
                "rank": 0,
                "end_ps": 1,
                "sent_messages": 4,
                "sent_bytes": 100,
                "recv_messages": 0,
                "recv_bytes": 0,
                **rank,
            },
            {
                "rank": 1,
                "end_ps": 1,
                "sent_messages": 6,
                "sent_bytes": 900,
                "recv_messages": 0,
                "recv_bytes": 0,
                **rank,
            },
        ],  # fmt: skip
        "histogram": [
            {"lo_bytes": 8, "hi_bytes": 15, "messages": 5, "bytes": 50},
            {"lo_bytes": 64, "hi_bytes": 127, "messages": 5, "bytes": 950},
        ],
        "primitives": prims,
    }
    p = characterize(RunResult(data))
    assert p.shares == pytest.approx(
        {"reads": 2 / 13, "writes": 5 / 13, "bulk": 4 / 13, "collective": 2 / 13}
    )
    assert (p.messages_mean, p.messages_max, p.bytes_max) == (5.0, 6, 900)
    assert p.messages_per_ms == pytest.approx(5.0 / 2)
    # 10 messages: the 5th smallest is the last of the 8-15 B bin.
    assert (p.median_bytes_lo, p.median_bytes_hi) == (8, 15)
    assert p.mean_bytes == 100.0


def test_profile_needs_an_app():
    proc = subprocess.run(
        [sys.executable, "-m", "netsens", "profile", "--ranks", "2"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--app" in proc.stderr
