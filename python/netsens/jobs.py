"""Several jobs at once on one network: each job a GOAL file or a trace on its own
hosts of the platform's ``[topology]``, run side by side so that they share its links
(docs/guides/topology.md, *Two jobs on one network*).

A job is written ``WORKLOAD[@HOSTS]``: ``ft.goal@0-15`` runs ``ft.goal`` on hosts 0 to
15 (node i of the job on the i-th host listed), ``a2a.goal@16-31,48`` on the hosts
listed; without ``@`` a job takes the next hosts, in the order of the topology's
``placement``, that no other job holds. ``alone=True`` also runs each job by itself on
the same hosts, so the interference shows as the ratio of the two makespans.
"""

import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from netsens import _core
from netsens.engine import PathLike, ProgressFn, check_memory_limit, is_trace
from netsens.errors import InputError

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def parse_hosts(text: str, what: str) -> list[int]:
    """``"0-3,8"`` -> ``[0, 1, 2, 3, 8]``; ``what`` names the value in the error."""
    hosts: list[int] = []
    for part in text.split(","):
        m = _RANGE.match(part.strip())
        if not m:
            raise InputError(
                f'{what}: "{text}" is not a list of hosts; write ranges such as 0-15 or 0-7,16-23'
            )
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if hi < lo:
            raise InputError(f'{what}: the range "{part.strip()}" runs backwards')
        hosts.extend(range(lo, hi + 1))
    return hosts


def parse_job(text: str, what: str = "--job") -> tuple[str, list[int] | None]:
    """``"ft.goal@0-15"`` -> ``("ft.goal", [0, ..., 15])``; ``"ft.goal"`` -> ``("ft.goal", None)``
    (no hosts named)."""
    workload, at, hosts = text.rpartition("@")
    if not at:
        workload, hosts = text, ""
    if not workload:
        raise InputError(f'{what} "{text}": give a GOAL file or trace before the @HOSTS')
    return workload, (parse_hosts(hosts, f'{what} "{text}"') if at else None)


def _job_tuple(job: Any, i: int) -> tuple[str, str, list[int] | None]:
    """A job as the engine takes it: (kind, path, hosts)."""
    what = f"jobs[{i}]"
    if isinstance(job, str | os.PathLike):
        workload, hosts = parse_job(os.fspath(job), what)
    elif isinstance(job, Mapping):
        unknown = set(job) - {"workload", "hosts"}
        if unknown:
            raise InputError(
                f"{what}: unknown key {sorted(unknown)[0]!r}; a job has workload and hosts"
            )
        if not job.get("workload"):
            raise InputError(f"{what}: a job needs a workload (a GOAL file or trace)")
        workload = os.fspath(job["workload"])
        given = job.get("hosts")
        hosts = parse_hosts(given, f"{what}.hosts") if isinstance(given, str) else given
        if hosts is not None and not all(isinstance(h, int) and h >= 0 for h in hosts):
            raise InputError(f"{what}.hosts: a list of host numbers from 0, got {given!r}")
    else:
        raise InputError(
            f'{what}: "FILE[@HOSTS]" or {{"workload": FILE, "hosts": ...}}, got {job!r}'
        )
    if not os.path.exists(workload):
        raise InputError(f'{what}: no such GOAL file or trace "{workload}"')
    return ("trace" if is_trace(workload) else "goal", workload, hosts)


def run_jobs(
    jobs: Sequence[Any],
    platform: PathLike = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    alone: bool = False,
) -> dict[str, Any]:
    """Run ``jobs`` (each ``"FILE[@HOSTS]"`` or ``{"workload": FILE, "hosts": "0-15"}``)
    side by side on ``platform``'s topology; returns the result as a dict: the schema of
    a GOAL run (ranks job after job, ``links`` for the shared links) with ``jobs``, per
    job its ``workload``, ``first_rank``, ``ranks``, ``hosts`` and ``makespan_ps``. With
    ``alone``, each job also gets ``alone_makespan_ps`` (the job by itself on the same
    hosts) and ``slowdown`` (makespan over alone makespan)."""
    if isinstance(jobs, str | os.PathLike | Mapping) or not jobs:
        raise InputError("jobs: give a list of at least one job")
    check_memory_limit()
    specs = [_job_tuple(j, i) for i, j in enumerate(jobs)]
    args = (os.fspath(platform), dict(overrides or {}), seed)
    result = json.loads(_core.run_jobs(specs, *args, matrix, progress))
    if alone:
        for (kind, path, _), job in zip(specs, result["jobs"], strict=True):
            own = json.loads(_core.run_jobs([(kind, path, job["hosts"])], *args, False, progress))
            job["alone_makespan_ps"] = own["makespan_ps"]
            job["slowdown"] = job["makespan_ps"] / max(own["makespan_ps"], 1)
    return result


def format_hosts(hosts: Sequence[int]) -> str:
    """``[0, 1, 2, 3, 8]`` -> ``"0-3,8"``."""
    parts: list[str] = []
    i = 0
    while i < len(hosts):
        j = i
        while j + 1 < len(hosts) and hosts[j + 1] == hosts[j] + 1:
            j += 1
        parts.append(str(hosts[i]) if i == j else f"{hosts[i]}-{hosts[j]}")
        i = j + 1
    return ",".join(parts)
