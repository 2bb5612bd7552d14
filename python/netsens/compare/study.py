"""A comparison as a study: one point per (network, placement), each stored as it
finishes (a JSON file written atomically under ``<results>/points/``, the study
store's way), so a comparison stopped at any moment continues where it was when run
again; points run on ``jobs`` processes, with a line on stderr as each finishes.

A point's identity is everything that decides its answer: the workload, the network
(a platform file's text, or the preset), the placement, hosts, taper, CPU speed, the
background job and netsens's version. Change any and the point is computed anew.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from netsens.compare import measure
from netsens.compare.networks import PRESETS, expand, resolve
from netsens.compare.workload import Workload
from netsens.errors import InputError

POINTS = "points"


@dataclass
class Comparison:
    """What is compared: the workload on each network at each placement."""

    workload: Workload
    networks: list[str]
    placements: list[str | None] = field(default_factory=lambda: [None])
    hosts: int | None = None
    taper: str | None = None
    cpu_speed: dict[str, float] = field(default_factory=dict)  # network (or "*") -> speed
    background: measure.Background | None = None

    def speed_of(self, network: str) -> float | None:
        return self.cpu_speed.get(network, self.cpu_speed.get("*"))

    def points(self) -> list[dict[str, Any]]:
        return [
            {"network": n, "placement": p, **self._options(n)}
            for n in self.networks
            for p in self.placements
        ]

    def _options(self, network: str) -> dict[str, Any]:
        return {
            "hosts": self.hosts,
            "taper": self.taper,
            "cpu_speed": self.speed_of(network),
            "background": asdict(self.background) if self.background else None,
        }

    def check(self) -> list[str]:
        """Every network sized before any runs: a bad one stops the comparison with one
        line. Returns the notes to print (a network without shared links)."""
        notes = []
        need = self.workload.ranks + (self.background.ranks if self.background else 0)
        for n in self.networks:
            for p in self.placements:
                sized = resolve(
                    n,
                    need,
                    hosts=self.hosts,
                    taper=self.taper,
                    placement=p,
                    cpu_speed=self.speed_of(n),
                )
                measure.check_hosts(sized, self.workload, need)
            if sized.topology is None:
                if self.background is not None:
                    raise InputError(
                        f"network {n}: has no topology, so a background job shares no links "
                        "with the program; leave --background out or drop this network"
                    )
                notes.append(f"network {n}: no topology, so no shared links (LogGP's pipe)")
        return notes


def point_id(workload: Workload, spec: dict[str, Any]) -> str:
    from netsens import __version__

    network = spec["network"]
    preset = PRESETS.get(network)
    platform = (
        network if preset and preset.engine_preset else _text(preset.spec if preset else network)
    )
    key = {
        "workload": workload.to_dict(),
        "workload_file": _stat(workload.path),
        "platform": platform,
        "spec": spec,
        "version": __version__,
    }
    text = json.dumps(key, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _stat(path: str | None) -> Any:
    """A trace or GOAL file changed since (size, modification time) is a new point."""
    if not path:
        return None
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns] if os.path.isfile(path) else path


def _compute(
    workload: dict[str, Any], spec: dict[str, Any], progress: Any = None
) -> dict[str, Any]:
    """Run in a worker: one point's row (``progress``: the engine's callback)."""
    w = Workload(**workload)
    bg = spec.get("background")
    return measure.point(
        w,
        spec["network"],
        placement=spec.get("placement"),
        hosts=spec.get("hosts"),
        taper=spec.get("taper"),
        cpu_speed=spec.get("cpu_speed"),
        background=measure.Background(**bg) if bg else None,
        progress=progress,
    )


def run(
    comparison: Comparison,
    results: str | os.PathLike[str],
    jobs: int = 1,
    progress: bool = True,
    slurm: str | None = None,
) -> list[dict[str, Any]]:
    """Every point not stored in ``results`` yet, on ``jobs`` processes (or, with
    ``slurm``, a string of sbatch arguments, as one Slurm job array); returns every
    point's row in the comparison's order."""
    root = Path(results)
    (root / POINTS).mkdir(parents=True, exist_ok=True)
    specs = comparison.points()
    ids = [point_id(comparison.workload, s) for s in specs]
    todo = [(i, s) for i, s in zip(ids, specs, strict=True) if not _path(root, i).exists()]
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if progress else (lambda _: None)
    if len(todo) < len(specs):
        say(f"compare: {len(specs) - len(todo)} of {len(specs)} points already stored in {root}")
    began = time.perf_counter()
    done = 0

    def finished(spec: dict[str, Any], pid: str, row: dict[str, Any]) -> None:
        nonlocal done
        row["point_id"] = pid
        _store(root, pid, row)
        done += 1
        where = f" {spec['placement']}" if spec["placement"] else ""
        if row.get("analysis_error"):
            say(
                f"compare: {spec['network']}{where}: the record did not follow the run "
                "(an engine limit), so its run time and links stand without the critical "
                f"path, tolerances and halvings: {row['analysis_error']}"
            )
        say(
            f"compare: [{done}/{len(todo)}] {spec['network']}{where}: "
            f"{row['makespan_ps'] / 1e6:,.3f} us predicted ({row['wall_s']:.1f} s; "
            f"{time.perf_counter() - began:.1f} s elapsed)"
        )

    w = comparison.workload.to_dict()
    if slurm is not None and todo:
        from netsens.compare.slurm import submit_and_wait

        submit_and_wait(root, w, todo, lambda pid: _path(root, pid).exists(), say, slurm)
    elif jobs <= 1 or len(todo) <= 1:
        from netsens.cli.progress import progress_bar

        for pid, spec in todo:
            # A long run shows the engine's bar on a terminal (nothing elsewhere).
            with progress_bar() as bar:
                row = _compute(w, spec, bar if progress else None)
            finished(spec, pid, row)
    else:
        ctx = multiprocessing.get_context("spawn")
        workers = min(jobs, len(todo))
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_one_thread) as pool:
            pending = {pool.submit(_compute, w, s): (pid, s) for pid, s in todo}
            try:
                while pending:
                    ready, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for f in ready:
                        pid, spec = pending.pop(f)
                        finished(spec, pid, f.result())
            except BaseException:
                for f in pending:
                    f.cancel()
                raise
    return [json.loads(_path(root, i).read_text()) for i in ids]


def _one_thread() -> None:
    """A worker among several: its recorded run's analysis on its own thread (the
    points share the cores; see NETSENS_ANALYSIS_THREADS), unless the user chose."""
    os.environ.setdefault("NETSENS_ANALYSIS_THREADS", "1")


def _path(root: Path, pid: str) -> Path:
    return root / POINTS / f"{pid}.json"


def _store(root: Path, pid: str, row: dict[str, Any]) -> None:
    from netsens.study.store import write_atomic

    data = json.dumps(row, sort_keys=True).encode()
    write_atomic(_path(root, pid), lambda f: f.write(data))


def default_results(workload: Workload) -> Path:
    return Path("results") / f"compare-{workload.name.split('.')[0]}-{workload.ranks}"


__all__ = ["Comparison", "expand", "run", "point_id", "default_results"]
