"""The check of each tolerance by full runs: a run at the tolerance and one a grid
step beyond it; where the run's order of events changed before the tolerance (the
record no longer holds), a search by full runs finds it instead.

Every step is bounded: per tolerance two runs, then at most MAX_DOUBLINGS runs going
out and MAX_HALVINGS coming back. Where a bound is reached the answer says what is
known (``delta_by_runs`` at least, ``delta_by_runs_at_most`` where a run above the
limit was found), instead of running on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from netsens.engine import run_app, run_goal

# The unit each parameter's values are in (the engine's names, see Param::name).
PER_BYTE = {"G", "O", "node.G", "node.O", "wan.G"}

# Parameters a full run can be set to alone, and the override that sets it: the
# cluster level's L, o, g, G, O (an override sets the node level too, so only on a
# platform without one), the wide-area link's latency and 1/bandwidth.
OVERRIDE = {
    **{name: name for name in ("L", "o", "g", "G", "O")},
    "wan.L": "wan_latency",
    "wan.G": "wan_bandwidth",
}

# The search by full runs doubles its step at most this often (2^40 times the first
# step: beyond any value a network takes) before it answers "at least" the last value
# that held; a run whose time stops growing with the parameter would otherwise double
# forever.
MAX_DOUBLINGS = 40
# It then halves the bracket at most this often: 64 halvings close any bracket of
# whole grid steps the doublings can reach (below 2^64 steps), so the bound is met
# only by an app's search, which stops earlier at APP_SEARCH_PRECISION.
MAX_HALVINGS = 64
# A rank program's full run costs far more than a schedule's: its search stops within
# this fraction of the increase (about 14 halvings) instead of at the exact grid step.
APP_SEARCH_PRECISION = 1e-4

# What a confirmation reports as it goes: (full runs done, full runs planned so far,
# what the last one was); planned grows where a search by runs starts.
ConfirmProgressFn = Callable[[int, int, str], None]


class Found(NamedTuple):
    """A search by full runs: ``lo`` the largest value known to hold; ``hi`` the
    least known not to (None: every value tried held, up to MAX_DOUBLINGS
    doublings); ``exact`` when ``hi`` is the grid step after ``lo``."""

    lo: float
    hi: float | None
    exact: bool


def search(
    fits: Callable[[float], bool], x0: float, guess: float, grid: float, precision: float = 0.0
) -> Found:
    """The largest x >= x0 on the grid (x0 + k·grid, k whole) with ``fits(x)``, from
    ``guess``, assuming ``fits`` holds up to some x and not beyond (T grows with each
    parameter). With ``precision``, it stops once the bracket is within that fraction
    of x - x0. The steps count in whole grid steps, so that every halving moves."""
    lo, hi = 0, max(round((guess - x0) / grid), 1)
    for _ in range(MAX_DOUBLINGS):
        if not fits(x0 + hi * grid):
            break
        lo, hi = hi, 2 * hi
    else:
        return Found(x0 + lo * grid, None, False)
    for _ in range(MAX_HALVINGS):
        if hi - lo <= 1 or hi - lo <= precision * hi:
            break
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(x0 + mid * grid) else (lo, mid)
    return Found(x0 + lo * grid, x0 + hi * grid, hi - lo <= 1)


class Workload(NamedTuple):
    """What a full run runs: an app (with its ranks, size, variant) or a GOAL file."""

    app: str | None
    ranks: int | None
    size: str
    variant: str | None
    goal: Any


def confirm(
    out: dict[str, Any],
    workload: Workload,
    platform: str,
    overrides: dict[str, str],
    seed: int,
    progress: ConfirmProgressFn | None = None,
) -> None:
    """Run in full at each tolerance and a step beyond: ``confirmed`` is whether the
    first ends at most (1 + ε)·T0 and the second later (``None``: a run cannot set
    this parameter alone, or the tolerance is unbounded). A KeyboardInterrupt leaves
    the tolerances not yet checked without ``confirmed`` and goes on up."""
    has_node = any(p["param"].startswith("node.") for p in out["params"])
    t0 = out["run"]["makespan_ps"]
    todo = [
        (p, tol)
        for p in out["params"]
        if p["param"] in OVERRIDE and not (has_node and "." not in p["param"])
        for tol in p["tolerance"]
        if tol["delta"] is not None
    ]
    planned, done = 2 * len(todo), 0

    def makespan(name: str, value: float, eps: float) -> int:
        nonlocal done
        unit = "ps/B" if name in PER_BYTE else "ps"
        text = f"{value:.3f}{unit}" if unit == "ps/B" else f"{int(value)}ps"
        point = {**overrides, OVERRIDE[name]: text}
        if workload.app is not None:
            r = run_app(
                workload.app,
                workload.ranks,
                workload.size,
                platform,
                point,
                seed,
                matrix=False,
                variant=workload.variant,
            )
        else:
            r = run_goal(workload.goal, platform, point, seed, matrix=False)
        done += 1
        if progress is not None:
            progress(done, planned, f"{name} at ε {100 * eps:g} %")
        return int(r["makespan_ps"])

    checked = {id(t) for _, t in todo}
    for p in out["params"]:
        for tol in p["tolerance"]:
            if id(tol) not in checked:
                tol["confirmed"] = None
    try:
        for p, tol in todo:
            before = done
            # A search by runs, where one starts, may take up to its bounds' runs.
            planned += MAX_DOUBLINGS + MAX_HALVINGS
            _check(p, tol, t0, workload.app is not None, makespan)
            planned += (done - before - 2) - (MAX_DOUBLINGS + MAX_HALVINGS)
    except KeyboardInterrupt:
        # What is known stays; the tolerances not (fully) checked say so.
        for _, tol in todo:
            if "confirmed" not in tol or (tol["confirmed"] is False and "delta_by_runs" not in tol):
                tol.setdefault("confirmed", None)
                tol["interrupted"] = True
        raise


def _check(
    p: dict[str, Any],
    tol: dict[str, Any],
    t0: int,
    app: bool,
    makespan: Callable[[str, float, float], int],
) -> None:
    """One tolerance of parameter ``p``: the runs at it and a grid step beyond, then,
    where they do not bracket the limit, the search by runs."""
    name, eps = p["param"], tol["epsilon"]
    # The engine's grid: 1 ps, or 1 fs/B for a per-byte cost.
    grid = 0.001 if p["unit"] == "ps/B" else 1.0
    # The analysis gives a whole number of grid steps (a float of them in ps/B).
    at = p["value"] + round(tol["delta"] / grid) * grid
    limit = (1 + eps) * t0
    t_at, t_beyond = makespan(name, at, eps), makespan(name, at + grid, eps)
    tol["at_ps"], tol["beyond_ps"] = t_at, t_beyond
    tol["confirmed"] = t_at <= limit < t_beyond
    if tol["confirmed"]:
        return
    # The run's order of events changed before the tolerance: full runs find it
    # instead (the largest value on the grid with T <= limit).
    found = search(
        lambda x: makespan(name, x, eps) <= limit,
        p["value"],
        at,
        grid,
        APP_SEARCH_PRECISION if app else 0.0,
    )
    if found.hi is None:
        # Every run up to the doublings' bound held: at least that much.
        tol["delta_by_runs"] = None
        tol["delta_by_runs_at_least"] = found.lo - p["value"]
    else:
        tol["delta_by_runs"] = found.lo - p["value"]
        if not found.exact:
            tol["delta_by_runs_at_most"] = found.hi - p["value"]
