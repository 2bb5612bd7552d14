"""The default study of `make run`: how a dissemination barrier slows down as L grows.

Replays a GOAL schedule (by default examples/goal/dissemination16.goal) on the
loggopsim preset at L = 1, 2, 5, 10, 20, 50 us, prints a table of L, makespan and
slowdown against the first point, and writes the same table as text to a file
(by default results/default_study.txt). Errors end as one line on stderr, exit code 2.
"""

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from netsens import NetsensError, run_goal
from netsens.units import format_time

LATENCIES = ["1us", "2us", "5us", "10us", "20us", "50us"]
PLATFORM = "loggopsim"


def study(goal: Path) -> Table:
    """Run ``goal`` at every latency and tabulate makespan and slowdown."""
    table = Table(title=f"{goal.name} on {PLATFORM}", title_justify="left")
    table.add_column("L", justify="right")
    table.add_column("makespan", justify="right")
    table.add_column("slowdown vs L=" + LATENCIES[0], justify="right")
    first = None
    for latency in LATENCIES:
        makespan = run_goal(goal, PLATFORM, {"L": latency}, matrix=False)["makespan_ps"]
        first = makespan if first is None else first
        table.add_row(latency, format_time(makespan), f"{makespan / first:.3f}x")
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal", type=Path, default=Path("examples/goal/dissemination16.goal"))
    parser.add_argument("--out", type=Path, default=Path("results/default_study.txt"))
    args = parser.parse_args()
    try:
        table = study(args.goal)
        console = Console(record=True, highlight=False)
        console.print(table)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(console.export_text(styles=False))
    except (NetsensError, OSError) as e:
        print(f"default_study: error: {e}", file=sys.stderr)
        return 2
    print(f"table written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
