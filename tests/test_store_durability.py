"""What makes a stored point survive a crash of the machine, and what it costs: the
checksum's data, the point's data (each synced before its rename) and one sync of
``points/`` after both renames; a claim is made without a sync. A local sweep's points
are stored by a thread of its own process (netsens.study.storer), in the order handed
over, each counted only once it is on disk; after a failure nothing more is stored and
the sweep gets the error.
"""

import errno
import os
import shutil
from pathlib import Path

import pytest

import netsens
from netsens.study import claims, store, store_verify
from netsens.study.definition import Study
from netsens.study.storer import Storer
from netsens.study.sweep import Outcome

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def rows(tmp_path: Path) -> list[dict]:
    """Three stored rows of the ping-pong at L = 5, 6 and 7 us (and its baseline)."""
    shutil.copy(ROOT / "examples/goal/pingpong.goal", tmp_path / "pingpong.goal")
    path = tmp_path / "study.toml"
    path.write_text(
        'name = "d"\nworkloads = ["pingpong.goal"]\n[axes]\nL = ["5us", "6us", "7us"]\n'
    )
    points = Study.from_toml(path).points()
    return [
        store.point_row(p, "d", netsens.run_goal(p.goal_path, overrides=p.overrides), 0.1, "t")
        for p in points
    ]


def record_syncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every fsync (the file's name) and rename (its new name), in order."""
    calls: list[tuple[str, str]] = []
    fsync, replace = os.fsync, os.replace

    def traced_fsync(fd: int) -> None:
        calls.append(("fsync", Path(os.readlink(f"/proc/self/fd/{fd}")).name))
        fsync(fd)

    def traced_replace(src: os.PathLike[str], dst: os.PathLike[str]) -> None:
        calls.append(("rename", Path(dst).name))
        replace(src, dst)

    monkeypatch.setattr(os, "fsync", traced_fsync)
    monkeypatch.setattr(os, "replace", traced_replace)
    return calls


def test_a_point_is_on_disk_in_three_syncs_each_before_what_depends_on_it(
    tmp_path: Path, rows: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results"
    (results / store.POINTS).mkdir(parents=True)
    calls = record_syncs(monkeypatch)
    point_id = rows[0]["point_id"]
    store.write_point(results, rows[0])
    pid = os.getpid()
    assert calls == [
        ("fsync", f"{point_id}.sha256.tmp-{pid}"),  # whole before it has its name
        ("rename", f"{point_id}.sha256"),
        ("fsync", f"{point_id}.parquet.tmp-{pid}"),
        ("rename", f"{point_id}.parquet"),  # after its checksum's
        ("fsync", store.POINTS),  # both names on disk when write_point returns
    ]
    assert [f.height for f in store_verify.read_points(results, pytest.fail)] == [1]


def test_a_claim_is_made_without_a_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_syncs(monkeypatch)
    assert claims.try_claim(tmp_path, "p1")
    assert calls == []
    assert claims.holder_of(tmp_path, "p1") == claims.Holder.current()


def handed_over(results: Path, row: dict) -> Outcome:
    """A worker's outcome for ``row``: its file's bytes, its claim held by this process."""
    holder = claims.Holder.current()
    assert claims.try_claim(results, row["point_id"], holder)
    return Outcome(None, None, None, "full", store.encode_point(row), holder)


def test_the_storer_counts_each_point_once_it_is_on_disk_in_order(
    tmp_path: Path, rows: list[dict]
) -> None:
    results = tmp_path / "results"
    counted: list[str] = []

    def stored(point, outcome: Outcome) -> None:
        path = results / store.POINTS / f"{point.point_id}.parquet"
        # On disk, whole and checksummed, and its claim released, before it counts.
        assert store_verify.digest(path.read_bytes()) == outcome_digests[point.point_id]
        assert claims.holder_of(results, point.point_id) is None
        counted.append(point.point_id)

    storer = Storer(results, stored)
    outcome_digests = {}
    for row in rows:
        outcome = handed_over(results, row)
        outcome_digests[row["point_id"]] = store_verify.digest(outcome.data)
        storer.put(type("P", (), {"point_id": row["point_id"]})(), outcome)
    storer.close()
    assert counted == [row["point_id"] for row in rows]
    assert len(store_verify.read_points(results, pytest.fail)) == len(rows)
    assert not storer.thread.is_alive()


def test_after_a_failed_store_nothing_more_is_stored_and_the_sweep_gets_the_error(
    tmp_path: Path, rows: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results"
    failing = rows[1]["point_id"]
    store_point = store.store_point

    def full_disk(root: Path, point_id: str, data: bytes) -> Path:
        if point_id == failing:
            raise OSError(errno.ENOSPC, "No space left on device")
        return store_point(root, point_id, data)

    monkeypatch.setattr(store, "store_point", full_disk)
    counted: list[str] = []
    storer = Storer(results, lambda point, _: counted.append(point.point_id))
    with pytest.raises(OSError, match="No space left"):
        # A put after the failure raises it, or close at the latest.
        for row in rows:
            storer.put(type("P", (), {"point_id": row["point_id"]})(), handed_over(results, row))
        storer.close()
    assert counted == [rows[0]["point_id"]]
    assert sorted(p.stem for p in (results / store.POINTS).glob("*.parquet")) == [
        rows[0]["point_id"]
    ]
    # The failed point's claim is released all the same; the next one's stays until
    # its holder ends (here: this process), as a killed sweep's would.
    assert claims.holder_of(results, failing) is None
    with pytest.raises(OSError, match="No space left"):
        storer.put(type("P", (), {"point_id": "later"})(), handed_over(results, rows[0]))
