"""A live run's result: the per-rank files of the PMPI library (``rank-<r>.json``) and,
for a suite application, of ``netsens-mpi-run`` (``app-rank-<r>.json``), merged into
the schema of a simulated run (``netsens run --json``) plus ``mode = "live"``.

Times are integer picoseconds on rank 0's clock (the library estimates every rank's
offset at start-up), from the end of ``MPI_Init`` to the start of ``MPI_Finalize``;
for a suite application, from the moment every rank has set up to the end of its
program (``netsens-mpi-run``'s own clock), as in simulation, with ``compute_ps`` its
time in ``work`` and ``compute``. Otherwise ``compute_ps`` is a rank's time outside
MPI. ``overhead_ps`` is the o the library injected (busy CPU), ``wait_ps`` the rest.
``events`` is 0: a live run has no simulated events.

A suite application run K times in one job (``netsens-mpi-run --repeat K``) gives the
result of its median run: the run whose makespan (the latest rank's end) is the
median of the K, every rank's times from that run, and the library's counts (made
over all K runs, each the same program) divided by K; ``makespans_ps`` lists the K.
"""

from __future__ import annotations

import json
import os
import platform as host_platform
from collections import Counter
from pathlib import Path
from typing import Any

from netsens.errors import ProgramError


def read_ranks(directory: Path, prefix: str, ranks: int) -> dict[int, dict[str, Any]]:
    """The ``<prefix>-rank-<r>.json`` files present in ``directory``, by rank."""
    found = {}
    for r in range(ranks):
        path = directory / f"{prefix}rank-{r}.json"
        try:
            found[r] = json.loads(path.read_text())
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as e:
            raise ProgramError(f"live run: unreadable result file {path}: {e}") from None
    return found


def _histogram(stats: list[dict[str, Any]]) -> list[dict[str, int]]:
    bins: Counter[int] = Counter()
    volume: Counter[int] = Counter()
    for s in stats:
        for b, messages, nbytes in s.get("histogram", []):
            bins[b] += messages
            volume[b] += nbytes
    return [
        {
            "lo_bytes": 0 if b == 0 else 1 << (b - 1),
            "hi_bytes": 0 if b == 0 else (1 << b) - 1,
            "messages": bins[b],
            "bytes": volume[b],
        }
        for b in sorted(bins)
    ]


def _wan_links(stats: list[dict[str, Any]]) -> list[dict[str, int]]:
    links: dict[tuple[int, int], list[int]] = {}
    for s in stats:
        for src, dst, messages, nbytes, busy in s.get("wan", []):
            acc = links.setdefault((src, dst), [0, 0, 0])
            acc[0] += messages
            acc[1] += nbytes
            acc[2] += busy
    return [
        {"from_cluster": a, "to_cluster": b, "messages": m, "bytes": n, "busy_ps": t}
        for (a, b), (m, n, t) in sorted(links.items())
    ]


def _summed(stats: list[dict[str, Any]], key: str) -> dict[str, int]:
    total: Counter[str] = Counter()
    for s in stats:
        total.update(s.get(key, {}))
    return dict(sorted(total.items()))


def _median_run(apps: dict[int, dict[str, Any]]) -> tuple[int, int, list[int]]:
    """(the index of the median run, the number of runs, every run's makespan)."""
    counts = {len(a.get("runs", [])) for a in apps.values()}
    if len(counts) != 1 or 0 in counts:
        return 0, 1, []
    k = counts.pop()
    makespans = [max(a["runs"][i]["elapsed_ps"] for a in apps.values()) for i in range(k)]
    order = sorted(range(k), key=makespans.__getitem__)
    return order[(k - 1) // 2], k, makespans


def _per_run(s: dict[str, Any], k: int) -> dict[str, Any]:
    """One rank's library counts over ``k`` identical runs, as one run's."""
    if k == 1:
        return s

    def div(n: int) -> int:
        return round(n / k)

    out = dict(s)
    for key in ("sent_messages", "sent_bytes", "recv_messages", "recv_bytes", "overhead_ps",
                "shadow_messages"):  # fmt: skip
        if key in s:
            out[key] = div(s[key])
    # Lists whose leading entries name a bin, a peer or a link, and whose rest count.
    for key, names in (("histogram", 1), ("matrix", 1), ("wan", 2)):
        if key in s:
            out[key] = [[*e[:names], *map(div, e[names:])] for e in s[key]]
    for key in ("calls", "collectives", "unhandled"):
        if key in s:
            out[key] = {name: div(n) for name, n in s[key].items()}
    return out


def machine() -> dict[str, Any]:
    """The machine a live run ran on."""
    return {
        "host": host_platform.node(),
        "cpus": os.cpu_count(),
        "system": host_platform.platform(),
    }


def merge(
    stats: dict[int, dict[str, Any]],
    apps: dict[int, dict[str, Any]],
    *,
    implementation: str,
    platform: dict[str, Any],
    platform_name: str,
    workload: dict[str, Any],
    seed: int,
    matrix: bool = True,
) -> dict[str, Any]:
    """One result from every rank's files (``stats`` complete: one per rank)."""
    median, k, makespans = _median_run(apps) if apps else (0, 1, [])
    ordered = [_per_run(stats[r], k) for r in sorted(stats)]
    start = min(s["start_ps"] for s in ordered)
    ranks = []
    for s in ordered:
        app = apps.get(s["rank"])
        if app is not None:
            # A suite application's clock starts when every rank has set up (after a
            # barrier) and stops when its program returns, as a simulated run's does:
            # the communicators' creation before it and the final drain are not the
            # program's time.
            run = app["runs"][median] if k > 1 else app
            end, compute = run["elapsed_ps"], run["compute_ps"]
        else:
            end = s["end_ps"] - start
            compute = max(s["elapsed_ps"] - s["in_mpi_ps"], 0)
        overhead = s["overhead_ps"]
        ranks.append(
            {
                "rank": s["rank"],
                "end_ps": end,
                "compute_ps": compute,
                "overhead_ps": overhead,
                "noise_ps": 0,
                "wait_ps": max(end - compute - overhead, 0),
                "sent_messages": s["sent_messages"],
                "sent_bytes": s["sent_bytes"],
                "recv_messages": s["recv_messages"],
                "recv_bytes": s["recv_bytes"],
            }
        )
    result: dict[str, Any] = {
        "mode": "live",
        "makespan_ps": max(r["end_ps"] for r in ranks),
        "ranks": ranks,
        "messages": sum(s["sent_messages"] for s in ordered),
        "bytes": sum(s["sent_bytes"] for s in ordered),
        "control_messages": 0,
        "events": 0,
        "histogram": _histogram(ordered),
        "matrix": None,
        "wan_links": _wan_links(ordered),
        "seed": seed,
        "phases": [],
        "primitives": [],
        "platform": platform,
        "platform_name": platform_name,
        "workload": workload,
        "mpi": {
            "implementation": implementation,
            "library": ordered[0].get("mpi_library", ""),
            "version": ordered[0].get("mpi_version", ""),
        },
        "machine": machine(),
        "mpi_calls": _summed(ordered, "calls"),
        "collectives": _summed(ordered, "collectives"),
        "unhandled_calls": _summed(ordered, "unhandled"),
        "shadow_messages": sum(s.get("shadow_messages", 0) for s in ordered),
    }
    if matrix:
        result["matrix"] = [
            {"src": s["rank"], "dst": dst, "messages": m, "bytes": n}
            for s in ordered
            for dst, m, n in sorted(s.get("matrix", []))
        ]
    if k > 1:
        result["makespans_ps"] = makespans
    if apps:
        first = apps[min(apps)]
        result["app"] = first["app"]
        result["size"] = first["size_preset"]
        result["verified"] = all(a.get("verified") for a in apps.values())
        result["phases"] = [dict(p, rank=r) for r, a in sorted(apps.items()) for p in a["phases"]]
        result["primitives"] = [
            dict(p, rank=r) for r, a in sorted(apps.items()) for p in a["primitives"]
        ]
    return result
