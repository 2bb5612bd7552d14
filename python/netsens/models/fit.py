"""Fitted models of each measured curve: a line, a line with one bend, and the knee.

For each (workload, size, ranks, axis) the curve is the median makespan over seeds at
each swept value (:func:`netsens.models.curves.curves`), the baseline point included. It is
fitted as run time ``T`` in **seconds** against the parameter ``x`` in its fit unit
(``fit_unit`` of :data:`netsens.parameters.PARAMETERS`): µs for L, o, g and wide-area
latency; ns/B for G and O; B for S; ns/B of 1/B for a wide-area bandwidth; 1/speed for
the CPU speed. So a slope reads "seconds of run time per µs of o" (``slope_unit``
spells it). The cluster shape is not fitted.

- **Linear**: least squares ``T = a + b·x``; ``r2`` = 1 - SSE/SST (null when the
  curve is constant, SST = 0).
- **Elasticity at the baseline**: ``b · x0 / T0`` (d ln T / d ln x of the fitted line
  at the baseline value x0, with T0 the measured baseline run time): the percentage
  change of run time per percent change of the parameter. Null when x0 is 0.
- **Piecewise linear, one breakpoint** (a continuous hinge):
  ``T = a + b1·min(x - c, 0) + b2·max(x - c, 0)``. For a given breakpoint c it is
  linear least squares in (a, b1, b2); c is searched in every interval between
  consecutive values from the second to the second-to-last value (so that each side
  keeps at least two points): the interval's ends, the crossing of the two sides'
  own lines when it falls inside, and a bounded Brent minimisation
  (scipy.optimize.minimize_scalar) of the SSE over the interval; the best wins.
  Noiseless data with its bend strictly inside that range is recovered exactly.
  Needs four distinct values, else null.
- **Knee** (where a flat region ends: Martin's flat regions, Plaat's saturation
  points): the hinge's breakpoint when the curve is flat on the left and rising on
  the right -- ``b2 > 0`` and ``|b1| <= 0.1·b2`` -- the hinge fits clearly better than
  the line (SSE at most half), and the rise is material: ``b2·(x_max - c)`` at least
  1% of the run time at the breakpoint. Null otherwise (no flat region, a straight
  line, a flat curve). Every fitted variable grows as the machine gets slower, so
  the flat region is always on the left.
"""

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy.optimize import minimize_scalar

from netsens.models.curves import KEYS, baselines, curves
from netsens.parameters import PARAMETERS

# |left slope| <= KNEE_FLAT · right slope makes the left side flat.
KNEE_FLAT = 0.1
# The hinge must leave at most this share of the line's squared error.
KNEE_GAIN = 0.5
# The rise after the knee, over the swept range, relative to the run time at the knee.
KNEE_MIN_RISE = 0.01


@dataclass(frozen=True)
class LineFit:
    """``y = intercept + slope·x``; ``r2`` is None for a constant y."""

    slope: float
    intercept: float
    r2: float | None
    sse: float


@dataclass(frozen=True)
class HingeFit:
    """``y = level + left_slope·min(x - breakpoint, 0) + right_slope·max(x - breakpoint, 0)``."""

    breakpoint: float
    level: float
    left_slope: float
    right_slope: float
    r2: float | None
    sse: float


def _r2(y: np.ndarray, sse: float) -> float | None:
    sst = float(np.sum((y - y.mean()) ** 2))
    if sst == 0.0:
        return None
    return 1.0 - sse / sst


def linear_fit(x: np.ndarray, y: np.ndarray) -> LineFit:
    """Least-squares line through (x, y); needs two distinct x."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    design = np.column_stack([np.ones_like(x), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ coef
    sse = float(residual @ residual)
    return LineFit(slope=float(coef[1]), intercept=float(coef[0]), r2=_r2(y, sse), sse=sse)


def _hinge_at(x: np.ndarray, y: np.ndarray, c: float) -> tuple[float, np.ndarray]:
    design = np.column_stack([np.ones_like(x), np.minimum(x - c, 0.0), np.maximum(x - c, 0.0)])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ coef
    return float(residual @ residual), coef


def hinge_fit(x: np.ndarray, y: np.ndarray) -> HingeFit | None:
    """The best continuous two-piece line through (x, y) (see the module's text);
    None with fewer than four distinct x."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    xs = np.unique(x)
    n = len(xs)
    if n < 4:
        return None
    tol = 1e-12 * float(xs[-1] - xs[0])
    best: tuple[float, float, np.ndarray] | None = None

    def consider(c: float) -> None:
        nonlocal best
        sse, coef = _hinge_at(x, y, c)
        if best is None or sse < best[0]:
            best = (sse, c, coef)

    for i in range(1, n - 2):
        lo, hi = float(xs[i]), float(xs[i + 1])
        consider(lo)
        consider(hi)
        left, right = x <= lo, x >= hi
        a = linear_fit(x[left], y[left])
        b = linear_fit(x[right], y[right])
        if a.slope != b.slope:
            crossing = (b.intercept - a.intercept) / (a.slope - b.slope)
            if lo < crossing < hi:
                consider(crossing)
        found = minimize_scalar(
            lambda c: _hinge_at(x, y, c)[0],
            bounds=(lo, hi),
            method="bounded",
            options={"xatol": max(tol, 1e-9 * (hi - lo))},
        )
        consider(float(found.x))
    assert best is not None
    sse, c, coef = best
    return HingeFit(
        breakpoint=c,
        level=float(coef[0]),
        left_slope=float(coef[1]),
        right_slope=float(coef[2]),
        r2=_r2(y, sse),
        sse=sse,
    )


def find_knee(x: np.ndarray, line: LineFit, hinge: HingeFit | None) -> float | None:
    """The breakpoint where a flat region ends, or None (the rule in the module's text)."""
    if hinge is None:
        return None
    b1, b2 = hinge.left_slope, hinge.right_slope
    if not b2 > 0 or abs(b1) > KNEE_FLAT * b2:
        return None
    if hinge.sse > KNEE_GAIN * line.sse:
        return None
    rise = b2 * (float(np.max(x)) - hinge.breakpoint)
    if hinge.level <= 0 or rise < KNEE_MIN_RISE * hinge.level:
        return None
    return hinge.breakpoint


def elasticity(slope: float, x0: float | None, y0: float) -> float | None:
    """d ln y / d ln x of a line of ``slope`` at (x0, y0); None when x0 is 0 or unknown."""
    if x0 is None or x0 == 0 or not math.isfinite(x0) or y0 == 0:
        return None
    return slope * x0 / y0


FIT_SCHEMA = {
    "workload": pl.String,
    "size": pl.String,
    "ranks": pl.Int64,
    "axis": pl.String,
    "x_name": pl.String,
    "x_unit": pl.String,
    "points": pl.Int64,
    "x_min": pl.Float64,
    "x_max": pl.Float64,
    "baseline_x": pl.Float64,
    "baseline_makespan_s": pl.Float64,
    "max_slowdown": pl.Float64,
    "max_slowdown_at": pl.Float64,
    "slope": pl.Float64,
    "slope_unit": pl.String,
    "intercept_s": pl.Float64,
    "r2": pl.Float64,
    "elasticity": pl.Float64,
    "hinge_breakpoint": pl.Float64,
    "hinge_slope_left": pl.Float64,
    "hinge_slope_right": pl.Float64,
    "hinge_r2": pl.Float64,
    "knee": pl.Float64,
}


def fit_table(df: pl.DataFrame) -> pl.DataFrame:
    """Per (workload, size, ranks, axis) with at least two distinct numeric values:

    ``x_name``/``x_unit`` (the fitted variable), ``points``, ``x_min``, ``x_max``,
    ``baseline_x`` (in ``x_unit``); ``baseline_makespan_s``; ``max_slowdown`` (the
    largest median slowdown on the curve) and ``max_slowdown_at`` (x); the line's
    ``slope`` (s per ``x_unit``, spelled in ``slope_unit``), ``intercept_s``, ``r2``;
    ``elasticity``; the hinge's ``hinge_breakpoint`` (x), ``hinge_slope_left``,
    ``hinge_slope_right`` (s per ``x_unit``), ``hinge_r2``; ``knee`` (x, or null).
    """
    base = baselines(df)
    rows = []
    for (*key, axis_name), group in curves(df).group_by([*KEYS, "axis"], maintain_order=True):
        p = PARAMETERS[axis_name]
        b = base.get(tuple(key))
        if p.fit_unit is None or b is None:
            continue
        points = {float(p.to_fit(v)): (t / 1e12, s) for v, t, s in group.select(
            "value", "makespan_ps", "slowdown").iter_rows()}  # fmt: skip
        t0 = b["makespan_ps"] / 1e12
        p0 = b["params"][p.column]
        x0 = float(p.to_fit(p0)) if p0 is not None else None
        if x0 is not None and math.isfinite(x0):
            points.setdefault(x0, (t0, 1.0))
        points = {xv: ts for xv, ts in points.items() if math.isfinite(xv)}
        if len(points) < 2:
            continue
        x = np.array(sorted(points))
        y = np.array([points[v][0] for v in x])
        slowdowns = [points[v][1] for v in x]
        line = linear_fit(x, y)
        hinge = hinge_fit(x, y)
        top = int(np.argmax(slowdowns))
        rows.append(
            {
                **dict(zip(KEYS, key, strict=True)),
                "axis": axis_name,
                "x_name": p.fit_name,
                "x_unit": p.fit_unit,
                "points": len(x),
                "x_min": float(x[0]),
                "x_max": float(x[-1]),
                "baseline_x": x0,
                "baseline_makespan_s": t0,
                "max_slowdown": slowdowns[top],
                "max_slowdown_at": float(x[top]),
                "slope": line.slope,
                "slope_unit": f"s per {p.fit_unit}",
                "intercept_s": line.intercept,
                "r2": line.r2,
                "elasticity": elasticity(line.slope, x0, t0),
                "hinge_breakpoint": hinge.breakpoint if hinge else None,
                "hinge_slope_left": hinge.left_slope if hinge else None,
                "hinge_slope_right": hinge.right_slope if hinge else None,
                "hinge_r2": hinge.r2 if hinge else None,
                "knee": find_knee(x, line, hinge),
            }
        )
    return pl.DataFrame(rows, schema=FIT_SCHEMA)
