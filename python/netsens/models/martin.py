"""Martin's simple models: a workload's run time under a changed parameter, predicted
from its own counters at the baseline (Martin, Vahdat, Culler, Anderson, ISCA'97, §5;
Martin's thesis, ch. 3).

Each model adds a cost to the baseline run time ``T0`` (the median over seeds of the
baseline makespan), the busiest rank's count of something times the change of one
parameter. Counters are the stored point's (``netsens.study.store.load``), medians over
seeds at the baseline; ``p0`` is the baseline value of the swept parameter. Times in
ps, per-byte costs in ps/B.

``overhead`` (axis o)
    ``T(o) = T0 + 2 · m · (o - o0)``, ``m = messages_max``: the most messages any rank
    sent. Every message costs o on the CPU at both of its ends, and the busiest
    processor receives about as many messages as it sends (Split-C requests and
    replies, exchanges), so each of its messages costs it 2·Δo more. This is the
    seed's model; it ignores the critical path through other CPUs, so it
    under-predicts request/reply programs (the seed: "the simple overhead model under
    predicts the run time" of EM3D(read)) and ping-pongs (exactly by half).

``gap`` (axis g)
    ``T(g) = T0 + m · (max(g, 2·o0) - max(g0, 2·o0))``, ``m = messages_max``. In a
    burst the busiest processor issues one message per 2·o0 (its send and the receive
    matching it, as above); g throttles it only once g exceeds that interval, then each
    message costs g. With ``g0 >= 2·o0`` this is the seed's ``T0 + m·Δg`` (its
    communication phases are bursty); below ``2·o0`` the curve is flat: g is hidden
    behind the CPU overhead.

``latency`` (axis L; rank programs only: GOAL schedules have no primitive counts)
    ``T(L) = T0 + h · (L - L0)``, ``h`` = one-way latencies on the busiest rank's chain
    (:func:`netsens.models.curves.latency_hops`): 2 per blocking read (get) and acknowledged
    put -- the seed's round trips × 2·ΔL -- 1 per store_sync, and each collective's
    depth (ceil(log2 P), or P - 1 for all-to-all). Streamed point-to-point messages
    are not counted: the seed finds programs without reads or synchronisation ignore
    latency, and EM3D(read) the one program this model fits.

``bulk`` (axis G)
    ``T(G) = T0 + B · (G - G0)``, ``B = bytes_max``: the most bytes any rank sent; each
    byte holds its NIC G longer (the seed's bulk-gap model, bytes × ΔG).

``per_byte_overhead`` (axis O; beyond the seed, same reasoning as ``overhead``)
    ``T(O) = T0 + B · ((O - O0) + (max(O, G0) - max(O0, G0)))``: the sender's CPU pays
    O per byte; the receiver's pays max(O, G) per byte (LOGGP.md), which grows only
    once O exceeds G.

No other axis has a model (S, wide-area, shape, CPU speed): :func:`model_table` has
no rows for them. Product-mode rows are left out: a model varies one parameter.
"""

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import polars as pl

from netsens.models.curves import KEYS, baselines, curves
from netsens.models.fit import fit_table
from netsens.parameters import PARAMETERS


@dataclass(frozen=True)
class Model:
    """A simple model on one axis: ``predict(baseline, value) -> added time (ps)``."""

    name: str
    axis: str
    count_name: str
    count: Callable[[dict[str, Any]], float]
    added: Callable[[dict[str, Any], float, float], float]  # (baseline, count, value)
    apps_only: bool = False


def _param(b: dict[str, Any], axis: str) -> float:
    value = b["params"][PARAMETERS[axis].column]
    return float(value) if value is not None else 0.0


def _gap(b: dict[str, Any], m: float, g: float) -> float:
    burst = 2 * _param(b, "o")
    return m * (max(g, burst) - max(_param(b, "g"), burst))


def _per_byte_overhead(b: dict[str, Any], nbytes: float, o_byte: float) -> float:
    o0, g0 = _param(b, "O"), _param(b, "G")
    return nbytes * ((o_byte - o0) + (max(o_byte, g0) - max(o0, g0)))


MODELS = [
    Model(
        "overhead",
        "o",
        "messages_max",
        lambda b: b["messages_max"],
        lambda b, m, o: 2 * m * (o - _param(b, "o")),
    ),
    Model("gap", "g", "messages_max", lambda b: b["messages_max"], _gap),
    Model(
        "latency",
        "L",
        "latency_hops",
        lambda b: b["hops"],
        lambda b, h, lat: h * (lat - _param(b, "L")),
        apps_only=True,
    ),
    Model(
        "bulk",
        "G",
        "bytes_max",
        lambda b: b["bytes_max"],
        lambda b, n, g: n * (g - _param(b, "G")),
    ),
    Model("per_byte_overhead", "O", "bytes_max", lambda b: b["bytes_max"], _per_byte_overhead),
]

# Axes in the order of PARAMETERS (L, o, g, G, O, S, wide-area, CPU speed, clusters).
ORDER = {name: i for i, name in enumerate(PARAMETERS)}

MODEL_SCHEMA = {
    "workload": pl.String,
    "size": pl.String,
    "ranks": pl.Int64,
    "axis": pl.String,
    "value": pl.Float64,
    "value_unit": pl.String,
    "model": pl.String,
    "count_name": pl.String,
    "count": pl.Float64,
    "seeds": pl.Int64,
    "measured_makespan_ps": pl.Float64,
    "measured_slowdown": pl.Float64,
    "predicted_makespan_ps": pl.Float64,
    "predicted_slowdown": pl.Float64,
    "rel_error": pl.Float64,
}


def model_table(df: pl.DataFrame) -> pl.DataFrame:
    """Every model against every measured point of its axis.

    One row per (workload, size, ranks, axis, value, model): the measured makespan
    (median over seeds, ps) and slowdown (median over seeds), the model's name, the
    counter it uses (``count_name``, ``count``: median over seeds at the baseline), the
    predicted makespan (ps) and slowdown (predicted / baseline makespan), and the
    relative error ``predicted / measured - 1`` (signed; > 0 over-predicts). ``value``
    is in its canonical unit (``value_unit``: ps, ps/B). A model that does not apply
    to an axis has no rows.
    """
    base = baselines(df)
    rows = []
    for c in curves(df).iter_rows(named=True):
        b = base.get(tuple(c[k] for k in KEYS))
        if b is None:
            continue
        t0 = b["makespan_ps"]
        for model in MODELS:
            if model.axis != c["axis"] or (model.apps_only and b["kind"] != "app"):
                continue
            count = float(model.count(b))
            predicted = t0 + model.added(b, count, float(c["value"]))
            measured = c["makespan_ps"]
            rows.append(
                {
                    **{k: c[k] for k in (*KEYS, "axis", "value", "value_unit", "seeds")},
                    "model": model.name,
                    "count_name": model.count_name,
                    "count": count,
                    "measured_makespan_ps": measured,
                    "measured_slowdown": c["slowdown"],
                    "predicted_makespan_ps": predicted,
                    "predicted_slowdown": predicted / t0 if t0 else None,
                    "rel_error": predicted / measured - 1 if measured else None,
                }
            )
    return pl.DataFrame(rows, schema=MODEL_SCHEMA)


@dataclass
class Explanation:
    """What one workload (at one size and rank count) is most sensitive to, and how
    well each fit and model explains each swept parameter.

    ``most_sensitive`` is the axis with the largest measured slowdown over its swept
    range (``max_slowdown``, reached at ``at_value`` in ``at_unit``), the seed's measure
    of sensitivity (its figures plot slowdown over each parameter's range); ties go to
    the larger elasticity. ``axes`` are the rows of :func:`netsens.models.fit.fit_table`;
    ``models`` summarise :func:`model_table` per (axis, model): the largest and mean
    absolute relative error over the points other than the baseline value.
    """

    workload: str
    size: str | None
    ranks: int
    baseline_makespan_ps: float
    most_sensitive: str | None
    max_slowdown: float | None
    at_value: float | None
    at_unit: str | None
    criterion: str = "largest slowdown over the swept range"
    axes: list[dict[str, Any]] = field(default_factory=list)
    models: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def explain(df: pl.DataFrame) -> list[Explanation]:
    """One :class:`Explanation` per (workload, size, ranks) of a results frame."""
    base = baselines(df)
    fits: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in fit_table(df).iter_rows(named=True):
        fits.setdefault(tuple(row[k] for k in KEYS), []).append(row)
    points: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in model_table(df).iter_rows(named=True):
        points.setdefault((*(row[k] for k in KEYS), row["axis"], row["model"]), []).append(row)
    out = []
    for key, b in sorted(base.items(), key=lambda kv: tuple(str(k) for k in kv[0])):
        axes = sorted(fits.get(key, []), key=lambda a: ORDER[a["axis"]])
        models = []
        for (*k, axis, name), group in points.items():
            if tuple(k) != key:
                continue
            p0 = b["params"][PARAMETERS[axis].column]
            errors = [
                abs(r["rel_error"])
                for r in group
                if r["value"] != p0 and r["rel_error"] is not None
            ]
            models.append(
                {
                    "axis": axis,
                    "model": name,
                    "count_name": group[0]["count_name"],
                    "count": group[0]["count"],
                    "points": len(errors),
                    "max_abs_rel_error": max(errors) if errors else None,
                    "mean_abs_rel_error": sum(errors) / len(errors) if errors else None,
                }
            )
        models.sort(key=lambda m: (ORDER[m["axis"]], m["model"]))
        best = max(
            (a for a in axes if a["max_slowdown"] is not None),
            key=lambda a: (a["max_slowdown"], a["elasticity"] or 0.0),
            default=None,
        )
        out.append(
            Explanation(
                workload=key[0],
                size=key[1],
                ranks=int(key[2]),
                baseline_makespan_ps=b["makespan_ps"],
                most_sensitive=best["axis"] if best else None,
                max_slowdown=best["max_slowdown"] if best else None,
                at_value=best["max_slowdown_at"] if best else None,
                at_unit=best["x_unit"] if best else None,
                axes=axes,
                models=models,
            )
        )
    return out
