"""Applications against SimGrid: netsens's makespan beside SMPI's replay of the same
schedule on the same links and routes (docs/measurements/topology-simgrid.md).

    python scripts/simgrid_apps.py [--apps ft,is,mg,radb,fft1d] [--ranks 16,64]
        [--size small] [--work DIR] [--out TABLE.md]

Each application runs in netsens on each platform (a fat-tree of 64 hosts tapered
1:1 and 2:1, a dragonfly of 64 hosts: examples/platforms/, with L = o = g = 0, G at
the NICs' 12.5 GB/s, S = 16 KiB and the CM02 model); `netsens goal to-simgrid`
exports its recorded schedule with the platform, and the exported run.sh replays it
in SMPI (Debian's libsimgrid-dev: smpicxx, smpirun) with SMPI's own factors flat.
Printed: one row per run with both makespans and their difference, as a Markdown
table (also written to --out, row by row as they come), and the wall time of each
side on stderr. netsens runs twice: with the platform's rendezvous above S (MPI's
handshake: request-to-send, clear-to-send, then the data) and with LogGOPSim's (the
data at once, the send done when matched), the two rules beside SMPI's (the data
from the match on). Where the computation dominates, a makespan hides the network:
the table also gives the time the network added in SimGrid (its makespan less
netsens's on a free network: no topology, L = o = g = G = 0) and netsens's
difference as a share of that.
"""

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import netsens
from netsens.engine import to_simgrid

ROOT = Path(__file__).resolve().parent.parent
PLATFORMS = [
    ("fat-tree 1:1", "examples/platforms/fat-tree-64.toml", {"topology.taper": "1:1"}),
    ("fat-tree 2:1", "examples/platforms/fat-tree-64.toml", {"topology.taper": "2:1"}),
    ("dragonfly", "examples/platforms/dragonfly-64.toml", {}),
]
# Free end points but for the NIC's rate, and SimGrid's CM02 sharing.
END_POINTS = {
    "L": "0ns",
    "o": "0ns",
    "g": "0ns",
    "G": "80ps/B",
    "S": "16KiB",
    "topology.model": "cm02",
}
FREE = {"L": "0ns", "o": "0ns", "g": "0ns", "G": "0ps/B", "S": "16KiB"}
ENDS = re.compile(r"rank (\d+) ends at ([0-9.eE+-]+) s")


def simgrid_makespan(directory: Path) -> float:
    """Run the exported replay; the last rank's end in seconds."""
    done = subprocess.run(["sh", str(directory / "run.sh")], capture_output=True, text=True)
    ends = [float(t) for _, t in ENDS.findall(done.stdout)]
    if done.returncode != 0 or not ends:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise SystemExit(f"simgrid_apps: the replay in {directory} failed: {' / '.join(tail)}")
    return max(ends)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", default="ft,is,mg,radb,fft1d")
    parser.add_argument("--ranks", default="16,64")
    parser.add_argument("--size", default="small")
    parser.add_argument("--work", type=Path, help="keep the exported traces here")
    parser.add_argument("--out", type=Path, help="also write the table here")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="simgrid-apps-"))
    rows = [
        "| application | ranks | platform | SimGrid | of it, the network | netsens | difference "
        "| of the network's | netsens, LogGOPSim's rendezvous | difference |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for app in args.apps.split(","):
        for ranks in (int(r) for r in args.ranks.split(",")):
            free = netsens.run(app, "ib100", ranks=ranks, size=args.size, overrides=FREE)
            free_s = free.to_dict()["makespan_ps"] * 1e-12
            for label, platform, overrides in PLATFORMS:
                chosen = {**END_POINTS, **overrides}
                path = str(ROOT / platform)
                started = time.monotonic()
                ours = netsens.run(app, path, ranks=ranks, size=args.size, overrides=chosen)
                ours_s = ours.to_dict()["makespan_ps"] * 1e-12
                ran = time.monotonic() - started
                shortcut = {**chosen, "rendezvous": "loggopsim"}
                short = netsens.run(app, path, ranks=ranks, size=args.size, overrides=shortcut)
                short_s = short.to_dict()["makespan_ps"] * 1e-12
                directory = work / f"{app}-{ranks}-{label.replace(' ', '-').replace(':', 'to')}"
                to_simgrid(app, path, directory, chosen, ranks=ranks, size=args.size)
                started = time.monotonic()
                theirs = simgrid_makespan(directory)
                replayed = time.monotonic() - started
                diff = (ours_s - theirs) / theirs * 100
                short_diff = (short_s - theirs) / theirs * 100
                network = theirs - free_s
                of_network = (ours_s - theirs) / network * 100 if network > 0 else 0.0
                rows.append(
                    f"| {app} | {ranks} | {label} | {theirs * 1e6:,.1f} us | "
                    f"{network * 1e6:,.1f} us | {ours_s * 1e6:,.1f} us | {diff:+.2f} % | "
                    f"{of_network:+.1f} % | "
                    f"{short_s * 1e6:,.1f} us | {short_diff:+.2f} % |"
                )
                if args.out:
                    args.out.write_text("\n".join(rows) + "\n")
                print(
                    f"{app} {ranks} ranks {label}: "
                    f"SimGrid {theirs * 1e6:,.1f} us ({replayed:.1f} s wall), "
                    f"netsens {ours_s * 1e6:,.1f} us ({ran:.1f} s wall) {diff:+.2f} %, "
                    f"with LogGOPSim's rendezvous {short_s * 1e6:,.1f} us {short_diff:+.2f} %",
                    file=sys.stderr,
                )
    table = "\n".join(rows) + "\n"
    print(table)
    if args.out:
        args.out.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
