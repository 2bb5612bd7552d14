"""``netsens.run``: one simulation, its result as attributes and polars DataFrames.

    import netsens
    r = netsens.run("stencil", ranks=4, size="tiny", overrides={"L": "5us"})
    r.makespan_ps, r.verified   # (..., True)
    r.ranks                     # per rank: end_ps, compute_ps, overhead_ps, wait_ps, ...
    r.phases                    # time per phase per rank

A workload is an application name (``netsens.apps()``) or the path of a GOAL file.
Times are integer picoseconds (columns and attributes ending in ``_ps``). Errors are
netsens's own exceptions (:mod:`netsens.errors`) with the engine's one-line message.
"""

import copy
import json
import os
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl

from netsens.engine import PathLike, ProgressFn, apps, run_app_json, run_goal_json
from netsens.errors import InputError

_INT = pl.Int64
# The columns of each table, in order, with their types (an absent table is an empty
# frame with these columns).
RANK_SCHEMA = {
    "rank": _INT,
    "end_ps": _INT,
    "compute_ps": _INT,
    "overhead_ps": _INT,
    "noise_ps": _INT,
    "wait_ps": _INT,
    "sent_messages": _INT,
    "sent_bytes": _INT,
    "recv_messages": _INT,
    "recv_bytes": _INT,
}
MATRIX_SCHEMA = {"src": _INT, "dst": _INT, "messages": _INT, "bytes": _INT}
HISTOGRAM_SCHEMA = {"lo_bytes": _INT, "hi_bytes": _INT, "messages": _INT, "bytes": _INT}
PHASE_SCHEMA = {
    "rank": _INT,
    "phase": pl.String,
    "elapsed_ps": _INT,
    "compute_ps": _INT,
    "overhead_ps": _INT,
}
PRIMITIVE_SCHEMA = {"rank": _INT, "primitive": pl.String, "count": _INT}
WAN_LINK_SCHEMA = {
    "from_cluster": _INT,
    "to_cluster": _INT,
    "messages": _INT,
    "bytes": _INT,
    "busy_ps": _INT,
}


def _frame(rows: list[dict[str, Any]] | None, schema: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(rows or [], schema=schema)


class RunResult:
    """The result of one run: the fields of ``netsens run --json`` as attributes, and
    its tables as polars DataFrames.

    Attributes: ``makespan_ps``, ``messages``, ``bytes``, ``control_messages``,
    ``events``, ``seed``, ``platform`` (the resolved platform, a dict, times in ps),
    ``platform_name``, ``workload`` (a dict: ``kind`` is ``"app"`` or ``"goal"``),
    ``num_ranks``, and for an application ``app``, ``size`` and ``verified`` (``None``
    for a GOAL file), ``timing_dependence`` (counts of wildcard receives and tests, zero
    when the program alone decides its messages). Frames: ``ranks``, ``matrix``,
    ``histogram``, ``phases``, ``primitives``, ``wan_links``.
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)
        self.makespan_ps: int = data["makespan_ps"]
        self.messages: int = data["messages"]
        self.bytes: int = data["bytes"]
        self.control_messages: int = data.get("control_messages", 0)
        self.events: int = data["events"]
        self.seed: int = data["seed"]
        self.platform: dict[str, Any] = data["platform"]
        self.platform_name: str = data["platform_name"]
        self.workload: dict[str, Any] = data["workload"]
        self.num_ranks: int = len(data["ranks"])
        self.app: str | None = data.get("app")
        self.size: str | None = data.get("size")
        self.verified: bool | None = data.get("verified")
        # Wildcard receives and tests: operations whose outcome can depend on timing.
        self.timing_dependence: dict[str, int] = data.get("timing_dependence") or {
            "wildcard_receives": 0,
            "tests": 0,
        }

    @classmethod
    def from_json(cls, text: str) -> "RunResult":
        """A result from the engine's JSON text (``netsens run --json``)."""
        return cls(json.loads(text))

    def to_dict(self) -> dict[str, Any]:
        """The whole result as plain data, exactly the JSON of ``netsens run --json``."""
        return copy.deepcopy(self._data)

    @cached_property
    def ranks(self) -> pl.DataFrame:
        """One row per rank: end time and its breakdown (compute, overhead, noise, wait),
        messages and bytes sent and received."""
        return _frame(self._data["ranks"], RANK_SCHEMA)

    @cached_property
    def matrix(self) -> pl.DataFrame:
        """Messages and bytes per (src, dst) pair that exchanged any; empty when the
        run did not collect the matrix (``matrix=False``)."""
        return _frame(self._data.get("matrix"), MATRIX_SCHEMA)

    @cached_property
    def histogram(self) -> pl.DataFrame:
        """Message sizes in power-of-two bins ``[lo_bytes, hi_bytes]``."""
        return _frame(self._data.get("histogram"), HISTOGRAM_SCHEMA)

    @cached_property
    def phases(self) -> pl.DataFrame:
        """Rank programs: time each rank spent in each phase (elapsed, compute, overhead)."""
        return _frame(self._data.get("phases"), PHASE_SCHEMA)

    @cached_property
    def primitives(self) -> pl.DataFrame:
        """Rank programs: how often each rank used each primitive (send, recv, ...)."""
        return _frame(self._data.get("primitives"), PRIMITIVE_SCHEMA)

    @cached_property
    def wan_links(self) -> pl.DataFrame:
        """Traffic on each directed wide-area link that carried any."""
        return _frame(self._data.get("wan_links"), WAN_LINK_SCHEMA)

    def __repr__(self) -> str:
        w = self.workload
        what = f"{w['app']} ({w['size']})" if w.get("kind") == "app" else w.get("file", "?")
        return (
            f"RunResult({what}, {self.num_ranks} ranks on {self.platform_name}, "
            f"makespan_ps={self.makespan_ps}, messages={self.messages}, seed={self.seed})"
        )


def _is_goal(workload: str | os.PathLike[str]) -> bool:
    if isinstance(workload, os.PathLike):
        return True
    path = Path(workload)
    return path.suffix in (".goal", ".otf2") or os.sep in workload or path.is_file()


def run(
    workload: str | os.PathLike[str],
    platform: PathLike = "loggopsim",
    ranks: int | None = None,
    size: str = "small",
    seed: int = 0,
    overrides: Mapping[str, str] | None = None,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    mode: str = "simulate",
    mpi: str = "openmpi",
) -> RunResult:
    """Run ``workload`` on ``platform`` (a preset name or a TOML file) and return its result.

    ``workload`` is an application name (``netsens.apps()``; ``ranks`` is then required
    and ``size`` picks its preset, ``tiny``, ``small`` or ``paper``) or the path of a
    GOAL file (its ``num_ranks`` sets the ranks: ``ranks`` may be left out, and must
    match if given; ``size`` is not used). ``seed`` seeds the platform's noise and an
    application's data. ``overrides`` maps parameter names to values with units, e.g.
    ``{"L": "5us", "G": "10Gbit/s"}``. ``matrix=False`` skips the (src, dst) matrix.
    ``progress(events, now_ps, ops_done, ops_total)`` is called every 2^20 events.

    ``mode="live"`` runs an application on real MPI (``mpi``: ``"openmpi"`` or
    ``"mpich"``) with the platform's o, g, L, G and wide-area links injected
    (:mod:`netsens.live.run`); ``platform=None`` then injects only the overrides. The
    result adds ``mode``, ``mpi`` and ``machine``.
    """
    if mode not in ("simulate", "live"):
        raise InputError(f'mode: "simulate" or "live", got {mode!r}')
    if mode == "live":
        from netsens.live.run import run_live  # noqa: PLC0415 (live mode only)

        if not isinstance(workload, str) or _is_goal(workload):
            raise InputError(
                'mode="live" runs an application; for a program use netsens.live.run.run_live'
            )
        live_platform = None if platform in (None, "machine") else platform
        if ranks is None:
            raise InputError(f'ranks: required for application "{workload}", e.g. ranks=4')
        data = run_live(
            ranks,
            app=workload,
            size=size,
            seed=seed,
            platform=live_platform,
            overrides=overrides,
            mpi=mpi,
            matrix=matrix,
        )
        return RunResult(data)
    if not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise InputError(f"seed: must be an integer from 0 to 2^64-1, got {seed!r}")
    if ranks is not None and (not isinstance(ranks, int) or isinstance(ranks, bool)):
        raise InputError(f"ranks: must be an integer, got {ranks!r}")
    # Checked here too: the engine takes a 64-bit integer, and Python's may be larger.
    if ranks is not None and ranks < 1:
        raise InputError(f"ranks: must be at least 1, got {ranks}")
    if ranks is not None and ranks >= 2**32:
        raise InputError(f"ranks: must be at most {2**32 - 1}, got {ranks}")
    overrides = dict(overrides or {})
    known = {name for name, _, _ in apps()}
    if isinstance(workload, str) and (workload in known or not _is_goal(workload)):
        if ranks is None:
            raise InputError(f'ranks: required for application "{workload}", e.g. ranks=4')
        text = run_app_json(workload, ranks, size, platform, overrides, seed, matrix, progress)
    else:
        text = run_goal_json(workload, platform, overrides, seed, matrix, progress, ranks)
    return RunResult.from_json(text)
