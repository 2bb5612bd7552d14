"""The report tests' studies, in the stored-point schema of netsens.study.store: a
synthetic study whose run times follow a formula (so every slowdown is known by
hand), and a small real one run with netsens.run (radix and em3d-read, tiny, 4 ranks,
o and L swept).
"""

import json
import time
from pathlib import Path

from frames import stored_row

import netsens
from netsens.parameters import PARAMETERS
from netsens.study import store
from netsens.study.definition import point_id

US = 10**6  # ps per µs

# --- results in the stored-point schema ---------------------------------------

# now1997 as `netsens run --json` resolves it (G: 26315789 fs/B).
NOW1997 = {"L": 5.0 * US, "o": 2.9 * US, "g": 5.8 * US, "G": 26315.789}


def write_points(rows: list[dict], results: Path) -> Path:
    """Each row as results/points/<point_id>.parquet, written by the store (no
    study.json: every point on the curve it was stored with)."""
    for row in rows:
        store.write_point(results, row)
    return results


# The synthetic study: two workloads, 4 ranks, seeds 0 and 1, o, L, g and G swept.
# Run time = T0 * (1 + SEED_SPREAD * seed) + SENS * (x - x0) in ps, so the slowdown of
# every point follows by hand.
T0 = {"radix": 20_000 * US, "em3d-read": 2_000 * US}
SEED_SPREAD = 0.01
SENS = {  # ps of run time per canonical unit of the parameter
    "radix": {"o": 6_000.0, "L": 50.0, "g": 3_000.0, "G": 10_000.0},
    "em3d-read": {"o": 300.0, "L": 260.0, "g": 20.0, "G": 100.0},
}
AXES = {
    "o": [2.9 * US, 10 * US, 30 * US, 103 * US],
    "L": [5 * US, 25 * US, 50 * US, 100 * US],
    "g": [5.8 * US, 20 * US, 60 * US],
    "G": [26315.789, 100_000.0, 500_000.0],
}
SEEDS = [0, 1]


def synthetic_matrix(workload: str, ranks: int = 4) -> list[dict]:
    """radix: everyone to everyone, m(s, d) = 10 (s+1) + d; em3d-read: each rank to
    its right neighbour only, 7 (s+1) messages. 8 B per message."""
    out = []
    for s in range(ranks):
        for d in range(ranks):
            if workload == "radix":
                m = 10 * (s + 1) + d
            elif d == (s + 1) % ranks:
                m = 7 * (s + 1)
            else:
                continue
            out.append({"src": s, "dst": d, "messages": m, "bytes": 8 * m})
    return out


SYNTHETIC_HISTOGRAM = {
    "radix": [
        {"lo_bytes": 4, "hi_bytes": 7, "messages": 300, "bytes": 1500},
        {"lo_bytes": 64, "hi_bytes": 127, "messages": 28, "bytes": 2048},
    ],
    "em3d-read": [{"lo_bytes": 8, "hi_bytes": 15, "messages": 70, "bytes": 560}],
}
SYNTHETIC_PRIMITIVES = {
    "radix": [
        {"primitive": "store", "total": 300, "max": 80},
        {"primitive": "coll_send", "total": 28, "max": 7},
        {"primitive": "barrier", "total": 8, "max": 2},
    ],
    "em3d-read": [
        {"primitive": "get", "total": 60, "max": 20},
        {"primitive": "coll_send", "total": 10, "max": 3},
    ],
}


def synthetic_makespan(workload: str, seed: int, axis: str | None, x: float | None) -> int:
    t = T0[workload] * (1 + SEED_SPREAD * seed)
    if axis is not None:
        t += SENS[workload][axis] * (x - NOW1997[axis])
    return round(t)


def synthetic_row(
    workload: str, seed: int, axis: str, overrides: dict, params: dict, makespan: int
) -> dict:
    matrix = synthetic_matrix(workload)
    hist = SYNTHETIC_HISTOGRAM[workload]
    messages = sum(m["messages"] for m in matrix)
    volume = sum(m["bytes"] for m in matrix)
    sent = [sum(m["messages"] for m in matrix if m["src"] == r) for r in range(4)]
    sent_b = [sum(m["bytes"] for m in matrix if m["src"] == r) for r in range(4)]
    recv = [sum(m["messages"] for m in matrix if m["dst"] == r) for r in range(4)]
    return {
        "point_id": point_id(workload, "tiny", 4, "now1997", seed, overrides),
        "study": "synthetic",
        "workload": workload,
        "workload_kind": "app",
        "size": "tiny",
        "ranks": 4,
        "platform": "now1997",
        "seed": seed,
        "overrides": json.dumps(overrides, sort_keys=True),
        "axis": axis,
        **{PARAMETERS[p].column: v for p, v in params.items()},
        "O_ps_per_B": 0.0,
        "S_B": 65536.0,
        "wan_latency_ps": None,
        "wan_bandwidth_Bps": None,
        "cpu_speed": 1.0,
        "clusters": None,
        "makespan_ps": makespan,
        "verified": True,
        "messages": messages,
        "bytes": volume,
        "events": 10 * messages,
        "wall_s": 0.01,
        "messages_max": max(sent),
        "messages_mean": messages / 4,
        "recv_messages_max": max(recv),
        "bytes_max": max(sent_b),
        "bytes_mean": volume / 4,
        "primitives": SYNTHETIC_PRIMITIVES[workload],
        "matrix": matrix,
        "histogram": hist,
        "netsens_version": netsens.__version__,
    }


def synthetic_points() -> list[dict]:
    """The synthetic study as stored points (an axis value equal to the baseline's is
    the baseline point, not run twice)."""
    rows = []
    for workload in T0:
        for seed in SEEDS:
            base = synthetic_makespan(workload, seed, None, None)
            rows.append(synthetic_row(workload, seed, "baseline", {}, NOW1997, base))
            for axis, values in AXES.items():
                for x in values:
                    if x == NOW1997[axis]:
                        continue
                    params = NOW1997 | {axis: x}
                    overrides = {axis: f"{x}ps" if axis != "G" else f"{x}ps/B"}
                    makespan = synthetic_makespan(workload, seed, axis, x)
                    rows.append(synthetic_row(workload, seed, axis, overrides, params, makespan))
    return rows


# The real study: radix and em3d-read, tiny, 4 ranks on now1997, o and L swept.
REAL_AXES = {"o": ["2.9us", "10us", "30us"], "L": ["5us", "20us", "50us"]}
REAL_WORKLOADS = ["radix", "em3d-read"]


def real_points() -> list[dict]:
    rows = []
    for workload in REAL_WORKLOADS:
        for seed in (0, 1):
            runs = [("baseline", {})]
            for axis, values in REAL_AXES.items():
                runs += [(axis, {axis: v}) for v in values[1:]]  # values[0] is the baseline
            for axis, overrides in runs:
                start = time.perf_counter()
                result = netsens.run(workload, "now1997", 4, "tiny", seed, overrides)
                wall_s = time.perf_counter() - start
                rows.append(
                    stored_row(
                        result, axis=axis, overrides=overrides, study="real-tiny", wall_s=wall_s
                    )
                )
    return rows
