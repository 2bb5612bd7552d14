"""One network's answer for one workload: a recorded run (netsens.sensitivity) gives
the run time, the critical path's make-up, the busiest links and every end-point
parameter's tolerance at 1 % and 5 %, and the run time with each parameter halved
(values of the same record); a full run without the taper, and one beside a
background all-to-all, where asked."""

from __future__ import annotations

import os
import tempfile
import time
import tomllib
from dataclasses import dataclass
from typing import Any

from netsens.compare.networks import Sized, resolve
from netsens.compare.workload import Workload
from netsens.errors import InputError

EPSILONS = (0.01, 0.05)
# The end-point parameters a network is judged by; "cpu" is 1/cpu_speed.
PARAMS = ("L", "o", "g", "G", "O")
# What halving each one means, for the sentence on what would help most.
HALVED = {
    "L": "halving the latency L",
    "o": "halving the CPU overhead o",
    "g": "halving the gap g",
    "G": "doubling the bandwidth (halving G)",
    "O": "halving the per-byte overhead O",
    "wan.L": "halving the wide-area latency",
    "wan.G": "doubling the wide-area bandwidth",
    "cpu": "a CPU twice as fast",
}


@dataclass(frozen=True)
class Background:
    """An all-to-all of ``size`` bytes among ``ranks`` ranks, ``rounds`` times, on
    hosts the program does not hold."""

    ranks: int
    size: int
    rounds: int

    def label(self) -> str:
        return f"all-to-all {self.ranks} ranks x {self.size} B x {self.rounds}"


def point(
    workload: Workload,
    network: str,
    *,
    placement: str | None = None,
    hosts: int | None = None,
    taper: str | None = None,
    cpu_speed: float | None = None,
    background: Background | None = None,
    progress: Any = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """The row of one (network, placement): every time in ps. ``progress`` is the
    engine's callback for the recorded run; ``threads`` the analysis's (default: the
    cores)."""
    began = time.perf_counter()
    need = workload.ranks + (background.ranks if background else 0)
    sized = resolve(
        network,
        need,
        hosts=hosts,
        taper=taper,
        placement=placement,
        cpu_speed=cpu_speed,
    )
    check_hosts(sized, workload, need)
    if background is not None and sized.topology is None:
        raise InputError(
            f"network {network}: has no topology, so a background job shares no links with "
            "the program; leave --background out or choose networks with a topology"
        )
    from netsens.sensitivity.analyze import analyze

    at = _halves(sized)
    wan = [name for name, _ in at if name.startswith("wan.")]
    failed = None
    try:
        out = analyze(
            **workload.engine_args(),
            platform=sized.platform,
            overrides=sized.overrides,
            params=[*PARAMS, *wan],
            epsilons=EPSILONS,
            at=at,
            chain=0,
            confirm=False,
            progress=progress,
            threads=threads,
            # The next network's point reads the same file: read once a process.
            keep_read=True,
        )
    except InputError as e:
        if "dependency record" not in str(e):
            raise
        # The record does not follow this run: the run's own answer stands, without the
        # parts that come from the record (the path, tolerances, halvings).
        failed = str(e)
        run = _full_result(workload, sized)
        out = {"makespan_ps": run["makespan_ps"], "critical_path": {"parts": []}, "params": []}
    run = out.get("run") or run
    t0 = int(out["makespan_ps"])
    row: dict[str, Any] = {
        "network": network,
        "placement": placement,
        "topology": sized.topology,
        "hosts": sized.hosts,
        "shared_links": sized.topology is not None,
        "platform": sized.platform,
        "overrides": sized.overrides,
        "cpu_speed": float(run["platform"].get("cpu_speed", 1.0))
        if isinstance(run.get("platform"), dict)
        else cpu_speed,
        "makespan_ps": t0,
        "critical_path": {p["part"]: p["ps"] for p in out["critical_path"]["parts"]},
        # The path's link queueing by the class of the links that held its bytes back.
        "link_queueing_by_class": {
            c["class"]: c["ps"] for c in out["critical_path"].get("link_queueing_by_class", [])
        },
        "tolerance": _tolerances(out["params"]),
        "halved": _halved(out.get("at", []), t0),
        "links": _links(run.get("links")),
        "messages": run.get("messages"),
        "bytes": run.get("bytes"),
    }
    if failed is not None:
        row["analysis_error"] = failed
    if sized.tapered and (failed is not None or _taper_may_win(row)):
        row["untapered_ps"] = _full_run(workload, sized, {"topology.taper": "1:1"})
    if background is not None:
        row["background"] = _beside(workload, sized, background, t0)
    row["advice"] = advice(row)
    row["wall_s"] = time.perf_counter() - began
    return row


def _taper_may_win(row: dict[str, Any]) -> bool:
    """Whether removing the taper could help more than the best halving. Untapered, the
    critical path's chain is still there with its costs but its waits behind shared
    links (the routes have as many hops at the same latencies), so the run is at least
    T - q, q the path's link queueing: the gain is at most q. The full run is made only
    where q exceeds the best halving's gain and 0.5 % of the run."""
    t0 = row["makespan_ps"]
    q = row["critical_path"].get("link queueing", 0)
    best = max((t0 - v for v in row["halved"].values()), default=0)
    return q > max(best, 0.005 * t0)


def check_hosts(sized: Sized, workload: Workload, need: int) -> None:
    """A job larger than the network's hosts stops the run with one line saying how
    many hosts there are and how to scale."""
    if sized.hosts is not None and need > sized.hosts:
        raise InputError(
            f"network {sized.name}: the job needs {need} hosts and the network has "
            f"{sized.hosts}; {sized.how_to_scale}"
        )


def _halves(sized: Sized) -> list[tuple[str, list[float]]]:
    """Each parameter at half its value (in the engine's units: ps, ps/B, 1/cpu_speed)."""
    from netsens.engine import platform_toml
    from netsens.sensitivity.analyze import _value

    doc = tomllib.loads(platform_toml(sized.platform, sized.overrides))
    cluster = doc.get("cluster", {})
    out: list[tuple[str, list[float]]] = []
    for name in PARAMS:
        text = cluster.get(name)
        if text is None:
            continue
        value = _value(name, str(text))
        if value > 0:
            out.append((name, [value / 2]))
    wan = doc.get("wan") or {}
    for name, key in (("wan.L", "latency"), ("wan.G", "bandwidth")):
        if key in wan:
            out.append((name, [_value(name, str(wan[key])) / 2]))
    speed = float(doc.get("cpu_speed", 1.0))
    out.append(("cpu", [1 / (2 * speed)]))
    return out


def _tolerances(params: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for p in params:
        tol = {f"{round(t['epsilon'] * 100)}%": t["delta"] for t in p["tolerance"]}
        out[p["param"]] = {"value": p["value"], "unit": p["unit"], **tol}
    return out


def _halved(at: list[dict[str, Any]], t0: int) -> dict[str, float]:
    """Per parameter, the run time with it halved (ps)."""
    return {a["param"]: float(a["makespan_ps"][0]) for a in at if a["makespan_ps"]}


def _links(links: dict[str, Any] | None) -> dict[str, Any] | None:
    if not links:
        return None
    return {
        "classes": links.get("classes", []),
        "busiest": links.get("busiest", [])[:5],
    }


def _full_run(workload: Workload, sized: Sized, extra: dict[str, str]) -> int:
    return int(_full_result(workload, sized, extra)["makespan_ps"])


def _full_result(
    workload: Workload, sized: Sized, extra: dict[str, str] | None = None
) -> dict[str, Any]:
    from netsens.engine import run_app, run_goal

    over = {**sized.overrides, **(extra or {})}
    if workload.app:
        return run_app(
            workload.app, workload.ranks, workload.size, sized.platform, over, matrix=False
        )
    return run_goal(workload.path or "", sized.platform, over, matrix=False)


def _beside(workload: Workload, sized: Sized, bg: Background, alone_ps: int) -> dict[str, Any]:
    """The program beside the background all-to-all: its makespan, and the ratio to its
    run alone on the same hosts (``alone_ps``, the recorded run)."""
    from netsens.compare.goals import all_to_all
    from netsens.jobs import run_jobs

    if workload.app:
        raise InputError(
            "--background: an application cannot share the network with another job yet; "
            "record it as a trace (netsens trace) or give its GOAL file"
        )
    with tempfile.TemporaryDirectory() as tmp:
        goal = os.path.join(tmp, "background.goal")
        with open(goal, "w") as f:
            f.write(all_to_all(bg.ranks, bg.size, bg.rounds))
        r = run_jobs([workload.path or "", goal], sized.platform, sized.overrides, matrix=False)
    job, other = r["jobs"][0], r["jobs"][1]
    return {
        "job": bg.label(),
        "makespan_ps": int(job["makespan_ps"]),
        "slowdown": job["makespan_ps"] / max(alone_ps, 1),
        "background_makespan_ps": int(other["makespan_ps"]),
    }


def advice(row: dict[str, Any]) -> str:
    """One sentence: the change among halving one parameter and removing the taper
    that shortens the run the most."""
    t0 = row["makespan_ps"]
    options = {HALVED.get(k, k): v for k, v in row["halved"].items()}
    if "untapered_ps" in row:
        options["removing the taper"] = row["untapered_ps"]
    if row.get("analysis_error") and not options:
        return (
            "no parameter's effect known: the record did not follow this run "
            "(its run time and links stand)"
        )
    if not options or t0 <= 0:
        return "nothing to change: the run has no time to gain"
    best = min(options, key=lambda k: options[k])
    gain = 1 - options[best] / t0
    if gain < 0.005:
        return "no single change helps by 0.5 % or more: the run is bound elsewhere"
    return f"{best[0].upper()}{best[1:]} would help most: {100 * gain:.1f} % shorter"
