"""Running a study: every point not yet stored, in parallel on the local cores.

Points run in worker processes (started with ``spawn``: polars keeps threads, which
``fork`` would copy half-alive). A worker hands each finished point's file to the
sweep's own process, which stores it (atomically, on disk: ``netsens.study.store``)
while the workers compute the next points, then counts it; a worker would otherwise
wait for the disk after every point. A sweep stopped at any moment -- Ctrl-C, SIGKILL,
a crash -- keeps every point it counted (Ctrl-C also stores those its workers had
finished) and, run again, computes only the missing ones. A point
whose run fails with a netsens error (a deadlock, a wrong answer, a bad override) is
recorded in ``failures/`` and the sweep goes on; a later sweep tries it again.

An application whose ops cannot depend on timing runs once per key, on the worker
the key is given to (``netsens.study.dispatch``); its recorded schedule produces the
key's other points there (``netsens.study.produce``), unless ``full`` asks for the
program at every point.
"""

import multiprocessing
import os
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from netsens.engine import run_goal
from netsens.errors import NetsensError
from netsens.study import claims, dispatch, produce, store, store_verify, timing
from netsens.study.definition import Point, Study
from netsens.study.storer import Storer

# Plain progress lines (stderr not a terminal) come at most this often, in s.
PLAIN_EVERY_S = 2.0


class SweepError(NetsensError):
    """The sweep itself could not go on (not one point's failure)."""


# What a worker answers for a point another sweep holds a claim on or has stored.
ELSEWHERE = "elsewhere"


class Outcome(NamedTuple):
    """What a worker answers for a point: the netsens error's class name (None when the
    point ran; ``ELSEWHERE`` when another sweep has it) and message; for a point that
    ran, why its matching can depend on timing (None: it cannot) and how it was
    produced (netsens.study.produce); for a point handed to the caller to store, its
    file's bytes (``store.encode_point``) and the holder of its claim, which the caller
    releases once the point is stored."""

    error: str | None
    message: str | None = None
    why: str | None = None
    how: str | None = None
    data: bytes | None = None
    holder: claims.Holder | None = None


@dataclass
class SweepSummary:
    """What a sweep did; ``failures`` holds each failed point's recorded error."""

    results_dir: Path
    total: int  # points in the study
    stored: int  # already stored when the sweep started (not run again)
    done: int  # run and stored by this sweep
    failed: int  # run by this sweep and failed
    wall_s: float
    failures: list[dict[str, Any]] = field(default_factory=list)
    elsewhere: int = 0  # claimed or stored by another sweep meanwhile (not run here)
    # Per workload run by this sweep: why its matching can depend on timing, or None.
    matching: dict[str, str | None] = field(default_factory=dict)
    # Points run by this sweep, by how each was produced (netsens.study.produce).
    produced: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def line(self) -> str:
        """One line with units, e.g. for the end of ``netsens sweep``."""
        ran = self.done + self.failed
        rate = f" ({ran / self.wall_s:.2f} points/s)" if ran and self.wall_s > 0 else ""
        other = f", {self.elsewhere} run by another sweep" if self.elsewhere else ""
        return (
            f"sweep: {ran} points run in {self.wall_s:.1f} s{rate}, {self.stored} already "
            f"stored, {self.failed} failed{other}; {self.stored + self.done}/{self.total} "
            f"points in {self.results_dir}"
        )

    def matching_line(self) -> str | None:
        """Which workloads run by this sweep can match messages by timing (None when
        it ran none)."""
        return timing.summary_line(self.matching) if self.matching else None

    def produced_line(self) -> str | None:
        """How the points this sweep ran were produced (None when it ran none)."""
        if not self.produced:
            return None
        n = self.produced
        return (
            f"produced: {n.get(produce.REPLAY, 0)} points by a recorded schedule, "
            f"{n.get(produce.RECORDED, 0)} by the program recording its schedule, "
            f"{n.get(produce.FULL, 0)} by the program in full"
        )


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def run_study(
    study: Study, jobs: int | None = None, progress: bool = True, full: bool = False
) -> SweepSummary:
    """Run every point of ``study`` that its results directory does not hold yet, on
    ``jobs`` processes (default: every core), printing progress on stderr when
    ``progress``; ``full`` runs every application point's program in full instead of
    its recorded schedule. Ctrl-C stops the workers and raises ``KeyboardInterrupt``,
    keeping every finished point."""
    start = time.perf_counter()
    points = study.points()
    root = study.results_dir
    (root / store.POINTS).mkdir(parents=True, exist_ok=True)
    store.remove_stale_temporaries(root)
    have = store_verify.verified_ids(root)  # damaged files moved aside: computed again
    store.write_manifest(root, study, points)
    todo = [p for p in points if p.point_id not in have]
    jobs = max(1, min(jobs or default_jobs(), len(todo)))
    if study.mode == "live":
        jobs = 1  # live points share the machine: one at a time
    summary = SweepSummary(root, len(points), len(points) - len(todo), 0, 0, 0.0)
    report = _Reporter(sys.stderr if progress else None, summary)
    report.start(study.name, len(todo), jobs)
    try:
        if todo:
            _run(todo, study.name, root, jobs, summary, report, full)
    except KeyboardInterrupt:
        report.close()
        # Count the files: workers may have stored points the loop has not seen yet.
        stored = len(store.stored_ids(root) & {p.point_id for p in points})
        report.say(
            f"sweep: interrupted; {stored}/{summary.total} points stored in {root}; run "
            "the same command again to continue"
        )
        raise
    finally:
        report.close()
    summary.wall_s = time.perf_counter() - start
    return summary


# Points given to a worker at a time: one it runs and one waiting, so that it never
# waits for this process between points.
QUEUED = 2


def _run(
    todo: list[Point],
    name: str,
    root: Path,
    jobs: int,
    summary: SweepSummary,
    report: Any,
    full: bool = False,
) -> None:
    context = multiprocessing.get_context("spawn")
    # A pool of one process per worker: the dispatcher chooses which worker runs what.
    pools = [
        ProcessPoolExecutor(1, mp_context=context, initializer=_ignore_sigint) for _ in range(jobs)
    ]
    dispatcher = dispatch.Dispatcher(todo, full)
    running: dict[Future[Outcome], tuple[int, Point]] = {}

    def count(point: Point, outcome: Outcome) -> None:
        _count(summary, root, point, outcome)
        report.advance()

    storer = Storer(root, count)

    def give(worker: int) -> None:
        point = dispatcher.next_for(worker)
        if point is not None:
            future = pools[worker].submit(_run_point, point, name, str(root), full, False)
            running[future] = worker, point

    try:
        # Workers inherit an ignored SIGINT: Ctrl-C reaches the terminal's whole process
        # group, and only this process should act on it.
        with _sigint_ignored():
            for _ in range(QUEUED):
                for worker in range(jobs):
                    give(worker)
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                worker, point = running[future]
                outcome = future.result()
                dispatcher.ran(point, outcome.how)
                give(worker)
                storer.put(point, outcome)
                del running[future]
        storer.close()
    except BrokenProcessPool:
        _stop(pools)
        storer.close_quietly()
        raise SweepError(
            "a worker process died (out of memory?); finished points are kept, run the "
            "same command again to continue"
        ) from None
    except OSError as e:
        # A full disk or a read-only directory: the points stored so far are whole.
        _stop(pools)
        storer.close_quietly()
        where = e.filename or root
        raise SweepError(
            f"cannot store a point: {e.strerror or e}: {where}; every point stored before is "
            "intact, run the same command again once the results directory is writable "
            "and has room"
        ) from None
    except KeyboardInterrupt:
        try:
            # Points the workers finished are computed: store them before stopping.
            for future, (_, point) in running.items():
                if future.done() and not future.cancelled() and future.exception() is None:
                    storer.put(point, future.result())
            storer.close()
        finally:
            _stop(pools)
        raise
    except BaseException:
        _stop(pools)
        storer.close_quietly()
        raise
    # Every worker told to end before waiting for any: they end together.
    for pool in pools:
        pool.shutdown(wait=False)
    for pool in pools:
        pool.shutdown()


def _count(summary: SweepSummary, root: Path, point: Point, outcome: Outcome) -> None:
    """Count a point's outcome in ``summary``; record a failure, clear an old one."""
    error, message, why, how = outcome[:4]
    if how is not None:
        summary.produced[how] = summary.produced.get(how, 0) + 1
    if error is None and (why or point.workload not in summary.matching):
        summary.matching[point.workload] = why  # one run that can, if any
    if error == ELSEWHERE:
        summary.elsewhere += 1
    elif error is None:
        store.clear_failure(root, point.point_id)
        summary.done += 1
    else:
        store.write_failure(root, point, error, message or "")
        summary.failed += 1
        summary.failures.append({"point": point.describe(), "error": error, "message": message})


@contextmanager
def _sigint_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pools: list[ProcessPoolExecutor]) -> None:
    """End the workers now; their points in flight are lost (never half-stored)."""
    processes = [p for pool in pools for p in getattr(pool, "_processes", {}).values()]
    for pool in pools:
        pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join()
    # Let the pools' manager threads see their workers gone and end now: left running,
    # they can meet closed pipes at interpreter exit and print a traceback after our
    # one line.
    for pool in pools:
        manager = getattr(pool, "_executor_manager_thread", None)
        if manager is not None:
            manager.join(timeout=5)


def _run_point(
    point: Point, name: str, results_dir: str, full: bool = False, store_here: bool = True
) -> Outcome:
    """Claim, run and store one point (in a worker); with ``store_here`` false, hand the
    point's file and its claim to the caller to store (``storer.store_handed_over``)."""
    holder = claims.Holder.current()
    if not claims.try_claim(results_dir, point.point_id, holder):
        other = claims.holder_of(results_dir, point.point_id)
        return Outcome(ELSEWHERE, other.describe() if other else "another sweep")
    handed_over = False
    try:
        # Stored by another sweep after this one started: nothing left to do.
        if (Path(results_dir) / store.POINTS / f"{point.point_id}.parquet").exists():
            return Outcome(ELSEWHERE, "stored")
        with claims.Heartbeat(results_dir, point.point_id, holder):
            outcome = _compute_point(point, name, full)
        if outcome.data is None:
            return outcome
        if store_here:
            store.store_point(results_dir, point.point_id, outcome.data)
            return outcome._replace(data=None)
        # Still claimed (this worker lives on) until the caller has stored it.
        handed_over = True
        return outcome._replace(holder=holder)
    finally:
        if not handed_over:
            claims.release(results_dir, point.point_id, holder)


def run_and_record(point: Point, name: str, results_dir: str) -> str | None:
    """Run one point as a sweep's worker does and record a failure as the sweep does
    (the point runner of the other executors, e.g. a Slurm task): None when stored,
    ``ELSEWHERE`` when another sweep has it, else the failure's message."""
    # One point per task: no later point could use a recorded schedule.
    error, message, *_ = _run_point(point, name, results_dir, full=True)
    if error is None:
        store.clear_failure(results_dir, point.point_id)
    elif error != ELSEWHERE:
        store.write_failure(results_dir, point, error, message or "")
        return f"{error}: {message}"
    return error


def _compute_point(point: Point, name: str, full: bool = False) -> Outcome:
    """Run one point: its file's bytes, or the netsens error it failed with."""
    from netsens import __version__

    start = time.perf_counter()
    try:
        if point.mode == "live":
            from netsens.live.run import run_live  # noqa: PLC0415 (live studies only)

            result = run_live(
                point.ranks,
                app=point.app,
                variant=point.variant,
                size=point.size or "small",
                seed=point.seed,
                platform=point.platform_path,
                overrides=point.overrides,
                mpi=point.mpi,
            )
        elif point.kind == "app":
            result = produce.app_point(point, full)
        elif point.beside or point.hosts is not None:
            result = _run_beside(point)
        else:
            assert point.goal_path is not None
            result = run_goal(
                point.goal_path, point.platform_path, point.overrides, point.seed, ranks=point.ranks
            )
    except NetsensError as e:
        return Outcome(type(e).__name__, str(e))
    wall_s = time.perf_counter() - start
    result.setdefault("produced", produce.FULL)
    data = store.encode_point(store.point_row(point, name, result, wall_s, __version__))
    return Outcome(None, None, timing.dependence(result), result["produced"], data)


def _run_beside(point: Point) -> dict[str, Any]:
    """A workload on its hosts beside the study's other jobs: the result of the whole
    run with the workload's own ranks and makespan, its makespan alone on the same hosts
    (``alone_makespan_ps``) and every job's (``jobs``)."""
    from netsens.jobs import run_jobs  # noqa: PLC0415 (studies with jobs only)

    assert point.goal_path is not None
    own = {"workload": point.goal_path, "hosts": point.hosts}
    jobs = [own] + [{"workload": path, "hosts": hosts} for _, path, hosts in point.beside]
    result = run_jobs(
        jobs, point.platform_path, point.overrides, point.seed, alone=bool(point.beside)
    )
    # Job 1's ranks are the run's first; its own traffic is theirs (the links' and the
    # size histogram's are the whole network's).
    first = result["jobs"][0]
    own_ranks = result["ranks"] = result["ranks"][: first["ranks"]]
    result["matrix"] = [m for m in result.get("matrix") or [] if m["src"] < first["ranks"]]
    result["messages"] = sum(r["sent_messages"] for r in own_ranks)
    result["bytes"] = sum(r["sent_bytes"] for r in own_ranks)
    result["makespan_ps"] = first["makespan_ps"]
    result["alone_makespan_ps"] = first.get("alone_makespan_ps")
    return result


class _Reporter:
    """Progress on stderr: a rich bar on a terminal, else a plain line every few s."""

    def __init__(self, stream: TextIO | None, summary: SweepSummary) -> None:
        self.stream, self.summary = stream, summary
        self.tty = stream is not None and stream.isatty()
        self.bar: Progress | None = None
        self.started = self.last = time.perf_counter()

    def say(self, line: str) -> None:
        if self.stream is not None:
            print(line, file=self.stream, flush=True)

    def start(self, name: str, to_run: int, jobs: int) -> None:
        s = self.summary
        self.say(
            f"sweep: study {name}: {s.total} points, {s.stored} already stored, {to_run} to "
            f"run on {jobs} processes; results in {s.results_dir}"
        )
        self.started = self.last = time.perf_counter()
        if self.tty and to_run:
            self.bar = Progress(
                TextColumn("sweep"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total} points"),
                TextColumn("{task.fields[rate]}, ETA {task.fields[eta]}{task.fields[failed]}"),
                TimeElapsedColumn(),
                console=Console(file=self.stream),
            )
            self.bar.start()
            self.task = self.bar.add_task(
                "sweep", total=s.total, completed=s.stored, rate="? points/s", eta="?", failed=""
            )

    def _rate_eta(self) -> tuple[str, str]:
        s = self.summary
        ran, elapsed = s.done + s.failed, time.perf_counter() - self.started
        if not ran or elapsed <= 0:
            return "? points/s", "?"
        rate = ran / elapsed
        left = (s.total - s.stored - ran) / rate
        eta = f"{left:.0f} s" if left < 120 else f"{left / 60:.1f} min"
        return f"{rate:.2f} points/s", eta

    def advance(self) -> None:
        s = self.summary
        rate, eta = self._rate_eta()
        finished = s.stored + s.done + s.failed
        failed = f", {s.failed} failed" if s.failed else ""
        if self.bar is not None:
            self.bar.update(self.task, completed=finished, rate=rate, eta=eta, failed=failed)
            return
        now = time.perf_counter()
        if now - self.last >= PLAIN_EVERY_S or finished == s.total:
            self.say(f"sweep: {finished}/{s.total} points, {rate}, ETA {eta}{failed}")
            self.last = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
