"""Temporaries a killed writer leaves in a results directory: a resumed sweep deletes them,
also when the writer is a zombie nobody reaped (a container whose first process reaps
no orphans: the killed sweep's workers stay zombies, and a signal to them still
succeeds) or when its process number now belongs to another process; a temporary whose
writer still holds its lock stays."""

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

from netsens.study import store


def _points(tmp_path: Path) -> Path:
    points = tmp_path / store.POINTS
    points.mkdir()
    return points


def test_a_zombie_writers_temporary_is_deleted(tmp_path: Path) -> None:
    points = _points(tmp_path)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    while not Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
        time.sleep(0.01)  # exited, not yet reaped: a zombie
    tmp = points / f"abc.parquet.sha256.tmp-{child.pid}"
    tmp.write_text("half")
    try:
        store.remove_stale_temporaries(tmp_path)
        assert not tmp.exists()
    finally:
        child.wait()


def test_a_running_writers_locked_temporary_stays(tmp_path: Path) -> None:
    points = _points(tmp_path)
    tmp = points / f"abc.parquet.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        old = time.time() - 60
        os.utime(tmp, (old, old))
        store.remove_stale_temporaries(tmp_path)
        assert tmp.exists()


def test_an_old_unlocked_temporary_of_a_reused_process_number_is_deleted(tmp_path: Path) -> None:
    # This process is alive, but holds no lock on the file: its writer is long gone.
    points = _points(tmp_path)
    tmp = points / f"abc.parquet.tmp-{os.getpid()}"
    tmp.write_text("half")
    young = points / f"def.parquet.tmp-{os.getpid()}"
    young.write_text("half")
    old = time.time() - 60
    os.utime(tmp, (old, old))
    store.remove_stale_temporaries(tmp_path)
    assert not tmp.exists()
    assert young.exists()  # it may be a writer that has not yet taken its lock


def test_a_point_written_atomically_leaves_no_temporary(tmp_path: Path) -> None:
    path = _points(tmp_path) / "x.parquet"
    store.write_atomic(path, lambda f: f.write(b"whole"))
    assert path.read_bytes() == b"whole"
    assert [p.name for p in path.parent.iterdir()] == ["x.parquet"]
