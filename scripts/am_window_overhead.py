"""Active Messages' flow control (`am_window`) against the ISCA'97 overhead curves: the
Split-C programs' slowdowns at the seed's overhead points (o from the NOW's 2.9 us to
52.9 us and 102.9 us) and at its largest latency (100 us), with no window and with a
window of W requests per destination, and how well Martin's overhead model predicts
each curve from its baseline run. Markdown on stdout, progress on stderr.

    .venv/bin/python scripts/am_window_overhead.py [--size small] [--ranks 32]
        [--apps radix,em3d-write,em3d-read,sample] [--windows none,1,2,4,8,16]

Martin's overhead model is netsens.models.martin's: T(o) = T0 + 2·m·Δo, m the most
messages a rank sent (application messages: a window's acknowledgements are the AM
layer's). The second model counts every message the AM layer sends, replies
included, through the o's the busiest rank paid at the baseline: T0 + (n_o)·Δo with
n_o = its CPU overhead / o0 (exact for messages without per-byte costs).
"""

import argparse
import sys
import time

from netsens import NetsensError
from netsens.api import run
from netsens.models.martin import MODELS
from netsens.parameters import PARAMETERS

PLATFORM = "now1997"
O0, O_POINTS, L_POINT = "2.9us", ["52.9us", "102.9us"], "100us"
PS = {"2.9us": 2_900_000, "102.9us": 102_900_000}
OVERHEAD = next(m for m in MODELS if m.name == "overhead")


def makespan(app: str, args: argparse.Namespace, overrides: dict[str, str]) -> int:
    return run(app, PLATFORM, args.ranks, args.size, 0, overrides, matrix=False).makespan_ps


def row(app: str, window: str | None, args: argparse.Namespace) -> str:
    """One table row: the slowdowns at each point, and both models at 102.9 us."""
    extra = {} if window is None else {"am_window": window}
    base = run(app, PLATFORM, args.ranks, args.size, 0, extra, matrix=False)
    t0 = base.makespan_ps
    points = [{"o": o} for o in O_POINTS] + [{"L": L_POINT}]
    slow = [makespan(app, args, {**extra, **point}) / t0 for point in points]
    o0, o_top = PS[O0], PS[O_POINTS[-1]]
    m = int(base.ranks["sent_messages"].max())
    n_o = float(base.ranks["overhead_ps"].max()) / o0
    b = {"params": {PARAMETERS["o"].column: o0}, "messages_max": m}
    martin = (t0 + OVERHEAD.added(b, m, o_top)) / t0
    counted = (t0 + n_o * (o_top - o0)) / t0
    cells = " | ".join(f"{s:.2f}×" for s in slow)
    models = " | ".join(f"{x:.2f}× ({x / slow[1] - 1:+.1%})" for x in (martin, counted))
    return f"| {app} | {window or 'none'} | {t0 / 1e9:.2f} ms | {cells} | {models} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="small")
    parser.add_argument("--ranks", type=int, default=32)
    parser.add_argument("--apps", default="radix,em3d-write,em3d-read,sample")
    parser.add_argument("--windows", default="none,1,2,4,8,16", help="none: no window")
    args = parser.parse_args()
    windows = [None if w == "none" else w for w in args.windows.split(",")]
    head = [f"o = {o}" for o in O_POINTS] + [f"L = {L_POINT}"]
    print(
        "| app | window | T0 | "
        + " | ".join(f"slowdown at {h}" for h in head)
        + " | Martin's model at 102.9 us (error) | every AM message counted (error) |"
    )
    print("|---|---|---|" + "---|" * len(head) + "---|---|")
    try:
        for app in args.apps.split(","):
            for w in windows:
                started = time.monotonic()
                print(row(app, w, args), flush=True)
                took = time.monotonic() - started
                print(f"{app} window {w or 'none'}: {took:.0f} s", file=sys.stderr, flush=True)
    except NetsensError as e:
        print(f"am_window_overhead: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
