"""Replay against live at 8 and 16 ranks: the table of docs/measurements/fidelity.md.

    python scripts/fidelity_table.py DATA --platform NAME=FILE.toml [--platform ...]
        [--apps radb-small,em3d-write-small] [--o paid|calibrated] [--paid NAME,...]
        [--served APP=COMM|none,...] [--o-extra-ps PS] [--tracer-gap TIME]
        [--poll-runs-work NAME[=TIME],...] [--work DIR]

DATA is a folder as the 16-core experiment left it (../shared/fidelity16/data:
summary.json with the live medians, traces-8.tar.xz and traces-16.tar.xz with one OTF2
archive per application). Each archive is replayed with `netsens replay` on each
platform, at its o and at o + 50 us (the live runs injected 50 us of o on top of the
machine's own), and compared with the median of the live runs (`live --repeat 5`,
three or more jobs pooled), beside which the table gives that median's 90 % interval
(the jobs resampled 4 000 times, a fixed seed).

By default each platform is replayed as `netsens replay` replays it, at the o the
trace paid per message (``--o-from-trace``, and ``--o-injected`` 50 us for the o + 50 us
column): the live runs ran on the machine that took the trace, whose per-message cost
for this program the trace measures, where the platform's o is a two-rank
calibration's. ``--o calibrated`` replays at the platform's o instead, but for the
platforms ``--paid`` names. The served communicators are those the trace shows
(``netsens replay``'s default); ``--served em3d-write-small=1`` (or ``=none``) names
them for that application. ``--tracer-gap 25ns`` replays with that tracer cost per
gap between calls removed from the compute (``netsens replay --tracer-gap``; for
archives that do not record one, or ``0ps`` to charge the gaps whole).
``--poll-runs-work NAME=230ns`` replays that platform with ``--poll-runs work
--tracer-call 230ns``. Printed: a markdown table, times in ms, errors in % of live.
"""

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

NETSENS = Path(sys.executable).parent / "netsens"


def replay_ms(
    anchor: Path,
    platform: Path,
    o: str | None,
    served: str | None,
    options: list[str],
    paid_plus: str | None = None,
) -> float:
    """The replay's end, ms: at ``o`` (None: the platform's), or with ``paid_plus`` at
    the o the trace paid plus that much; ``options`` are more of replay's flags."""
    command = [str(NETSENS), "replay", str(anchor), "--platform", str(platform), "--json"]
    if o is not None:
        command += ["--o", o]
    if paid_plus is not None:
        command += ["--o-from-trace", "--o-injected", paid_plus]
    if served is not None:
        command += ["--served", served]
    command += options
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["makespan_ps"] / 1e9


def o_plus(platform: Path, extra_ps: int) -> str:
    """The platform's cluster o plus ``extra_ps``, as a --o value."""
    text = tomllib.loads(platform.read_text())["cluster"]["o"]
    if not text.endswith("ps"):
        raise SystemExit(f"{platform}: o must be written in ps (as calibrate --save does)")
    return f"{round(float(text[:-2])) + extra_ps}ps"


def median_interval(jobs: list[dict], times: int = 4000, seed: int = 1) -> tuple[float, float]:
    """The 90 % interval of the pooled median of the jobs' runs, the jobs resampled
    with replacement ``times`` times: a job's runs share its machine's state, so the
    job, not the run, is the unit that varies."""
    rng = random.Random(seed)
    runs = [job["makespans_ms"] for job in jobs]
    medians = sorted(
        statistics.median([t for job in rng.choices(runs, k=len(runs)) for t in job])
        for _ in range(times)
    )
    return medians[int(0.05 * times)], medians[int(0.95 * times) - 1]


def error(replayed: float, live: float) -> str:
    return f"{100 * (replayed / live - 1):+.1f} %"


def traces_archive(data: Path, ranks: str) -> io.BytesIO:
    """The rank count's trace archive, whole or in the pieces the device's 16 MB limit
    cut it into (traces-P.tar.xz.part00, .part01, ...)."""
    whole = data / f"traces-{ranks}.tar.xz"
    if whole.exists():
        return io.BytesIO(whole.read_bytes())
    parts = sorted(data.glob(f"traces-{ranks}.tar.xz.part*"))
    if not parts:
        raise SystemExit(f"error: no traces-{ranks}.tar.xz (or .partNN pieces) in {data}")
    return io.BytesIO(b"".join(p.read_bytes() for p in parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--platform", action="append", required=True, help="NAME=FILE.toml")
    parser.add_argument("--apps", default="radb-small,em3d-write-small")
    parser.add_argument("--o-extra-ps", type=int, default=50_000_000)
    parser.add_argument("--served", action="append", default=[], help="APP=COMM,...")
    parser.add_argument("--tracer-gap", help="the tracer's cost per gap, e.g. 25ns")
    parser.add_argument(
        "--o",
        choices=["paid", "calibrated"],
        default="paid",
        help="replay at the o the trace paid (default) or at the platform's o",
    )
    parser.add_argument("--paid", default="", help="platform NAME,...: o from the trace")
    parser.add_argument("--work", type=Path)
    parser.add_argument(
        "--poll-runs-work",
        default="",
        help="platform NAME[=TIME],...: replay --poll-runs work [--tracer-call TIME]",
    )
    args = parser.parse_args()
    items = [item for item in args.poll_runs_work.split(",") if item]
    as_work = dict((item.split("=", 1) + [""])[:2] for item in items)
    platforms = [tuple(p.split("=", 1)) for p in args.platform]
    served = dict(p.split("=", 1) for p in args.served)
    paid = set(filter(None, args.paid.split(",")))
    if args.o == "paid":
        paid |= {name for name, _ in platforms}
    summary = json.loads((args.data / "summary.json").read_text())
    work = args.work or Path(tempfile.mkdtemp(prefix="netsens-fidelity-"))
    header = "| P | app | live base (90 %) | live o+50 µs (90 %) |"
    rule = "|---|---|---|---|"
    for name, _ in platforms:
        header += f" {name} base | err | {name} o+50 µs | err |"
        rule += "---|---|---|---|"
    print(header)
    print(rule)
    for ranks in sorted(summary["live"], key=int):
        folder = work / ranks
        if not folder.is_dir():
            with tarfile.open(fileobj=traces_archive(args.data, ranks)) as tar:
                tar.extractall(folder, filter="data")
        for app_size in args.apps.split(","):
            app = app_size.rsplit("-", 1)[0]
            live = summary["live"][ranks].get(app)
            if live is None:
                continue
            base, slow = live["base"]["median_ms"], live["o50us"]["median_ms"]
            (b0, b1), (s0, s1) = (median_interval(live[p]["jobs"]) for p in ("base", "o50us"))
            row = f"| {ranks} | {app_size} | {base:.2f} ({b0:.2f}–{b1:.2f}) |"
            row += f" {slow:.1f} ({s0:.1f}–{s1:.1f}) |"
            anchor = folder / app_size / "traces.otf2"
            for name, file in platforms:
                platform = Path(file)
                comms = served.get(app_size)
                options = ["--tracer-gap", args.tracer_gap] if args.tracer_gap else []
                if name in as_work:
                    options += ["--poll-runs", "work"]
                    options += ["--tracer-call", as_work[name]] if as_work[name] else []
                if name in paid:
                    extra = f"{args.o_extra_ps}ps"
                    r0 = replay_ms(anchor, platform, None, comms, options, "0ps")
                    r1 = replay_ms(anchor, platform, None, comms, options, extra)
                else:
                    slow_o = o_plus(platform, args.o_extra_ps)
                    r0 = replay_ms(anchor, platform, None, comms, options)
                    r1 = replay_ms(anchor, platform, slow_o, comms, options)
                row += f" {r0:.2f} | {error(r0, base)} | {r1:.1f} | {error(r1, slow)} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
