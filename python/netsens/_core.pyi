"""Type stub of ``netsens._core``, the native engine (crates/netsens-py).

Every run returns its result as JSON text (times are integer picoseconds); the
wrappers in :mod:`netsens.engine` and :mod:`netsens.api` parse it. Errors are the
exception classes below, each carrying the engine's one-line message.
"""

from collections.abc import Callable
from typing import Any

# Called every 2^20 events with (events, virtual time in ps, ops finished, ops in all);
# an exception raised in it stops the run and propagates.
ProgressFn = Callable[[int, int, int, int], object]
# Called every 64 MiB of GOAL text parsed with (bytes parsed, bytes in all).
ParseFn = Callable[[int, int], object]

class NetsensError(Exception):
    """Base class of every netsens error."""

class InputError(NetsensError):
    """Invalid input: a value, file, flag or schedule."""

class DeadlockError(NetsensError):
    """The simulated program cannot finish."""

class ProgramError(NetsensError):
    """The simulated program failed: a wrong answer or another error."""

def run_goal(
    path: str,
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    ranks: int | None = None,
    parsing: ParseFn | None = None,
    summary_over: int | None = None,
) -> str:
    """Run the GOAL file (or compiled schedule) at ``path``; ``ranks``, if given, must
    be its ``num_ranks``. ``parsing(bytes, total)`` is called as the text is parsed;
    with more ranks than ``summary_over``, ``ranks`` is empty and ``rank_summary``
    holds their number and each time's min, median and max."""

def forget_kept_read() -> None:
    """Let go of the trace or GOAL file an analysis kept as read (``keep_read``)."""

def memory_limit_bytes(text: str) -> int | None:
    """``NETSENS_MEMORY_LIMIT``'s value in bytes as the engine's allocator reads it,
    ``None`` when it cannot."""

def compile_goal(path: str, out: str) -> int:
    """Write the GOAL file at ``path`` to ``out`` as a compiled schedule; returns its
    operation count."""

def run_goal_text(
    text: str,
    name: str = "<goal>",
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    ranks: int | None = None,
) -> str:
    """Run GOAL ``text``; ``name`` labels it in error messages."""

def run_jobs(
    jobs: list[tuple[str, str, list[int] | None]],
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
) -> str:
    """Run ``jobs`` — (``"goal"`` or ``"trace"``, path, hosts or None for the next free
    ones in placement order) — side by side on the platform's topology; the JSON is a
    GOAL run's (ranks job after job) with ``jobs``: per job its workload, first rank,
    ranks, hosts and makespan."""

def run_app(
    name: str,
    ranks: int,
    size: str = "small",
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    variant: str | None = None,
    measured_compute: bool = False,
    recorded_work: list[list[int]] | None = None,
) -> str:
    """Run application ``name`` on ``ranks`` ranks at size preset ``size``; the JSON adds
    ``app``, ``size`` and ``verified`` (and ``variant`` for a wide-area application).
    ``measured_compute`` charges the thread CPU time of each piece of real work instead
    of its modelled cost (not deterministic) and the JSON then holds ``measured_work``:
    per rank, what each piece of work cost (ps), in order. ``recorded_work`` charges such
    a record instead, deterministically (a program whose work differs from the record's
    is an error)."""

class AppSchedule:
    """The schedule an application's program issued in one run (opaque; it stays in
    the process that recorded it)."""

    @property
    def ops(self) -> int: ...
    @property
    def nbytes(self) -> int: ...

def record_app_schedule(
    name: str,
    ranks: int,
    size: str = "small",
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    variant: str | None = None,
) -> tuple[str, AppSchedule | None]:
    """``run_app``'s JSON and the schedule its program issued (None when the program's
    ops can depend on timing: a wildcard receive, a test, a read of its clock, an
    active message)."""

def replay_app_schedule(
    schedule: AppSchedule,
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    matrix: bool = True,
    progress: ProgressFn | None = None,
) -> str | None:
    """``run_app``'s JSON for the recorded run's application, ranks, size, variant and
    seed on this platform, from the schedule instead of the program; None when the
    platform shows the program something else (its eager limit, its clusters)."""

def calibrate(platform: str = "loggopsim", overrides: dict[str, str] | None = None) -> str:
    """The seeds' LogP calibration on the platform's cluster level, as JSON: per parameter
    (L, o_s, o_r, g, G, O, S) ``unit``, ``dialled``, ``measured``, ``relative_error``, or
    for one the method cannot observe ``bound`` and ``why``; ``alpha`` and ``beta``."""

def apps() -> list[tuple[str, str, list[str]]]:
    """(name, one-line description, size presets) of every application."""

def app_variants(name: str) -> list[str]:
    """The variants application ``name`` accepts; empty for one without variants."""

def platform_toml(spec: str, overrides: dict[str, str] | None = None) -> str:
    """The resolved platform as TOML with units on every value."""

def platform_json(spec: str, overrides: dict[str, str] | None = None) -> str:
    """The resolved platform as JSON (times in ps)."""

def presets() -> list[tuple[str, str]]:
    """(name, one-line description) of every platform preset."""

def ace(
    specs: list[str],
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    ranks: int | None = None,
    seed: int = 0,
) -> str:
    """ACE's emulated applications run together, as JSON (see :func:`netsens.ace.emulator.ace`)."""

def ace_world(
    specs: list[str],
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    ranks: int | None = None,
) -> int:
    """The rank count a run of the EAs needs, the specifications checked, nothing run."""

# Trace replay (crates/netsens-py/src/trace.rs)
def run_trace(
    path: str,
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    ranks: int | None = None,
    collectives: str | None = None,
    compute: str | None = None,
    run: str | None = None,
    served: str | None = None,
    tracer_gap: str | None = None,
    poll_runs: str | None = None,
    tracer_call: str | None = None,
) -> str:
    """Replay the trace at ``path`` (an OTF2 archive's ``.otf2`` anchor file, or a
    liballprof trace's directory or rank file); JSON result. ``run``: of a trace of
    several runs, "median" (the default), "whole" or "N". ``poll_runs``: "wait" (the
    default) or "work", with ``tracer_call`` ("230ns") left out of each poll charged."""

def schedule_to_simgrid(
    path: str, platform: str, out: str, overrides: dict[str, str] | None = None, trace: bool = False
) -> tuple[int, int, int, list[str]]: ...
def app_schedule_to_simgrid(
    schedule: AppSchedule, platform: str, out: str, overrides: dict[str, str] | None = None
) -> tuple[int, int, int, list[str]]: ...
def trace_to_goal(path: str, out: str, collectives: str | None = None) -> tuple[int, int]:
    """Write the trace's GOAL form to ``out``; returns (ranks, operations)."""

def trace_ranks(path: str) -> int:
    """The trace's number of ranks, from its definitions only."""

def trace_info(path: str) -> str:
    """What the trace holds (tracer, ranks, clock, events, measured time, time between
    calls and replayed compute per rank, every MPI call with its count and what replay
    does with it), as JSON text."""

def trace_overhead_paid(path: str, up_to: int) -> str:
    """The o the traced program paid per message of at most ``up_to`` bytes: ``o_ps``
    (None when no message was started by a non-blocking call and completed by a test),
    ``up_to_bytes`` and per rank ``ends`` and ``paid_ps``, as JSON text."""

def write_trace_archive(
    dir: str,
    ranks: int,
    regions: list[str],
    events: list[tuple[int, str, int, int, int, int, int]],
) -> str:
    """Write an OTF2 archive event by event in the new directory ``dir``: each event is
    (rank, kind, time_ps, region, peer, bytes, request), kind enter, leave, send, recv,
    isend, isend_done, irecv_post or irecv_done; returns the anchor file's path."""

def write_scorep_style_trace(dir: str, variant: int) -> str:
    """Write netsens-trace's two-rank test archive in Score-P's conventions in the new
    directory ``dir`` (``variant``: its bits); returns the anchor file's path."""

def write_synthetic_trace(
    dir: str,
    ranks: int,
    iterations: int,
    compute_ns: int,
    bytes: int,
    allreduce_every: int,
    faults: int,
) -> str:
    """Write netsens-trace's synthetic archive (netsens's conventions) in the new directory
    ``dir``; returns the anchor file's path."""

def sensitivity_goal(
    path: str,
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    ask: dict[str, Any] | None = None,
    progress: ProgressFn | None = None,
    ranks: int | None = None,
) -> str:
    """Run the GOAL file once, recording its execution graph; the critical path,
    slopes, tolerances and curves as JSON. ``ask``: ``params``, ``epsilons``,
    ``curves``, ``at``, ``chain``, ``timeline``, ``graph`` (see netsens.sensitivity.analyze)."""

def sensitivity_trace(
    path: str,
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    ask: dict[str, Any] | None = None,
    progress: ProgressFn | None = None,
    ranks: int | None = None,
    collectives: str | None = None,
    compute: str | None = None,
) -> str:
    """As sensitivity_goal for the OTF2 archive at ``path``."""

def sensitivity_app(
    name: str,
    ranks: int,
    size: str = "small",
    platform: str = "loggopsim",
    overrides: dict[str, str] | None = None,
    seed: int = 0,
    ask: dict[str, Any] | None = None,
    progress: ProgressFn | None = None,
    variant: str | None = None,
) -> str:
    """As sensitivity_goal for application ``name`` on ``ranks`` ranks at ``size``."""
