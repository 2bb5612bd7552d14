"""Checking what the results store reads back.

Each point file ``points/<id>.parquet`` has a checksum beside it,
``points/<id>.sha256`` (the file's SHA-256, written before the point file itself, so a
point file never appears without its checksum). A point file is good when its bytes
match its checksum, it reads as Parquet, and it holds one row of this point with every
stored column. Any other file there -- truncated, overwritten, copied from elsewhere,
an older format -- is *damaged*: it is reported by path (one line each, then a count),
left out of what is read, and moved aside to ``damaged/`` (never deleted), so the next
sweep computes the point again. Point files of an older netsens without a checksum
are accepted when they read correctly.
"""

import hashlib
import io
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

from netsens.study import store

CHECKSUM_SUFFIX = ".sha256"
DAMAGED = "damaged"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checksum_path(point_file: Path) -> Path:
    return point_file.with_suffix(CHECKSUM_SUFFIX)


def write_checksum(point_file: Path, data: bytes, *, sync_directory: bool = True) -> None:
    """Record ``data``'s checksum for ``point_file`` (before the file itself is written;
    ``sync_directory``: see ``store.write_atomic``)."""
    text = digest(data) + "\n"
    store.write_atomic(
        checksum_path(point_file), lambda f: f.write(text.encode()), sync_directory=sync_directory
    )


def stored_checksums(results_dir: str | os.PathLike[str]) -> dict[str, str]:
    """``{point_id: checksum}`` of the stored points that have one (for the manifest)."""
    points = Path(results_dir) / store.POINTS
    found = {}
    for path in points.glob(f"*{CHECKSUM_SUFFIX}"):
        point_file = path.with_suffix(".parquet")
        if point_file.exists():
            found[point_file.stem] = path.read_text(encoding="ascii", errors="replace").strip()
    return found


def _problem(path: Path, data: bytes) -> tuple[str | None, pl.DataFrame | None]:
    """Why ``path`` (holding ``data``) is not a good point file, or its frame."""
    sidecar = checksum_path(path)
    if sidecar.exists():
        expected = sidecar.read_text(encoding="ascii", errors="replace").strip()
        if expected != digest(data):
            return "its checksum does not match (damaged or overwritten)", None
    try:
        frame = pl.read_parquet(io.BytesIO(data))
    except Exception:  # polars raises several kinds for files that are not Parquet
        return "not a readable Parquet file (truncated or foreign)", None
    missing = [c for c in store.SCHEMA if c not in frame.columns and c not in store.OPTIONAL]
    if missing:
        return f"not a netsens point (no column {missing[0]})", None
    if frame.height != 1 or frame["point_id"][0] != path.stem:
        return "not the point its name says (foreign file)", None
    absent = [pl.lit(None).alias(c) for c in store.OPTIONAL if c not in frame.columns]
    try:
        return None, frame.with_columns(absent).select(list(store.SCHEMA)).cast(store.SCHEMA)
    except Exception:  # a column of the wrong type
        return "not a netsens point (a column of the wrong type)", None


def _move_aside(root: Path, path: Path) -> Path:
    """Move ``path`` (and its checksum) into ``damaged/`` under a name never used."""
    target_dir = root / DAMAGED
    target_dir.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = target_dir / f"{path.name}.{stamp}-{os.getpid()}"
    os.replace(path, target)
    sidecar = checksum_path(path)
    if sidecar.exists():
        os.replace(sidecar, target.with_name(target.name + CHECKSUM_SUFFIX))
    return target


def warn_stderr(line: str) -> None:
    print(f"netsens: warning: {line}", file=sys.stderr, flush=True)


def read_points(
    results_dir: str | os.PathLike[str], warn: Callable[[str], None] = warn_stderr
) -> list[pl.DataFrame]:
    """The frames of every good point file of ``results_dir``; each damaged one is
    reported through ``warn`` (one line, then a count line) and moved aside."""
    root = Path(results_dir)
    frames, damaged = [], 0
    for path in sorted((root / store.POINTS).glob("*.parquet")):
        try:
            data = path.read_bytes()
        except FileNotFoundError:  # moved aside or replaced by a concurrent reader
            continue
        why, frame = _problem(path, data)
        if frame is not None:
            frames.append(frame)
            continue
        damaged += 1
        try:
            moved = f"moved to {_move_aside(root, path)}"
        except OSError as e:
            moved = f"could not be moved aside ({e.strerror})"
        warn(f"{path}: {why}; left out, {moved}")
    if damaged:
        warn(
            f"{damaged} damaged point file(s) in {root / store.POINTS} left out; the next "
            "`netsens sweep` computes them again"
        )
    return frames


def verified_ids(
    results_dir: str | os.PathLike[str], warn: Callable[[str], None] = warn_stderr
) -> set[str]:
    """The ids of the good points of ``results_dir`` (damaged files moved aside)."""
    return {frame["point_id"][0] for frame in read_points(results_dir, warn)}
