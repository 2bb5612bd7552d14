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


def queue_part(link_class: str) -> str:
    """The name of the critical path's link queueing behind one class of links."""
    return f"link queueing: {link_class}"


def path_parts(row: dict[str, Any]) -> dict[str, float]:
    """The critical path's parts (ps) with its link queueing split by class of links
    (``link queueing: level 2``); what no class accounts for stays "link queueing"."""
    cp = dict(row["critical_path"])
    by_class = row.get("link_queueing_by_class") or {}
    queue = cp.pop("link queueing", 0)
    for c, ps in by_class.items():
        cp[queue_part(c)] = ps
    rest = queue - sum(by_class.values())
    if rest > 0.5:  # ps: the classes' whole ps add up to the total
        cp["link queueing"] = rest
    return cp


def columns(rows: list[dict[str, Any]]) -> list[str]:
    """The parts shown, in PARTS's order, each class's link queueing where the total's
    place is; "other" last where a part outside PARTS is on some path."""
    present = [path_parts(r) for r in rows]
    out: list[str] = []
    for p in PARTS:
        if p == "link queueing":
            out += sorted({k for cp in present for k in cp if k.startswith(queue_part(""))})
        if any(cp.get(p, 0) > 0 for cp in present):
            out.append(p)
    if any(k not in PARTS and not k.startswith(queue_part("")) for cp in present for k in cp):
        out.append("other")
    return out


def part_shares(row: dict[str, Any]) -> dict[str, float]:
    """Each part of the critical path as a share of the run, the link queueing per
    class of links (the parts not in PARTS joined as "other")."""
    cp = path_parts(row)
    total = sum(cp.values()) or 1
    known = set(PARTS)
    out = {p: v / total for p, v in cp.items() if p in known or p.startswith(queue_part(""))}
    other = sum(v for k, v in cp.items() if k not in out)
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
    shown = columns(rows)
    for p in shown:
        path.add_column(p, justify="right")
    for r in rows:
        s = part_shares(r)
        if not r["critical_path"]:
            path.add_row(label(r), *["-" for _ in shown])
            continue
        path.add_row(label(r), *[f"{100 * s.get(p, 0):.1f}" for p in shown])
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
