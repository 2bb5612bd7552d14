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
import threading
import time
from concurrent.futures import ProcessPoolExecutor
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
    workload: dict[str, Any],
    spec: dict[str, Any],
    progress: Any = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """One point's row, in a worker or here (``progress``: the engine's callback;
    ``threads``: the analysis's)."""
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
        threads=threads,
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
    try:
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
            _side_by_side(w, todo, jobs, finished)
    finally:
        # The points' trace or GOAL file as read, kept for the next point: let go.
        from netsens import _core

        _core.forget_kept_read()
    return [json.loads(_path(root, i).read_text()) for i in ids]


def _side_by_side(
    w: dict[str, Any],
    todo: list[tuple[str, dict[str, Any]]],
    jobs: int,
    finished: Any,
) -> None:
    """The points on ``jobs`` processes: ``jobs`` - 1 workers and this one, each
    taking the next point whenever it is free. A worker takes a few tenths of a second
    to start (a new interpreter importing netsens) and takes a point only once it has:
    this process begins at once, and a comparison whose points are quicker than a
    worker's start ends here. Each worker is fed by a thread of this process."""
    ctx = multiprocessing.get_context("spawn")
    queue = list(todo)
    # Guards the queue, the points being computed and the store's writes.
    lock = threading.Condition()
    failed: list[BaseException] = []
    busy = [0]  # points a worker is computing
    stop = threading.Event()

    def take(worker: bool) -> tuple[str, dict[str, Any]] | None:
        with lock:
            if not queue or stop.is_set() or failed:
                return None
            busy[0] += worker
            return queue.pop(0)

    def done(pid: str, spec: dict[str, Any], row: dict[str, Any], worker: bool) -> None:
        with lock:
            busy[0] -= worker
            finished(spec, pid, row)
            lock.notify_all()

    def feed(pool: ProcessPoolExecutor) -> None:
        try:
            pool.submit(_started).result()
            while (item := take(True)) is not None:
                pid, spec = item
                done(pid, spec, pool.submit(_in_worker, w, spec).result(), True)
        except BaseException as e:  # raised again in this process's main thread
            with lock:
                failed.append(e)
                lock.notify_all()

    workers = min(jobs - 1, len(queue) - 1)
    pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_one_thread)
    feeders = [threading.Thread(target=feed, args=(pool,), daemon=True) for _ in range(workers)]
    try:
        for t in feeders:
            t.start()
        while (item := take(False)) is not None:
            # Beside the workers, one thread, as theirs (`_one_thread`).
            pid, spec = item
            done(pid, spec, _compute(w, spec, threads=1), False)
        # The points the workers hold (a worker still starting holds none).
        with lock:
            while busy[0] and not failed:
                lock.wait(0.5)
    finally:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
    if failed:
        raise failed[0]


def _in_worker(workload: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """A point in a worker (the function a worker is sent, by name)."""
    return _compute(workload, spec)


def _started() -> None:
    """A worker's first call: it has started."""


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
