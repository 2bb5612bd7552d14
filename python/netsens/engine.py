"""The engine seen from Python: thin wrappers over ``netsens._core`` that return dicts.

``run_goal`` replays a GOAL schedule, ``run_app`` runs one of the rank programs that
``apps`` lists (see :mod:`netsens.api` for the same as a ``RunResult`` with polars
frames), ``calibrate`` recovers a platform's parameters with the seeds' microbenchmarks.

A run result holds every time as integer picoseconds (keys end in ``_ps``): the
makespan, a per-rank breakdown, message and byte counts, the size histogram, the
(src, dst) matrix, wide-area traffic, and the resolved platform, workload and seed.
Overrides map a parameter name (``L o g G O S`` are case-sensitive, or ``rendezvous``,
``cpu_speed``, ``clusters``, ``ranks_per_node``, ``cores_per_node``, ``wan_latency``,
``wan_bandwidth``, ``wan_shape``) to a value with its unit, such as ``{"L": "5us", "S": "64KiB"}``.
"""

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from netsens import _core
from netsens.errors import InputError

PathLike = str | os.PathLike[str]
# Called every 2^20 events with (events, virtual time in ps, ops finished, ops in all);
# an exception raised in it stops the run and propagates.
ProgressFn = Callable[[int, int, int, int], None]
# Called every 64 MiB of GOAL text parsed with (bytes parsed, bytes in all).
ParseFn = Callable[[int, int], None]


def check_memory_limit() -> None:
    """``NETSENS_MEMORY_LIMIT`` caps the engine's memory (its allocator reads it, see
    docs/reference/limits.md); a value it could not read would be no cap at all, so it is an
    error before a run rather than silently ignored."""
    text = os.environ.get("NETSENS_MEMORY_LIMIT")
    if text is not None and _core.memory_limit_bytes(text) is None:
        raise InputError(
            f'NETSENS_MEMORY_LIMIT: "{text}" is not a size below 2^64 bytes; '
            "write bytes such as 8GiB or 512MiB"
        )


def run_goal(
    path: PathLike,
    platform: PathLike = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    ranks: int | None = None,
    collectives: str | None = None,
    compute: str | None = None,
    parsing: ParseFn | None = None,
    summary_over: int | None = None,
    run: str | None = None,
    served: str | None = None,
    tracer_gap: str | None = None,
    poll_runs: str | None = None,
    tracer_call: str | None = None,
) -> dict[str, Any]:
    """Replay the GOAL schedule at ``path`` on ``platform`` (a preset name or a TOML file).

    ``ranks``, if given, must equal the file's ``num_ranks``. A trace (:func:`is_trace`:
    an OTF2 archive, as ``netsens trace`` or Score-P writes it, a liballprof or DUMPI trace,
    docs/guides/traces.md) is replayed from its records: its sends and receives, its
    collectives expanded (with MPICH's algorithms, or ``collectives``' choice, e.g.
    ``"bcast=linear,allreduce=reduce-bcast"``), the compute between its MPI calls
    scaled by the platform's ``cpu_speed``; ``workload.kind`` is then ``"trace"``. That
    compute is the ranks' thread CPU time where the archive records it (``compute`` =
    ``"cpu"``, the default), or the wall time between the calls (``"wall"``);
    ``workload.compute_clock`` says which was used, ``workload.tracer`` what wrote the
    trace, and ``workload.warnings`` where the compute charged exceeds what the trace
    measured. A trace that records several runs (its recording paused between them,
    as ``netsens trace --repeat K`` or a program's own ``MPI_Pcontrol`` pauses leave
    it) reports its median run: every run replayed on
    its own, the one with the median end time (the lower middle one for an even count)
    reported, as ``live --repeat`` reports its median run; ``run`` asks for another:
    ``"whole"`` (the archive as one recording) or a run number from 1 (``"2"``).
    ``workload`` then holds ``runs``, the ``run`` reported and ``run_makespans_ps``.
    ``served`` names communicators whose messages the program serves as they come
    (``"1,3"``: their OTF2 references; ``"none"``; by default ``"auto"``, those the
    trace shows: every message on it sent synchronously, every receive posted on the
    probe that found it and completed by a test): a receive on one that a test
    completes orders nothing after it (docs/guides/replay-fidelity.md);
    ``workload.served`` says which. The tracer's own cost in each gap
    between calls, which netsens's tracer records in the archive, is removed from the
    compute (``workload.tracer_gap_ps`` per rank, ``workload.tracer_removed_ps`` what
    was removed); ``tracer_gap`` (``"85ns"``) gives that cost instead (``"0ps"``: the
    gaps charged whole). ``poll_runs="work"`` charges a run of polls that found nothing
    and ended in new work (a send, not what it polled for) as the rank's compute, less
    ``tracer_call`` (``"230ns"``: the tracer's cost inside each poll), where the
    default ``"wait"`` leaves it out (``workload.poll_runs_charged_ps``: what was
    charged per rank; docs/guides/replay-fidelity.md).

    ``parsing(bytes, total)`` is called as a GOAL file's text is parsed. With more
    ranks than ``summary_over`` (a GOAL file only), ``ranks`` is empty and
    ``rank_summary`` holds their number and the ``min``, ``median`` (the lower
    middle) and ``max`` of each rank time (a run of millions of ranks reads back in
    a moment).
    """
    extra = (collectives, compute, parsing, summary_over, run, served, tracer_gap)
    extra += (poll_runs, tracer_call)
    text = run_goal_json(path, platform, overrides, seed, matrix, progress, ranks, *extra)
    return json.loads(text)


def run_goal_json(
    path: PathLike,
    platform: PathLike = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    ranks: int | None = None,
    collectives: str | None = None,
    compute: str | None = None,
    parsing: ParseFn | None = None,
    summary_over: int | None = None,
    run: str | None = None,
    served: str | None = None,
    tracer_gap: str | None = None,
    poll_runs: str | None = None,
    tracer_call: str | None = None,
) -> str:
    """``run_goal``'s result as the engine's JSON text, unparsed."""
    check_memory_limit()
    args = (os.fspath(path), os.fspath(platform), dict(overrides or {}), seed, matrix, progress)
    if is_trace(path):
        trace_options = (collectives, compute, run, served, tracer_gap, poll_runs, tracer_call)
        return _core.run_trace(*args, ranks, *trace_options)
    if collectives:
        raise InputError(f"collectives: {collectives!r} applies to traces, not GOAL files")
    if compute:
        raise InputError(f"compute: {compute!r} applies to traces, not GOAL files")
    if run:
        raise InputError(f"run: {run!r} applies to traces, not GOAL files")
    if served and served != "auto":
        raise InputError(f"served: {served!r} applies to traces, not GOAL files")
    if tracer_gap:
        raise InputError(f"tracer_gap: {tracer_gap!r} applies to traces, not GOAL files")
    if poll_runs or tracer_call:
        given = poll_runs or tracer_call
        raise InputError(f"poll_runs: {given!r} applies to traces, not GOAL files")
    return _core.run_goal(*args, ranks, parsing, summary_over)


def is_trace(path: PathLike) -> bool:
    """Whether ``path`` names a trace rather than a GOAL file: an OTF2 archive (its
    ``.otf2`` anchor file), a liballprof rank file (``pmpi-trace-rank-N.txt`` or
    ``htor-coll-rank-N.dat``), a DUMPI
    trace's ``.meta`` file or a directory (a liballprof or DUMPI trace's; the trace
    reader says what else it is)."""
    text = os.fspath(path)
    name = os.path.basename(text)
    liballprof = (name.startswith("pmpi-trace-rank-") and name.endswith(".txt")) or (
        name.startswith("htor-coll-rank-") and name.endswith(".dat")
    )
    return text.endswith((".otf2", ".meta")) or liballprof or os.path.isdir(text)


def trace_info(path: PathLike) -> dict[str, Any]:
    """What the trace at ``path`` holds (``netsens trace info``): tracer, ranks, clock,
    events, each rank's measured time, time with measurement off, time between its calls
    and the compute replay charges it (ps; None where replay refuses the trace, and
    ``replay_refused`` says why; ``compute_clock`` names that compute's clock), and every
    MPI call with its count and what replay does with it."""
    return json.loads(_core.trace_info(os.fspath(path)))


def trace_overhead_paid(path: PathLike, up_to_bytes: int) -> dict[str, Any]:
    """The o the program traced at ``path`` paid per message of at most ``up_to_bytes``
    (docs/guides/replay-fidelity.md): each message started by a non-blocking call and
    completed by a test pays both calls' durations (a call's shared among the requests
    it started or completed); ``o_ps`` is their sum over all ranks divided by the number
    of such message ends (None when there is none), ``ranks`` holds each rank's
    ``ends`` and ``paid_ps``."""
    return json.loads(_core.trace_overhead_paid(os.fspath(path), up_to_bytes))


def trace_to_goal(path: PathLike, out: PathLike, collectives: str | None = None) -> tuple[int, int]:
    """Write the GOAL schedule equivalent to the trace at ``path`` (collectives
    expanded) to ``out``; returns (ranks, operations)."""
    return _core.trace_to_goal(os.fspath(path), os.fspath(out), collectives)


def to_simgrid(
    workload: PathLike,
    platform: PathLike,
    out: PathLike,
    overrides: Mapping[str, str] | None = None,
    ranks: int | None = None,
    size: str = "small",
    seed: int = 0,
    variant: str | None = None,
) -> tuple[int, int, int, list[str]]:
    """Write ``workload`` on ``platform`` as SimGrid's time-independent trace, its platform
    and a script that replays it into directory ``out`` (``netsens goal to-simgrid``);
    returns (ranks, actions, routes, notes on what SimGrid does differently).

    ``workload`` is a GOAL file, a compiled schedule, a trace, or an application name
    (``ranks``, ``size``, ``seed`` and ``variant`` then say which run): its program's
    schedule is recorded on the platform and exported step by step.
    """
    check_memory_limit()
    text = os.fspath(workload)
    platform, out = os.fspath(platform), os.fspath(out)
    if os.path.exists(text):
        return _core.schedule_to_simgrid(text, platform, out, dict(overrides or {}), is_trace(text))
    if ranks is None:
        raise InputError(f"{text}: no such file; an application needs its ranks (--ranks)")
    args = (text, ranks, size, platform, dict(overrides or {}), seed, False, None, variant)
    _, schedule = _core.record_app_schedule(*args)
    if schedule is None:
        raise InputError(
            f"{text}: its messages depend on timing (a receive from any source, a test, "
            "a one-sided or active message), so it has no fixed schedule to export"
        )
    return _core.app_schedule_to_simgrid(schedule, platform, out, dict(overrides or {}))


def run_goal_text(
    text: str,
    name: str = "<goal>",
    platform: PathLike = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """Replay GOAL ``text``; ``name`` labels it in error messages."""
    result = _core.run_goal_text(
        text, name, os.fspath(platform), dict(overrides or {}), seed, matrix, progress
    )
    return json.loads(result)


def run_app(
    name: str,
    ranks: int,
    size: str = "small",
    platform: PathLike = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    variant: str | None = None,
) -> dict[str, Any]:
    """Run application ``name`` (see ``apps``) on ``ranks`` ranks at size preset ``size``.

    ``seed`` seeds the application's generated data and the platform's noise. The result
    adds ``app``, ``size`` and ``verified`` (the program checked its answer) to the
    fields of ``run_goal``, and ``phases`` and ``primitives`` are filled in. ``variant``
    (``original`` or ``optimized``) picks a wide-area application's form, which the
    result names as ``variant``; other applications refuse it.
    """
    return json.loads(
        run_app_json(name, ranks, size, platform, overrides, seed, matrix, progress, variant)
    )


def run_app_json(
    name: str,
    ranks: int,
    size: str = "small",
    platform: PathLike = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    seed: int = 0,
    matrix: bool = True,
    progress: ProgressFn | None = None,
    variant: str | None = None,
) -> str:
    """``run_app``'s result as the engine's JSON text, unparsed."""
    check_memory_limit()
    return _core.run_app(
        name,
        ranks,
        size,
        os.fspath(platform),
        dict(overrides or {}),
        seed,
        matrix,
        progress,
        variant,
    )


def calibrate(
    platform: PathLike = "loggopsim", overrides: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The seeds' LogP calibration on ``platform``'s cluster level.

    ``parameters`` lists L, o_s, o_r, g, G, O and S, each with its ``unit`` (``ps``,
    ``ps/B``, ``B``), ``dialled`` and ``measured`` values and ``relative_error``; a
    parameter the method cannot observe has ``measured`` ``None``, the ``bound`` it
    proves (``{"kind": "at_most" | "at_least", "value": ...}``) and ``why``. ``alpha``
    and ``beta`` are the line of half a round trip, measured and as the model predicts.
    """
    return json.loads(calibrate_json(platform, overrides))


def calibrate_json(
    platform: PathLike = "loggopsim", overrides: Mapping[str, str] | None = None
) -> str:
    """``calibrate``'s result as the engine's JSON text, unparsed."""
    return _core.calibrate(os.fspath(platform), dict(overrides or {}))


def apps() -> list[tuple[str, str, list[str]]]:
    """(name, one-line description, size presets) of every application."""
    return list(_core.apps())


def app_variants(name: str) -> list[str]:
    """The variants application ``name`` accepts (``original``, ``optimized``); empty
    for an application without variants."""
    return list(_core.app_variants(name))


def platform_toml(spec: PathLike, overrides: Mapping[str, str] | None = None) -> str:
    """The resolved platform as TOML, every value with its unit."""
    return _core.platform_toml(os.fspath(spec), dict(overrides or {}))


def presets() -> list[tuple[str, str]]:
    """(name, one-line description) of every platform preset."""
    return list(_core.presets())


def compile_goal(path: PathLike, out: PathLike) -> int:
    """Write the GOAL file at ``path`` to ``out`` as a compiled schedule (``.nsg``,
    read wherever a GOAL file is, without parsing); returns its operation count."""
    return _core.compile_goal(os.fspath(path), os.fspath(out))
