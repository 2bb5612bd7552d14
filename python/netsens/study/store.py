"""The results store: one Parquet file per finished point, and the study's manifest.

A results directory holds::

    study.json                  the resolved study and which curves (axes) each point
                                belongs to; rewritten when a sweep starts
    points/<point_id>.parquet   one row per finished point (``SCHEMA``)
    failures/<point_id>.json    a point whose run failed, with the error; removed when
                                a later sweep runs it successfully

Every file is written atomically (a temporary name in the same directory, fsync,
rename), so a reader or a killed sweep never sees half a file. :func:`load` reads the
points back as one polars DataFrame, one row per (point, axis), with each row's swept
value and its slowdown against the baseline point.

What a stored point survives: :func:`store_point` returns only once the point is on
disk, and a sweep counts a point (and releases its claim) only after that, so a point
a sweep has counted survives a crash of the machine, not only of the sweep. It costs
three fsyncs: the checksum's data, the point's data (each before its rename, so that
whatever name survives a crash names whole bytes) and one of ``points/`` after both
renames, which puts both names on disk together. Within a crash's window, before that
last fsync, the point may be kept or lost; kept without its checksum (a filesystem
that put the second rename on disk before the first), it is whole, and read as the
point of an older netsens without a checksum (``store_verify``). A local sweep's
workers hand their points to the sweep's own process, which stores them while the
workers compute the next (``netsens.study.sweep``).
"""

import fcntl
import io
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import polars as pl

from netsens.errors import InputError
from netsens.jobs import format_hosts
from netsens.parameters import PARAMETERS, columns

MANIFEST = "study.json"
POINTS = "points"
FAILURES = "failures"
MANIFEST_FORMAT = "netsens-study/1"

_I, _F, _S = pl.Int64, pl.Float64, pl.String
PRIMITIVE = pl.Struct({"primitive": _S, "total": _I, "max": _I})
MATRIX = pl.Struct({"src": _I, "dst": _I, "messages": _I, "bytes": _I})
HISTOGRAM = pl.Struct({"lo_bytes": _I, "hi_bytes": _I, "messages": _I, "bytes": _I})
WAN_LINK = pl.Struct(
    {"from_cluster": _I, "to_cluster": _I, "messages": _I, "bytes": _I, "busy_ps": _I}
)
LINK_CLASS = pl.Struct(
    {
        "class": _S,
        "links": _I,
        "links_used": _I,
        "flows": _I,
        "bytes": _I,
        "busy_ps": _I,
        "max_utilization": _F,
        "peak_flows": _I,
    }
)
# Each job of a run with jobs beside the workload (job 1 is the workload itself).
JOB = pl.Struct(
    {
        "job": _I,
        "workload": _S,
        "ranks": _I,
        "hosts": _S,
        "makespan_ps": _I,
        "alone_makespan_ps": _I,
    }
)
SCHEMA: dict[str, Any] = {
    "point_id": _S,
    "study": _S,
    "workload": _S,
    "workload_kind": _S,
    "size": _S,
    "ranks": _I,
    "platform": _S,
    "seed": _I,
    "overrides": _S,
    "axis": _S,
    **{p.column: _S if p.text else _F for p in PARAMETERS.values()},
    "makespan_ps": _I,
    "verified": pl.Boolean,
    "messages": _I,
    "bytes": _I,
    "events": _I,
    "wall_s": _F,
    "messages_max": _I,
    "messages_mean": _F,
    "recv_messages_max": _I,
    "bytes_max": _I,
    "bytes_mean": _F,
    "primitives": pl.List(PRIMITIVE),
    "matrix": pl.List(MATRIX),
    "histogram": pl.List(HISTOGRAM),
    "netsens_version": _S,
    # Each wide-area link's traffic and busy time (empty without a wide area).
    "wan_links": pl.List(WAN_LINK),
    # A topology's links per class (empty without a [topology]; docs/guides/topology.md).
    "link_classes": pl.List(LINK_CLASS),
    # With jobs beside it (`beside`): the workload's makespan alone on its hosts, and
    # every job's; null and empty otherwise.
    "alone_makespan_ps": _I,
    "jobs": pl.List(JOB),
    # How the point was produced: "recorded", "replay" or "full" (netsens.study.produce).
    "produced": _S,
}
# Columns a point stored before they existed lacks: read back as null, not damage.
OPTIONAL = {
    "wan_links",
    "link_classes",
    "taper",
    "global_bandwidth_Bps",
    "placement",
    "alone_makespan_ps",
    "jobs",
    "produced",
}
# Columns load() adds.
DERIVED: dict[str, Any] = {
    "value": _F,
    "value_unit": _S,
    "is_baseline": pl.Boolean,
    "baseline_makespan_ps": _I,
    "slowdown": _F,
}
# A point's slowdown is against the baseline point with the same values of these.
MATCH = ["workload", "size", "ranks", "seed"]


def point_row(
    point: Any, study: str, result: dict[str, Any], wall_s: float, version: str
) -> dict[str, Any]:
    """The stored row of ``point`` (a :class:`netsens.study.definition.Point`) from its
    run result."""
    ranks = result["ranks"]
    sent = [r["sent_messages"] for r in ranks]
    sent_bytes = [r["sent_bytes"] for r in ranks]
    primitives: dict[str, list[int]] = {}
    for p in result.get("primitives") or []:
        primitives.setdefault(p["primitive"], []).append(p["count"])
    return {
        "point_id": point.point_id,
        "study": study,
        "workload": point.workload,
        "workload_kind": point.kind,
        "size": point.size,
        "ranks": len(ranks),
        "platform": point.platform,
        "seed": point.seed,
        "overrides": json.dumps(point.overrides, sort_keys=True),
        "axis": point.axis,
        **columns(result["platform"]),
        "makespan_ps": result["makespan_ps"],
        "verified": result.get("verified"),
        "messages": result["messages"],
        "bytes": result["bytes"],
        "events": result["events"],
        "wall_s": wall_s,
        "messages_max": max(sent, default=0),
        "messages_mean": sum(sent) / len(sent) if sent else 0.0,
        "recv_messages_max": max((r["recv_messages"] for r in ranks), default=0),
        "bytes_max": max(sent_bytes, default=0),
        "bytes_mean": sum(sent_bytes) / len(sent_bytes) if sent_bytes else 0.0,
        "primitives": [
            {"primitive": name, "total": sum(counts), "max": max(counts)}
            for name, counts in sorted(primitives.items())
        ],
        "matrix": result.get("matrix") or [],
        "histogram": result.get("histogram") or [],
        "netsens_version": version,
        "wan_links": result.get("wan_links") or [],
        "link_classes": (result.get("links") or {}).get("classes") or [],
        "alone_makespan_ps": result.get("alone_makespan_ps"),
        "jobs": [
            {
                "job": j["job"],
                "workload": j["workload"]["file"],
                "ranks": j["ranks"],
                "hosts": format_hosts(j["hosts"]),
                "makespan_ps": j["makespan_ps"],
                "alone_makespan_ps": j.get("alone_makespan_ps"),
            }
            for j in result.get("jobs") or []
        ],
        "produced": result.get("produced", "full"),
    }


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(
    path: Path, write: Callable[[IO[bytes]], None], *, sync_directory: bool = True
) -> None:
    """Write ``path`` through ``write(file)`` so that it appears whole or not at all:
    a temporary ``<name>.tmp-<pid>`` beside it, fsync, rename, then (``sync_directory``)
    fsync the directory, which puts the new name on disk; a caller that renames several
    files into one directory syncs it once after the last. The writer holds a lock on
    the temporary while it lives (see remove_stale_temporaries)."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if sync_directory:
        _fsync_dir(path.parent)


def encode_point(row: dict[str, Any]) -> bytes:
    """The bytes of a point file holding ``row`` (one row of ``SCHEMA``)."""
    buffer = io.BytesIO()
    pl.DataFrame([row], schema=SCHEMA).write_parquet(buffer)
    return buffer.getvalue()


def store_point(results_dir: str | os.PathLike[str], point_id: str, data: bytes) -> Path:
    """Store a point file's ``data`` (``encode_point``) as ``points/<point_id>.parquet``
    with its checksum beside it; on disk when this returns (the module's docstring)."""
    path = Path(results_dir) / POINTS / f"{point_id}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    from netsens.study import store_verify

    # The checksum first: a point file never appears before its checksum.
    store_verify.write_checksum(path, data, sync_directory=False)
    write_atomic(path, lambda f: f.write(data))  # and its folder: both names at once
    return path


def write_point(results_dir: str | os.PathLike[str], row: dict[str, Any]) -> Path:
    """Store one finished point as ``points/<point_id>.parquet``."""
    return store_point(results_dir, row["point_id"], encode_point(row))


def stored_ids(results_dir: str | os.PathLike[str]) -> set[str]:
    """The ids of the points stored in ``results_dir``."""
    return {p.name.removesuffix(".parquet") for p in (Path(results_dir) / POINTS).glob("*.parquet")}


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    write_atomic(path, lambda f: f.write(text.encode()))


# For the executors' own records beside the results (netsens.slurm.executor).
write_json_atomic = _write_json


def write_manifest(results_dir: str | os.PathLike[str], study: Any, points: list[Any]) -> None:
    """Record the resolved ``study`` and its ``points`` (id, axes and what they run;
    ``sha256``, the point file's checksum, for each point stored so far)."""
    from netsens import __version__
    from netsens.study import store_verify

    checksums = store_verify.stored_checksums(results_dir)

    _write_json(
        Path(results_dir) / MANIFEST,
        {
            "format": MANIFEST_FORMAT,
            "netsens_version": __version__,
            "study": study.to_dict(),
            "points": [
                {
                    "point_id": p.point_id,
                    "axes": p.axes,
                    "workload": p.workload,
                    "ranks": p.ranks,
                    "seed": p.seed,
                    "overrides": p.overrides,
                    "sha256": checksums.get(p.point_id),
                }
                for p in points
            ],
        },
    )


def read_manifest(results_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest of ``results_dir``, or ``None`` if it has none."""
    path = Path(results_dir) / MANIFEST
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(
            f"{path}: not a netsens study manifest ({e}); `netsens sweep` on the study "
            "writes it again, keeping every stored point"
        ) from None


def write_failure(
    results_dir: str | os.PathLike[str], point: Any, error: str, message: str
) -> None:
    """Record that ``point`` failed with a netsens ``error`` (its class name) saying
    ``message``."""
    _write_json(
        Path(results_dir) / FAILURES / f"{point.point_id}.json",
        {
            "point_id": point.point_id,
            "workload": point.workload,
            "ranks": point.ranks,
            "seed": point.seed,
            "overrides": point.overrides,
            "axes": point.axes,
            "error": error,
            "message": message,
        },
    )


def clear_failure(results_dir: str | os.PathLike[str], point_id: str) -> None:
    (Path(results_dir) / FAILURES / f"{point_id}.json").unlink(missing_ok=True)


def failures(results_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The recorded failures of ``results_dir`` (see ``write_failure``)."""
    found = sorted((Path(results_dir) / FAILURES).glob("*.json"))
    return [json.loads(p.read_text(encoding="utf-8")) for p in found]


def remove_stale_temporaries(results_dir: str | os.PathLike[str]) -> None:
    """Delete temporaries left by killed writers: their process no longer runs (gone, or
    a zombie nobody reaped, as in a container whose first process reaps none), or its
    number now belongs to another process and nobody holds the file's lock."""
    root = Path(results_dir)
    for directory in (root, root / POINTS, root / FAILURES):
        for tmp in directory.glob("*.tmp-*"):
            pid = tmp.name.rpartition(".tmp-")[2]
            if pid.isdigit() and (not _running(int(pid)) or _unlocked_and_old(tmp)):
                tmp.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc: trust the signal
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


# A temporary younger than this may belong to a writer that has created it but not yet
# taken its lock.
_LOCK_GRACE_S = 5.0


def _unlocked_and_old(tmp: Path) -> bool:
    try:
        fd = os.open(tmp, os.O_RDONLY)
    except OSError:
        return False
    try:
        if time.time() - os.fstat(fd).st_mtime < _LOCK_GRACE_S:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a live writer holds it
        return True
    finally:
        os.close(fd)


def _clusters_count() -> pl.Expr:
    """Number of clusters from the stored shape: null = 1, ``4x8`` = 4, ``8+8+16`` = 3."""
    shape = pl.col("clusters")
    return (
        pl.when(shape.is_null())
        .then(pl.lit(1.0))
        .when(shape.str.contains("x"))
        .then(shape.str.split("x").list.first().cast(_F))
        .otherwise(shape.str.split("+").list.len().cast(_F))
    )


def _value_columns() -> list[pl.Expr]:
    value, unit = pl.lit(None, dtype=_F), pl.lit(None, dtype=_S)
    for name, p in PARAMETERS.items():
        # A categorical axis other than clusters (a count) has no numeric value.
        column = (
            _clusters_count()
            if name == "clusters"
            else pl.lit(None, dtype=_F)
            if p.text
            else pl.col(p.column)
        )
        value = pl.when(pl.col("axis") == name).then(column).otherwise(value)
        unit = pl.when(pl.col("axis") == name).then(pl.lit(p.unit)).otherwise(unit)
    return [value.alias("value"), unit.alias("value_unit")]


def load(results_dir: str | os.PathLike[str], *, require_points: bool = False) -> pl.DataFrame:
    """All points of the study in ``results_dir``, one row per (point, axis).

    The columns are ``SCHEMA``'s (see docs/reference/study-file.md) plus ``value`` (the swept
    parameter's value in ``value_unit``, the unit of its stored column; the number of
    clusters for ``clusters``; null for the ``baseline`` and ``product`` rows),
    ``is_baseline`` (the row is the baseline point's, on whichever curve),
    ``baseline_makespan_ps`` and ``slowdown`` (makespan over the baseline point's with
    the same workload, size, ranks and seed). A point on several curves has a row on
    each: the baseline point is also a point of every axis of an ``each`` study.
    Points stored by an earlier version of the study (not in ``study.json``) are left
    out.

    A missing directory is an :class:`InputError`; so is one without points when
    ``require_points`` (else the frame is empty).
    """
    root = Path(results_dir)
    if not root.is_dir():
        raise InputError(
            f"{root}: no such results directory (run `netsens sweep STUDY.toml` first)"
        )
    from netsens.study import store_verify

    frames = store_verify.read_points(root)
    if require_points and not frames:
        raise InputError(
            f"{root}: no stored points (expected {root / POINTS}/*.parquet; "
            "run `netsens sweep STUDY.toml` first)"
        )
    frame = pl.concat(frames) if frames else pl.DataFrame(schema=SCHEMA)
    manifest = read_manifest(root)
    axis_order: list[str] = []
    workload_order: list[str] = []
    if manifest is not None:
        members = [(p["point_id"], axis) for p in manifest["points"] for axis in p["axes"]]
        curves = pl.DataFrame(members, schema={"point_id": _S, "axis": _S}, orient="row")
        frame = frame.drop("axis").join(curves, on="point_id", how="inner")
        axis_order = ["baseline", *manifest["study"]["axes"], "product"]
        workload_order = manifest["study"]["workloads"]
    if require_points and frame.is_empty():
        raise InputError(
            f"{root}: no stored points of the study in {root / MANIFEST} "
            "(run `netsens sweep STUDY.toml` first)"
        )
    baseline_ids = frame.filter(pl.col("axis") == "baseline")["point_id"].implode()
    frame = frame.select(list(SCHEMA)).with_columns(
        *_value_columns(), pl.col("point_id").is_in(baseline_ids).alias("is_baseline")
    )
    # size is null for GOAL files; match it as "" so that null equals null.
    size_key = pl.col("size").fill_null("").alias("size_key")
    match = [*(k for k in MATCH if k != "size"), "size_key"]
    frame = frame.with_columns(size_key)
    baseline = (
        frame.filter(pl.col("is_baseline"))
        .select(*match, pl.col("makespan_ps").alias("baseline_makespan_ps"))
        .unique(subset=match, keep="first", maintain_order=True)
    )
    frame = (
        frame.join(baseline, on=match, how="left")
        .drop("size_key")
        .with_columns((pl.col("makespan_ps") / pl.col("baseline_makespan_ps")).alias("slowdown"))
    )
    return _sorted(frame, workload_order, axis_order).select([*SCHEMA, *DERIVED])


def _sorted(frame: pl.DataFrame, workloads: list[str], axes: list[str]) -> pl.DataFrame:
    """Rows by workload and axis in the study's order, then ranks, values and seed."""

    def rank(column: str, order: list[str]) -> pl.Expr:
        index = {name: i for i, name in enumerate(order)}
        return pl.col(column).replace_strict(index, default=len(index), return_dtype=_I)

    parameters = [p.column for p in PARAMETERS.values()]  # orders product rows
    return frame.sort(
        [rank("workload", workloads), "workload", "ranks", rank("axis", axes), "axis"]
        + ["value", *parameters, "overrides", "seed"],
        nulls_last=False,
    )


def results(study_or_dir: Any, *, require_points: bool = False) -> pl.DataFrame:
    """``load`` of a study's results: a :class:`netsens.study.definition.Study`, a study file
    (``.toml``) or a results directory."""
    return load(results_dir(study_or_dir), require_points=require_points)


def results_dir(study_or_dir: Any) -> Path:
    """The results directory of a Study, a study file (``.toml``: its ``results``, else
    ``results/<name>`` beside it) or a results directory. A path that is neither is an
    :class:`InputError`; the directory need not exist yet (``load`` says so)."""
    from netsens.study.definition import Study

    if isinstance(study_or_dir, Study):
        return study_or_dir.results_dir
    path = Path(study_or_dir)
    if path.is_dir():
        return path
    if not path.exists():
        raise InputError(f"{path}: no such study file or results directory")
    if path.suffix != ".toml":
        raise InputError(f"{path}: expected a study file (.toml) or a results directory")
    return Study.from_toml(path).results_dir
