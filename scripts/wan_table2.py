"""The wide-area seed's Table 2 (Plaat, Bal, Hofman 1998) at its own point: 4 clusters
of 8 on `das1998`, wide-area links at 1 MB/s and 3 ms, `--size paper`: each
application's optimized and original speedup (one rank's time over 32 ranks') beside
the seed's, and the curves over the quantities the seed's text leaves open (the
gateways' cost per message; the computation per remote access). Markdown on stdout,
progress on stderr. One process, so tsp's searches are done once (tsp.rs).

    .venv/bin/python scripts/wan_table2.py [--size paper] [--apps water,bh] [--curves] [--corner]
"""

import argparse
import sys
import time

from netsens import NetsensError
from netsens.engine import run_app

# Table 2 of the seed: (optimized, original).
SEED = {
    "water": (27.2, 0.2),
    "bh": (19.3, 0.12),
    "tsp": (20.0, 5.95),
    "asp": (24.0, 6.37),
    "awari": (1.57, 0.94),
}
POINT = {"clusters": "4x8", "wan_bandwidth": "1MB/s", "wan_latency": "3ms"}
# The curves: the gateway cost per message (das1998's 32 us is the seed's upper
# bound), and the CPU speed (x times faster: 1/x times the computation per remote
# access).
CURVE_GATEWAYS = ["0us", "32us", "100us", "1ms"]
CURVE_SPEEDS = ["1", "2", "4", "8"]


def makespan(
    app: str, variant: str | None, ranks: int, size: str, overrides: dict[str, str]
) -> int:
    t0 = time.monotonic()
    r = run_app(app, ranks, size, "das1998", overrides, 0, matrix=False, variant=variant)
    if not r["verified"]:
        raise NetsensError(f"{app} {variant} did not verify")
    print(
        f"  {app} {variant or ''} {ranks} ranks {overrides}: {r['makespan_ps'] / 1e9:.2f} ms "
        f"({time.monotonic() - t0:.1f} s wall)",
        file=sys.stderr,
        flush=True,
    )
    return r["makespan_ps"]


SERIAL: dict[tuple, int] = {}


def serial(app: str, size: str, extra: dict[str, str] | None = None) -> int:
    key = (app, size, tuple(sorted((extra or {}).items())))
    if key not in SERIAL:
        SERIAL[key] = makespan(app, "optimized", 1, size, {"clusters": "1", **(extra or {})})
    return SERIAL[key]


def table2(apps: list[str], size: str) -> list[str]:
    lines = [
        "| app | 1 rank | optimized | original | speedups opt / orig | seed's | off (opt / orig) |",
        "|---|---|---|---|---|---|---|",
    ]
    for app in apps:
        one = serial(app, size)
        t_opt = makespan(app, "optimized", 32, size, POINT)
        t_orig = makespan(app, "original", 32, size, POINT)
        opt, orig = one / t_opt, one / t_orig
        s_opt, s_orig = SEED[app]
        off = [max(a, b) / min(a, b) for a, b in ((opt, s_opt), (orig, s_orig))]
        lines.append(
            f"| {app} | {one / 1e9:,.2f} ms | {t_opt / 1e9:,.2f} ms | {t_orig / 1e9:,.2f} ms | "
            f"{opt:.3g} / {orig:.3g} | {s_opt} / {s_orig} | {off[0]:.2f}× / {off[1]:.2f}× |"
        )
    return lines


def header(first: str, cols: list[str]) -> list[str]:
    return [f"| {first} | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]


def curves(size: str) -> list[str]:
    lines = ["", "Speedup against the gateways' cost per message (1 MB/s, 3 ms, 4 × 8):", ""]
    lines += [
        "| workload | " + " | ".join(CURVE_GATEWAYS) + " |",
        "|---" * (len(CURVE_GATEWAYS) + 1) + "|",
    ]
    for app, variant in [("water", "original"), ("bh", "original"), ("tsp", "original"),
                         ("awari", "original"), ("awari", "optimized")]:  # fmt: skip
        one = serial(app, size)
        row = [
            one / makespan(app, variant, 32, size, {**POINT, "wan_gateway": g})
            for g in CURVE_GATEWAYS
        ]
        lines.append(f"| {app} {variant} | " + " | ".join(f"{x:.3g}" for x in row) + " |")
    lines += ["", "water original's speedup against the CPU speed (gateway 32 us):", ""]
    lines += [
        "| cpu_speed | " + " | ".join(CURVE_SPEEDS) + " |",
        "|---" * (len(CURVE_SPEEDS) + 1) + "|",
    ]
    row = []
    for x in CURVE_SPEEDS:
        one = serial("water", size, {"cpu_speed": x})
        row.append(one / makespan("water", "original", 32, size, {**POINT, "cpu_speed": x}))
    lines.append("| water original | " + " | ".join(f"{x:.3g}" for x in row) + " |")
    return lines


def corner(size: str) -> list[str]:
    """Figure 1's corner: the geometric mean of T_L / T_M (one cluster of 32 over 4 × 8)
    of the four optimized programs the seed's Figure 1 averages."""
    apps = ["water", "bh", "tsp", "asp"]
    one_cluster = {app: makespan(app, "optimized", 32, size, {"clusters": "32"}) for app in apps}
    lines = [
        "",
        "Figure 1's corner, geometric mean relative speedup (optimized, gateway 32 us):",
        "",
    ]
    lines += ["| bandwidth \\ latency | 30 ms | 100 ms |", "|---|---|---|"]
    for bw in ["300kB/s", "100kB/s"]:
        row = []
        for lat in ["30ms", "100ms"]:
            over = {"clusters": "4x8", "wan_bandwidth": bw, "wan_latency": lat}
            ratios = [one_cluster[a] / makespan(a, "optimized", 32, size, over) for a in apps]
            mean = 1.0
            for x in ratios:
                mean *= x ** (1 / len(ratios))
            row.append(f"{mean:.2f}")
        lines.append(f"| {bw} | " + " | ".join(row) + " |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--size", default="paper", help="size preset (default paper)")
    ap.add_argument("--apps", default=",".join(SEED), help="comma-separated applications")
    ap.add_argument(
        "--curves", action="store_true", help="also the curves over the open quantities"
    )
    ap.add_argument(
        "--corner", action="store_true", help="also Figure 1's corner (0.1-0.3 MB/s, 30-100 ms)"
    )
    args = ap.parse_args()
    try:
        out = table2(args.apps.split(","), args.size)
        if args.curves:
            out += curves(args.size)
        if args.corner:
            out += corner(args.size)
    except NetsensError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
