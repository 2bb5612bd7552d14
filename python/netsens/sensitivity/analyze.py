"""One run, every sensitivity: the call into the engine, the ranges of the curves in
units, and the check of each tolerance by full runs where the program's matching can
depend on timing (or when asked).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from netsens import _core
from netsens.engine import ProgressFn, check_memory_limit, is_trace
from netsens.errors import InputError
from netsens.sensitivity.confirm import PER_BYTE, ConfirmProgressFn, Workload
from netsens.sensitivity.confirm import confirm as run_confirmation
from netsens.units import parse_quantity

# LLAMP's and the ε: 1, 2, 5 and 10 % of the run time.
EPSILONS = (0.01, 0.02, 0.05, 0.10)


def parse_epsilon(text: str) -> float:
    """``"5%"`` or ``"0.05"`` as a fraction; the engine checks it lies in (0, 1)."""
    t = text.strip()
    try:
        return float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise InputError(f'epsilon: "{text}" is not a fraction such as 0.05 or 5%') from None


def parse_curve(text: str) -> tuple[str, tuple[float, float] | None]:
    """``"L"`` (the default range) or ``"L=0us:20us"``, ``"G=1ns/B:10ns/B"``,
    ``"cpu=0.5:2"``: the parameter and its range in the engine's unit (ps, ps/B, or
    1/cpu_speed)."""
    name, sep, rng = text.partition("=")
    name = name.strip()
    if not sep:
        return name, None
    lo, colon, hi = rng.partition(":")
    if not colon:
        raise InputError(f'curve of {name}: "{rng}" is not a range low:high such as 0us:20us')
    return name, (_value(name, lo), _value(name, hi))


def parse_at(text: str) -> tuple[str, list[float]]:
    """``"L=1us,2us,5us"``, ``"G=1ns/B,10ns/B"``, ``"cpu=0.5,1"``: the parameter and
    its values in the engine's unit (ps, ps/B, or 1/cpu_speed)."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep:
        raise InputError(f'at {name}: "{text}" gives no values; write {name}=1us,2us')
    return name, [_value(name, v) for v in values.split(",") if v.strip()]


def _value(name: str, text: str) -> float:
    """One end of a range in the parameter's unit; a wrong unit is one error line."""
    try:
        if name == "cpu":
            return float(parse_quantity(name, text, ("number",)).value)
        if name in PER_BYTE:
            q = parse_quantity(name, text, ("per_byte",))
            # fs/B, or a bandwidth in B/s (1/B is its time per byte).
            return float(q.value) / 1000 if q.kind == "per_byte" else 1e12 / float(q.value)
        return float(parse_quantity(name, text, ("time",)).value)
    except ValueError as e:
        raise InputError(str(e)) from None


def _window(
    ranks: tuple[int, int], window: tuple[float, float] | None, items: int
) -> tuple[int, int, float, float, int]:
    first, last = ranks
    if not 0 <= first <= last:
        raise InputError(f"timeline ranks: {first}-{last} is not a range first <= last from 0")
    lo, hi = window if window is not None else (0.0, 1e300)
    if not 0 <= lo < hi:
        raise InputError(f"timeline window: {lo} to {hi} ps is not a range from 0 upwards")
    return first, last, float(lo), float(hi), items


def _check_threads() -> None:
    """``NETSENS_ANALYSIS_THREADS``, where set, is a number of threads (1 or more): the
    engine reads it once, and would otherwise take the cores it finds."""
    text = os.environ.get("NETSENS_ANALYSIS_THREADS")
    if text is not None and not (text.strip().isdigit() and int(text) >= 1):
        raise InputError(
            f'NETSENS_ANALYSIS_THREADS: "{text}" is not a number of threads (1 or more; '
            "unset it to use the cores this process may)"
        )


def analyze(
    goal: str | os.PathLike[str] | None = None,
    *,
    app: str | None = None,
    ranks: int | None = None,
    size: str = "small",
    variant: str | None = None,
    platform: str | os.PathLike[str] = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    seed: int = 0,
    params: Sequence[str] | None = None,
    epsilons: Iterable[float] = EPSILONS,
    curves: Iterable[str | tuple[str, tuple[float, float] | None]] = (),
    at: Iterable[str | tuple[str, Sequence[float]]] = (),
    chain: int = 200,
    confirm: bool = True,
    timeline: bool = False,
    timeline_ranks: tuple[int, int] = (0, 63),
    timeline_window: tuple[float, float] | None = None,
    timeline_items: int = 200_000,
    graph: str | None = None,
    progress: ProgressFn | None = None,
    confirm_progress: ConfirmProgressFn | None = None,
    threads: int | None = None,
    keep_read: bool = False,
) -> dict[str, Any]:
    """The sensitivity of a GOAL file or OTF2 trace (``goal``) or of application
    ``app`` on ``ranks`` ranks, from one run.

    Returns a dict with every time in ps: ``makespan_ps``; ``critical_path`` (its
    ``parts``: ps and share per compute, o, O, g, G, L per level, wide-area latency and
    bytes, link queueing, disk, noise; ``steps`` and the first ``chain`` operations it
    passes through); ``params``: per parameter its ``value`` (in ``unit``), the slopes
    ``slope_down``/``slope_up`` (ps per unit) and ``tolerance`` (per ε, the largest
    increase ``delta`` in the unit, ``None`` when T never passes (1 + ε)·T0);
    ``curves``: per curve asked for (``"L"``, ``"L=0us:20us"`` or ``("L", (lo, hi))``)
    its corners as ``[x, T]``; ``at``: per parameter asked values of (``"L=1us,2us"``
    or ``("L", [1e6, 2e6])``, in the unit of ``params``) its ``values`` and the
    ``makespan_ps`` there: the curve's values at those points alone, all in the same
    batched passes over the record, far cheaper than a curve's every corner;
    ``timing_dependent``: a receive had a wildcard, so the
    matching can change with timing; ``link_waits_held_fixed``: the platform has a
    ``[topology]``, whose links' time (route latency, transmission alone, queueing behind
    shared flows: their own parts of the critical path) slopes and curves hold at the
    run's values; ``run``: the run's own result.

    ``confirm`` (the default) runs the workload in full at each tolerance and a step
    beyond it (1 ps, or 1 fs/B) for the parameters a run can set alone, adding
    ``confirmed`` to each tolerance: the record is exact while the run's order of
    events holds, and far enough from the platform's values arrivals from several
    ranks can reach a receiver in another order. Where it is not confirmed, full runs
    search the tolerance (``delta_by_runs``), at most
    :data:`~netsens.sensitivity.confirm.MAX_DOUBLINGS` runs out and
    :data:`~netsens.sensitivity.confirm.MAX_HALVINGS` back: where a bound stops it,
    ``delta_by_runs_at_most`` (a run past the limit was found) or
    ``delta_by_runs_at_least`` (with ``delta_by_runs`` None: none was) says what is
    known. ``confirm_progress(done, planned, what)`` is called after each full run.
    Ctrl-C during them raises :class:`AnalysisInterrupted`, a KeyboardInterrupt whose
    ``partial`` is the answer so far (tolerances not checked: ``interrupted``).

    ``timeline`` adds ``timeline``: ranks ``timeline_ranks`` (first, last) within
    ``timeline_window`` (ps, default the whole run), at most ``timeline_items`` bars
    and messages; :func:`netsens.sensitivity.timeline.write_timeline` draws it.

    ``graph`` (a parameter name) adds ``graph``: every node's predecessors and its
    cost as lines ``[a, b]`` (a + b·x, ps) in that parameter, and the end node: the
    record as a linear program can take it (a run of at most 200 000 nodes).

    ``threads``: how many threads the analysis may use (the recorder beside the run,
    the passes' lanes); default ``NETSENS_ANALYSIS_THREADS`` or the cores, at most 4.
    One where other processes share the cores. The answer is the same either way.

    ``keep_read``: keep the trace or GOAL file as read (this process keeps the last
    one) for the next analysis of the same file read the same way, which then does
    not read it again (a comparison's points); any analysis without it lets it go,
    as does ``netsens._core.forget_kept_read()``. A file changed since (its size or
    modification time) is read anew.
    """
    check_memory_limit()
    _check_threads()
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise InputError(f"threads: {threads!r} is not a number of threads (1 or more)")
    ask: dict[str, Any] = {
        "threads": threads,
        "keep_read": keep_read,
        "params": list(params) if params is not None else None,
        "epsilons": list(epsilons),
        "curves": [parse_curve(c) if isinstance(c, str) else c for c in curves],
        "at": [parse_at(a) if isinstance(a, str) else (a[0], [float(v) for v in a[1]]) for a in at],
        "chain": chain,
        "timeline": _window(timeline_ranks, timeline_window, timeline_items) if timeline else None,
        "graph": graph,
    }
    common = (os.fspath(platform), dict(overrides or {}), seed)
    if app is not None:
        if goal is not None:
            raise InputError("give either a GOAL file or trace, or an app, not both")
        if ranks is None:
            raise InputError(f"ranks: required with an app (e.g. app={app!r}, ranks=4)")
        text = _core.sensitivity_app(
            app, ranks, size, *common, ask=ask, progress=progress, variant=variant
        )
    elif goal is None:
        raise InputError("give a GOAL file or trace, or an app")
    elif is_trace(goal):
        text = _core.sensitivity_trace(
            os.fspath(goal), *common, ask=ask, progress=progress, ranks=ranks
        )
    else:
        text = _core.sensitivity_goal(
            os.fspath(goal), *common, ask=ask, progress=progress, ranks=ranks
        )
    out: dict[str, Any] = json.loads(text)
    if out.get("timeline"):
        t = out["timeline"]
        t["ranks"][1] = min(t["ranks"][1], out["run"]["workload"]["ranks"] - 1)
        t["window_ps"][1] = min(t["window_ps"][1] or math.inf, out["makespan_ps"])
    if confirm:
        workload = Workload(app, ranks, size, variant, goal)
        try:
            run_confirmation(
                out, workload, os.fspath(platform), dict(overrides or {}), seed, confirm_progress
            )
        except KeyboardInterrupt:
            raise AnalysisInterrupted(out) from None
    return out


class AnalysisInterrupted(KeyboardInterrupt):
    """Ctrl-C during the confirmation's full runs: ``partial`` is the answer as far as
    it is known (the tolerances not checked have ``interrupted``)."""

    def __init__(self, partial: dict[str, Any]) -> None:
        super().__init__("interrupted")
        self.partial = partial
