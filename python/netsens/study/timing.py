"""Whether a run's messages can depend on timing.

The engine counts, in every run, the operations whose outcome can change with the
network's parameters: receives with a wildcard source or tag (they match whichever
message arrives first) and tests (they answer whether a request is done yet). A run
with none of them sends the same messages, in the same order per sender, at any
parameters: its program alone decides them. A sweep states which of its workloads are
of the other kind.
"""

from typing import Any


def dependence(result: dict[str, Any]) -> str | None:
    """Why ``result``'s message matching can depend on timing, e.g. ``"1 240 wildcard
    receives"``, or None when it cannot."""
    counts = result.get("timing_dependence") or {}
    parts = []
    if counts.get("wildcard_receives"):
        parts.append(f"{counts['wildcard_receives']:,} wildcard receives".replace(",", " "))
    if counts.get("tests"):
        parts.append(f"{counts['tests']:,} tests".replace(",", " "))
    return ", ".join(parts) or None


def summary_line(by_workload: dict[str, str | None]) -> str:
    """One line over the workloads a sweep ran: which send messages fixed by their
    program, which can match by timing, and why (the counts of one of their runs: a
    program that polls with tests polls more or less often at other parameters)."""
    timed = {w: why for w, why in sorted(by_workload.items()) if why}
    fixed = len(by_workload) - len(timed)
    line = f"matching: messages fixed by the program in {fixed} of {len(by_workload)} workloads"
    if timed:
        line += "; can depend on timing in " + ", ".join(
            f"{w} ({why} in one run)" for w, why in timed.items()
        )
    return line
