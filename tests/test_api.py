"""The Python API: netsens.run returns a RunResult whose attributes and polars frames
agree with the JSON of the CLI and with numbers derived by hand (see test_apps_cli.py
for the round-trip formula: 2 * (2o + L + (s-1) G) on the loggopsim preset)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import netsens
from netsens import _core
from netsens.api import (
    HISTOGRAM_SCHEMA,
    MATRIX_SCHEMA,
    PHASE_SCHEMA,
    PRIMITIVE_SCHEMA,
    RANK_SCHEMA,
    WAN_LINK_SCHEMA,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
NS = 1000
US = 1000 * NS
TINY_PINGPONG_NS = 290_864  # 2 round trips of each size 1 B .. 1 KiB


@pytest.fixture(scope="module")
def stencil() -> netsens.RunResult:
    return netsens.run("stencil", ranks=8, size="tiny")


@pytest.fixture(scope="module")
def pingpong() -> netsens.RunResult:
    return netsens.run("pingpong", ranks=2, size="tiny")


def test_attributes(pingpong):
    assert isinstance(pingpong, netsens.RunResult)
    assert pingpong.makespan_ps == TINY_PINGPONG_NS * NS
    assert (pingpong.app, pingpong.size, pingpong.verified) == ("pingpong", "tiny", True)
    assert (pingpong.messages, pingpong.bytes) == (44, 4 * (2**11 - 1))
    assert pingpong.num_ranks == 2
    assert pingpong.platform_name == "loggopsim"
    assert pingpong.platform["cluster"]["latency"] == 2500 * NS
    assert pingpong.workload == {"kind": "app", "app": "pingpong", "size": "tiny", "ranks": 2}
    assert pingpong.seed == 0
    assert pingpong.events > 0
    assert "pingpong (tiny), 2 ranks on loggopsim" in repr(pingpong)


def test_frames_have_their_columns(stencil):
    for frame, schema in [
        (stencil.ranks, RANK_SCHEMA),
        (stencil.matrix, MATRIX_SCHEMA),
        (stencil.histogram, HISTOGRAM_SCHEMA),
        (stencil.phases, PHASE_SCHEMA),
        (stencil.primitives, PRIMITIVE_SCHEMA),
        (stencil.wan_links, WAN_LINK_SCHEMA),
    ]:
        assert isinstance(frame, pl.DataFrame)
        assert frame.schema == pl.Schema(schema)
    assert stencil.ranks.height == 8
    assert stencil.wan_links.is_empty()  # one cluster


def test_frames_agree_with_the_totals(stencil):
    assert stencil.ranks["end_ps"].max() == stencil.makespan_ps
    assert stencil.matrix["bytes"].sum() == stencil.bytes
    assert stencil.matrix["messages"].sum() == stencil.messages
    assert stencil.histogram["messages"].sum() == stencil.messages
    assert stencil.ranks["sent_bytes"].sum() == stencil.ranks["recv_bytes"].sum() == stencil.bytes
    sends = stencil.primitives.filter(pl.col("primitive") == "send")["count"].sum()
    assert sends == stencil.messages
    # end = compute + overhead + noise + wait, per rank.
    parts = pl.col("compute_ps") + pl.col("overhead_ps") + pl.col("noise_ps") + pl.col("wait_ps")
    assert (stencil.ranks["end_ps"] == stencil.ranks.select(parts).to_series()).all()


def test_stencil_traffic_by_hand(stencil):
    # 8 ranks: a 4 x 2 process grid of 8 x 16 blocks, 4 iterations; each neighbour pair
    # (6 vertical, 4 horizontal) exchanges one message each way per iteration.
    assert stencil.messages == 4 * 2 * (6 + 4)
    assert stencil.matrix.height == 20
    assert (stencil.matrix["messages"] == 4).all()
    # Each rank's compute phase charges 4 iterations x 128 points x 5 flops x 1 ns.
    compute = stencil.phases.filter(pl.col("phase") == "compute")
    assert (compute["compute_ps"] == 4 * 128 * 5 * NS).all()


def test_phase_time_by_hand(pingpong):
    # Rank 0's 1 B phase: 2 round trips of 2 * (2o + L) = 11 us.
    one_byte = pingpong.phases.filter((pl.col("rank") == 0) & (pl.col("phase") == "1B"))
    assert one_byte["elapsed_ps"].to_list() == [2 * 11 * US]


def test_to_dict_is_the_cli_json(pingpong):
    args = ["run", "--app", "pingpong", "--ranks", "2", "--size", "tiny", "--json"]
    proc = subprocess.run(
        [sys.executable, "-m", "netsens", *args], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    assert pingpong.to_dict() == json.loads(proc.stdout)
    pingpong.to_dict()["ranks"].clear()  # a copy: the result is unchanged
    assert pingpong.ranks.height == 2


def test_overrides_and_seed():
    # Raising o by 500 ns adds 4 o to each of the 22 round trips.
    slower = netsens.run("pingpong", ranks=2, size="tiny", overrides={"o": "2us"}, seed=4)
    assert slower.makespan_ps == (TINY_PINGPONG_NS + 22 * 4 * 500) * NS
    assert slower.seed == 4


def test_goal_file_workload():
    result = netsens.run(DATA / "dissemination16.goal")
    assert result.makespan_ps == 22 * US  # 4 rounds of o + L + o
    assert (result.app, result.size, result.verified) == (None, None, None)
    assert result.workload["kind"] == "goal"
    assert result.num_ranks == 16
    # No rank program: phases and primitives are empty frames with their columns.
    assert result.phases.is_empty() and result.phases.columns == list(PHASE_SCHEMA)
    assert result.primitives.is_empty()
    # ranks may be given when it matches the file.
    assert netsens.run(str(DATA / "ping1.goal"), ranks=2).makespan_ps == 5500 * NS


def test_without_matrix():
    result = netsens.run("stencil", ranks=4, size="tiny", matrix=False)
    assert result.matrix.is_empty() and result.matrix.columns == list(MATRIX_SCHEMA)
    assert result.to_dict()["matrix"] is None


def test_apps():
    apps = netsens.apps()
    assert [a[0] for a in apps] == ["pingpong", "stencil", "radix", "radb"]
    assert all(a[2] == ["tiny", "small", "paper"] for a in apps)


ERRORS = {
    "unknown app": (
        dict(workload="stencl", ranks=2),
        netsens.InputError,
        'unknown application "stencl"; applications: pingpong, stencil, radix, radb',
    ),
    "no ranks": (
        dict(workload="stencil"),
        netsens.InputError,
        'ranks: required for application "stencil"',
    ),
    "zero ranks": (
        dict(workload="stencil", ranks=0),
        netsens.InputError,
        "ranks: must be at least 1, got 0",
    ),
    "one rank for pingpong": (
        dict(workload="pingpong", ranks=1),
        netsens.InputError,
        "pingpong needs at least 2 ranks",
    ),
    "unknown size": (
        dict(workload="pingpong", ranks=2, size="huge"),
        netsens.InputError,
        'unknown size "huge" for pingpong',
    ),
    "ranks differ from the GOAL file": (
        dict(workload=DATA / "ping1.goal", ranks=4),
        netsens.InputError,
        "has 2 ranks, not 4",
    ),
    "missing GOAL file": (
        dict(workload="nosuch.goal"),
        netsens.InputError,
        'cannot read GOAL file "nosuch.goal": no such file',
    ),
    "bad value": (
        dict(workload="stencil", ranks=4, overrides={"L": "5"}),
        netsens.InputError,
        'L: "5" has no unit',
    ),
    "bad seed": (dict(workload="stencil", ranks=4, seed=-1), netsens.InputError, "seed:"),
    "deadlock": (
        dict(workload="_deadlock", ranks=2),
        netsens.DeadlockError,
        "rank 0 waits in `recv from 1 tag 0`",
    ),
    "wrong answer": (
        dict(workload="_wrong-answer", ranks=2),
        netsens.ProgramError,
        "the program failed: rank 1: checksum 41 != 42",
    ),
}


@pytest.mark.parametrize(("kwargs", "error", "says"), ERRORS.values(), ids=ERRORS.keys())
def test_errors_are_netsens_exceptions(kwargs, error, says):
    with pytest.raises(error) as info:
        netsens.run(**kwargs)
    assert isinstance(info.value, netsens.NetsensError)
    message = str(info.value)
    assert says in message
    assert "\n" not in message


def test_stub_lists_every_native_name():
    stub = ast.parse((ROOT / "python" / "netsens" / "_core.pyi").read_text())
    declared = {node.name for node in stub.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
    exported = {name for name in dir(_core) if not name.startswith("_")}
    assert declared == exported
