"""The comparison's answer from its points: each network's run time and ratio to the
best, where its critical path's time went, its busiest links, its tolerances and the
one change that would help most; as one JSON document and as terminal tables."""

from __future__ import annotations

from typing import Any

from netsens.compare.workload import Workload
from netsens.units_format import format_time

# The parameters whose tolerances are shown, in this order.
TOLERANCES = ("L", "o", "g", "G", "O", "wan.L", "wan.G")
# Critical-path parts in the order shown; "links" joins the topology's three rows.
PARTS = (
    "compute",
    "o",
    "O",
    "L",
    "g",
    "G",
    "route latency",
    "link transmission",
    "link queueing",
    "wan.L",
    "wan.G",
)


def computation_note(workload: Workload, cpu_speeds: dict[str, float]) -> str:
    """What the compute time is: the traced machine's, unless a CPU speed says otherwise."""
    if workload.app:
        base = "the application's compute is charged at the suite's 1 Gflop/s cost unit"
    else:
        base = "the trace's computation is the traced machine's (as measured)"
    if not cpu_speeds:
        return f"{base}; give --cpu-speed to state the target nodes' speed relative to it"
    given = ", ".join(
        f"{'all networks' if k == '*' else k} x{v:g}" for k, v in sorted(cpu_speeds.items())
    )
    return f"{base}, scaled by the CPU speed given: {given}"


def label(row: dict[str, Any]) -> str:
    return row["network"] + (f" @{row['placement']}" if row.get("placements_compared") else "")


def document(
    workload: Workload, rows: list[dict[str, Any]], cpu_speeds: dict[str, float]
) -> dict[str, Any]:
    """The ``--json`` document: every row with its ratio to the best run time."""
    best = min(r["makespan_ps"] for r in rows)
    placements = len({r.get("placement") for r in rows}) > 1
    out = []
    for r in rows:
        row = dict(r)
        row["ratio_to_best"] = r["makespan_ps"] / best if best else None
        row["placements_compared"] = placements
        out.append(row)
    return {
        "workload": {**workload.to_dict(), "kind": workload.kind, "label": workload.label},
        "computation": computation_note(workload, cpu_speeds),
        "best_ps": best,
        "networks": out,
    }


def part_shares(row: dict[str, Any]) -> dict[str, float]:
    """Each part of the critical path as a share of the run (the parts not in PARTS
    joined as "other")."""
    cp = row["critical_path"]
    total = sum(cp.values()) or 1
    out = {p: cp.get(p, 0) / total for p in PARTS}
    other = sum(v for k, v in cp.items() if k not in PARTS)
    if other:
        out["other"] = other / total
    return out


def busiest(row: dict[str, Any]) -> str:
    """The busiest link class: its busiest link's utilization, as text."""
    links = row.get("links")
    if not row.get("shared_links"):
        return "no shared links"
    if not links or not links["classes"]:
        return "-"
    used = [c for c in links["classes"] if c.get("flows", 0) > 0]
    if not used:
        return "no traffic"
    top = max(used, key=lambda c: c.get("max_utilization", 0))
    return f"{top['class']} {100 * top.get('max_utilization', 0):.1f} %"


def tolerance_text(t: dict[str, Any], eps: str) -> str:
    """``+16.6 ns``: three significant digits in the unit that suits the value."""
    delta = t.get(eps)
    if delta is None:
        return "unbounded"
    scales = [(1e9, "ms"), (1e6, "us"), (1e3, "ns"), (1, "ps")]
    unit = "/B" if t["unit"] == "ps/B" else ""
    if t["unit"] not in ("ps", "ps/B"):
        return f"+{delta:.3g}"
    for factor, name in scales:
        if delta >= factor or factor == 1:
            return f"+{delta / factor:.3g} {name}{unit}"
    return f"+{delta:.3g} ps{unit}"


def tables(doc: dict[str, Any]) -> list[Any]:
    """The terminal's tables (rich renderables)."""
    from rich.table import Table

    rows = doc["networks"]
    main = Table(title=f"{doc['workload']['label']} on {len(rows)} networks")
    for name, justify in (
        ("network", "left"),
        ("hosts", "right"),
        ("run time", "right"),
        ("x best", "right"),
        ("busiest links", "left"),
    ):
        main.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        main.add_row(
            label(r),
            str(r["hosts"]) if r["hosts"] else "-",
            format_time(r["makespan_ps"]),
            f"{r['ratio_to_best']:.2f}",
            busiest(r),
        )
    path = Table(title="critical path: where its time goes (% of the run)")
    path.add_column("network")
    shown = [p for p in PARTS if any(part_shares(r).get(p, 0) > 0 for r in rows)]
    has_other = any("other" in part_shares(r) for r in rows)
    for p in [*shown, *(["other"] if has_other else [])]:
        path.add_column(p, justify="right")
    for r in rows:
        s = part_shares(r)
        if not r["critical_path"]:
            path.add_row(label(r), *["-" for _ in [*shown, *(["other"] if has_other else [])]])
            continue
        path.add_row(
            label(r),
            *[f"{100 * s.get(p, 0):.1f}" for p in [*shown, *(["other"] if has_other else [])]],
        )
    tol = Table(title="tolerance: the largest increase keeping the run within 1 % and 5 %")
    tol.add_column("network")
    tol.add_column("run within")
    params = [p for p in TOLERANCES if any(p in r["tolerance"] for r in rows)]
    for p in params:
        tol.add_column(p, justify="right")
    for r in rows:
        for eps in ("1%", "5%"):
            cells = [
                tolerance_text(r["tolerance"][p], eps) if p in r["tolerance"] else "-"
                for p in params
            ]
            tol.add_row(label(r) if eps == "1%" else "", eps.replace("%", " %"), *cells)
    out: list[Any] = [
        main,
        path,
        tol,
        "What would help most (halving one parameter, or removing the taper):",
    ]
    out += [f"  {label(r)}: {r['advice']}" for r in rows]
    if any("background" in r for r in rows):
        bg = Table(title="beside a background job on the same network")
        for c in ("network", "background", "run time beside it", "slowdown"):
            bg.add_column(c)
        for r in rows:
            b = r.get("background")
            if b:
                bg.add_row(
                    label(r), b["job"], format_time(b["makespan_ps"]), f"{b['slowdown']:.3f}x"
                )
        out.append(bg)
    return out
