"""Real programs, live against replay: docs/measurements/real-programs.md.

    python scripts/real_programs.py [--programs lammps,hpcc,...] [--runs 5] [--traces 1]
        [--work DIR] [--priority fifo|normal] [--calibration FILE.toml] [--json OUT]

MPI applications written by others, installed from Debian 12 (built on its Open MPI
4.1; `make real-programs-deps`) and PyPI (mpi4py, `make install-live`), each on a
small input of its own at 2 ranks. For each program:

1. one traced run at the machine's values (`netsens trace`); with `--traces K`, K of
   them and the median one kept (a run of these programs cannot be repeated under a
   paused recording, as `trace --repeat` does for the suite);
2. live runs (`netsens live`) at four points: the machine as it is, o + 20 us,
   L at 50 us, G at 1 GB/s; `--runs` of each, in rounds (every point once per round,
   so that a change in the machine's load falls on every point alike), the load
   average (/proc/loadavg) beside each;
3. the trace replayed (`netsens replay`) on the calibrated machine
   (`netsens calibrate --live --save`) at the same four points.

Printed: a markdown table, times in ms, the replay's error against the median of the
live runs, and the load the runs saw. The run time is the program's whole MPI span
(from MPI_Init to MPI_Finalize, as `netsens live` reports a program's).

On a machine shared with other work (the development box: 2 cores, builds beside), a
waiting rank loses its core to that work for a scheduler slice at a time and the
program takes tens of times as long; `--priority fifo` (the default as root) runs
every MPI process of the measurement under `chrt -f 1`, a real-time priority above the
other work, so that each rank keeps its core. The kernel leaves 5 % of every second to
other work (sched_rt_runtime_us), which bounds the harm of a process that spins.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NETSENS = Path(sys.executable).parent / "netsens"
PYTHON = Path(sys.executable)

# The four points: live flags, and how the replay's platform value follows from the
# calibrated machine's (validate's rule: o adds to the machine's own; L and G are floors
# under it, L held from the send call, during which the machine's own o passes).
POINTS = ("machine", "o+20us", "L=50us", "G=1GB/s")
# Above every message of these programs: the platform's handshake never taken.
EVERY_MESSAGE_EAGER = "1GiB"
LIVE_FLAGS = {
    "machine": [],
    "o+20us": ["--o", "20us"],
    "L=50us": ["--L", "50us"],
    "G=1GB/s": ["--G", "1GB/s"],
}

LAMMPS_INPUT = """\
# Lennard-Jones melt (LAMMPS's bench/in.lj), 864 atoms, 500 steps
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 6 0 6 0 6
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 3.0 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    delay 0 every 20 check no
fix             1 all nve
thermo          100
run             {steps}
"""

# HPC Challenge's own input (hpcc's _hpccinf.txt): HPL at N = 400, NB = 40 on a 1 x 2
# grid; every other HPCC test sizes itself from it.
HPCC_INPUT = """\
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
400          Ns
1            # of NBs
40           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
"""

# One water molecule, Kohn-Sham DFT with Gaussian and plane waves (CP2K's Quickstep).
CP2K_INPUT = """\
&GLOBAL
  PROJECT h2o
  RUN_TYPE ENERGY
  PRINT_LEVEL LOW
&END GLOBAL
&FORCE_EVAL
  METHOD Quickstep
  &DFT
    BASIS_SET_FILE_NAME BASIS_MOLOPT
    POTENTIAL_FILE_NAME GTH_POTENTIALS
    &MGRID
      CUTOFF 200
    &END MGRID
    &SCF
      EPS_SCF 1.0E-6
      SCF_GUESS ATOMIC
      MAX_SCF 30
    &END SCF
    &XC
      &XC_FUNCTIONAL PADE
      &END XC_FUNCTIONAL
    &END XC
  &END DFT
  &SUBSYS
    &CELL
      ABC 6.0 6.0 6.0
    &END CELL
    &COORD
      O   0.000000    0.000000   -0.065587
      H   0.000000   -0.757136    0.520545
      H   0.000000    0.757136    0.520545
    &END COORD
    &KIND H
      BASIS_SET DZVP-MOLOPT-GTH
      POTENTIAL GTH-PADE-q1
    &END KIND
    &KIND O
      BASIS_SET DZVP-MOLOPT-GTH
      POTENTIAL GTH-PADE-q6
    &END KIND
  &END SUBSYS
&END FORCE_EVAL
"""

# Bulk silicon, plane-wave DFT (Quantum ESPRESSO's pw.x), its own Si pseudopotential.
QE_INPUT = """\
&control
  calculation = 'scf', prefix = 'si', pseudo_dir = './', outdir = './qe-out',
  disk_io = 'none'
/
&system
  ibrav = 2, celldm(1) = 10.2, nat = 2, ntyp = 1, ecutwfc = 16.0
/
&electrons
  conv_thr = 1.0d-8
/
ATOMIC_SPECIES
  Si 28.086 Si.pz-vbc.UPF
ATOMIC_POSITIONS alat
  Si 0.00 0.00 0.00
  Si 0.25 0.25 0.25
K_POINTS automatic
  4 4 4 1 1 1
"""
QE_PSEUDO = Path("/usr/share/doc/quantum-espresso/examples/EPW/sic/pp/Si.pz-vbc.UPF.gz")


@dataclass(frozen=True)
class Program:
    """An MPI application written by others, and the small input it runs here."""

    name: str
    language: str
    source: str  # where it is installed from
    command: tuple[str, ...]
    what: str
    inputs: dict[str, str] = field(default_factory=dict)


def programs(lammps_steps: int = 500) -> dict[str, Program]:
    return {
        p.name: p
        for p in (
            Program(
                "lammps",
                "C++",
                "Debian lammps",
                ("lmp", "-in", "in.lj", "-log", "none", "-screen", "none"),
                f"Lennard-Jones melt, 864 atoms, {lammps_steps} steps",
                {"in.lj": LAMMPS_INPUT.format(steps=lammps_steps)},
            ),
            Program(
                "hpcc",
                "C",
                "Debian hpcc",
                ("hpcc",),
                "HPC Challenge, every test, HPL N = 400 on 1 x 2",
                {"hpccinf.txt": HPCC_INPUT},
            ),
            Program(
                "cp2k",
                "Fortran",
                "Debian cp2k",
                ("cp2k.psmp", "-i", "h2o.inp", "-o", "h2o.out"),
                "one H2O molecule, DFT energy (Quickstep, DZVP, 200 Ry)",
                {"h2o.inp": CP2K_INPUT},
            ),
            Program(
                "quantum-espresso",
                "Fortran",
                "Debian quantum-espresso",
                ("pw.x", "-in", "si.in"),
                "bulk Si, SCF (pw.x, 16 Ry, 4x4x4 k-points)",
                {"si.in": QE_INPUT},
            ),
            Program(
                "mpi4py",
                "Python",
                "PyPI mpi4py",
                (str(PYTHON), "-m", "mpi4py.bench", "ringtest", "-n", "4096", "-l", "2000"),
                "mpi4py.bench ringtest: 2000 rounds of a 4 KiB ring",
            ),
        )
    }


def prepare(program: Program, work: Path) -> Path:
    """A fresh directory holding the program's input files."""
    directory = work / program.name
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    for name, text in program.inputs.items():
        (directory / name).write_text(text)
    if program.name == "quantum-espresso":
        (directory / "Si.pz-vbc.UPF").write_bytes(gzip.decompress(QE_PSEUDO.read_bytes()))
    return directory


def priority_prefix(choice: str) -> list[str]:
    """`chrt -f 1` where asked and allowed; nothing otherwise."""
    if choice != "fifo":
        return []
    ok = subprocess.run(["chrt", "-f", "1", "true"], capture_output=True).returncode == 0
    if not ok:
        print("chrt -f 1 is not allowed here: running at normal priority", file=sys.stderr)
    return ["chrt", "-f", "1"] if ok else []


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


# The program's threads: one per rank (the BLAS and FFT libraries would start one per core).
ENV = os.environ | {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def netsens(prefix: list[str], args: list[str], cwd: Path) -> dict[str, Any]:
    command = [*prefix, str(NETSENS), *args]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=ENV)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"{' '.join(command)}: {last}")
    return json.loads(done.stdout)


def calibrate(prefix: list[str], out: Path) -> Path:
    netsens(prefix, ["calibrate", "--live", "--save", str(out), "--json"], out.parent)
    return out


def cluster_ps(platform: Path) -> dict[str, float]:
    """The calibrated machine's o and L in ps and G in ps/B."""
    from netsens import _core

    values = json.loads(_core.platform_json(str(platform), {}))["cluster"]
    return {
        "o": float(values["overhead"]),
        "L": float(values["latency"]),
        "G": float(values["gap_per_byte"]) / 1000,  # fs/B to ps/B
    }


def replay_flags(point: str, machine: dict[str, float]) -> list[str]:
    """The replay's values at ``point``, from the calibrated machine's."""
    if point == "o+20us":
        return ["--o", f"{int(machine['o'] + 20e6)}ps"]
    if point == "L=50us":
        return ["--L", f"{int(max(machine['L'], 50e6 - machine['o']))}ps"]
    if point == "G=1GB/s":
        return ["--G", f"{max(machine['G'], 1000.0):.3f}ps/B"]
    return []


def trace(
    program: Program, directory: Path, prefix: list[str], name: str = "trace", ranks: int = 2
) -> Path:
    """One traced run at the machine's values into ``directory/name``; the archive's
    .otf2 file."""
    out = directory / name
    shutil.rmtree(out, ignore_errors=True)
    args = ["trace", "--ranks", str(ranks), "--out", str(out), "--", *program.command]
    done = subprocess.run(
        [*prefix, str(NETSENS), *args], cwd=directory, capture_output=True, text=True, env=ENV
    )
    if done.returncode != 0:
        raise SystemExit(f"trace {program.name}: {done.stderr.strip()}")
    return out / "traces.otf2"


def traced_ms(anchor: Path) -> float:
    """The traced run's own time (its longest rank's span), ms."""
    info = netsens([], ["trace", "info", str(anchor), "--json"], anchor.parent)
    return max(r["measured_ps"] for r in info["ranks_measured"]) / 1e9


def live_ms(
    program: Program, directory: Path, point: str, prefix: list[str], ranks: int = 2
) -> float:
    """One live run's time (MPI_Init to MPI_Finalize), ms."""
    args = ["live", "--ranks", str(ranks), "--json", *LIVE_FLAGS[point], "--", *program.command]
    return netsens(prefix, args, directory)["makespan_ps"] / 1e9


def replay_ms(anchor: Path, platform: Path, point: str, eager: bool = False) -> float | str:
    """The trace replayed at ``point`` on ``platform`` (``eager``: every message eager),
    ms; a replay that cannot finish gives its one error line instead."""
    flags = replay_flags(point, cluster_ps(platform))
    flags += ["--S", EVERY_MESSAGE_EAGER] if eager else []
    command = [str(NETSENS), "replay", str(anchor), "--platform", str(platform), "--json"]
    done = subprocess.run([*command, *flags], capture_output=True, text=True)
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1]
    return json.loads(done.stdout)["makespan_ps"] / 1e9


def median_trace(
    program: Program, directory: Path, prefix: list[str], traces: int
) -> tuple[Path, list[float]]:
    """``traces`` traced runs; the archive of the median one (by its run time), and
    every run's time, ms. A program that cannot repeat its work under a paused
    recording is traced that many times instead, as `trace --repeat` would."""
    anchors = [trace(program, directory, prefix, f"trace-{i + 1}") for i in range(traces)]
    times = [traced_ms(a) for a in anchors]
    order = sorted(range(traces), key=times.__getitem__)
    return anchors[order[(traces - 1) // 2]], times


def measure(
    program: Program, work: Path, platform: Path, runs: int, prefix: list[str], traces: int = 1
) -> dict[str, Any]:
    """One program: its trace, its live runs in rounds and its replays."""
    directory = prepare(program, work)
    anchor, traced_runs = median_trace(program, directory, prefix, traces)
    live: dict[str, list[dict[str, float]]] = {p: [] for p in POINTS}
    for r in range(runs):
        for point in POINTS:
            load = loadavg()
            ms = live_ms(program, directory, point, prefix)
            live[point].append({"ms": ms, "load": load})
            print(
                f"  {program.name} round {r + 1}/{runs} {point}: {ms:.2f} ms (load {load:.2f})",
                file=sys.stderr,
            )
    replay = {
        point: {
            "calibrated": replay_ms(anchor, platform, point),
            "eager": replay_ms(anchor, platform, point, eager=True),
        }
        for point in POINTS
    }
    return {
        "program": program.name,
        "traced_ms": traced_ms(anchor),
        "traced_runs_ms": traced_runs,
        "live": live,
        "replay": replay,
    }


def error(replay: float | str, live: float) -> str:
    if isinstance(replay, str):
        return "deadlock"
    return f"{replay:.1f} ({(replay / live - 1) * 100:+.1f} %)"


def table(results: list[dict[str, Any]], catalogue: dict[str, Program]) -> str:
    rows = [
        "| program | language | point | live: median (range), ms | load | traced run, ms "
        "| replay, calibrated: ms (error) | replay, every message eager |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        p = catalogue[res["program"]]
        traced = f"{res['traced_ms']:.1f}" if "traced_ms" in res else "–"
        for point in POINTS:
            runs = res["live"][point]
            times = [r["ms"] for r in runs]
            loads = [r["load"] for r in runs]
            median = statistics.median(times)
            rows.append(
                f"| {p.name} | {p.language} | {point} | {median:.1f} ({min(times):.1f}–"
                f"{max(times):.1f}) | {min(loads):.1f}–{max(loads):.1f} | "
                f"{traced if point == 'machine' else ''} | "
                f"{error(res['replay'][point]['calibrated'], median)} | "
                f"{error(res['replay'][point]['eager'], median)} |"
            )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(programs()))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--traces", type=int, default=1, help="traced runs; the median one is replayed"
    )
    parser.add_argument("--work", type=Path)
    parser.add_argument("--priority", choices=["fifo", "normal"], default="fifo")
    parser.add_argument("--calibration", type=Path, help="a saved machine (skip calibrate)")
    parser.add_argument("--json", type=Path, help="write every run here")
    args = parser.parse_args()
    catalogue = programs()
    chosen = args.programs.split(",")
    unknown = [n for n in chosen if n not in catalogue]
    if unknown:
        parser.error(f"unknown program(s) {unknown}; known: {', '.join(catalogue)}")
    if args.calibration is not None and not args.calibration.is_file():
        parser.error(f"--calibration: no such file: {args.calibration}")
    prefix = priority_prefix(args.priority)
    work = args.work or Path(tempfile.mkdtemp(prefix="real-programs-"))
    work.mkdir(parents=True, exist_ok=True)
    platform = args.calibration
    if platform is None:
        print(f"calibrating the machine (load {loadavg():.2f})", file=sys.stderr)
        platform = calibrate(prefix, work.resolve() / "machine.toml")
    platform = platform.resolve()
    results = []
    for name in chosen:
        print(f"{name}: trace, {args.runs} rounds of live runs, replays", file=sys.stderr)
        results.append(
            measure(catalogue[name], work.resolve(), platform, args.runs, prefix, args.traces)
        )
        if args.json:
            args.json.write_text(
                json.dumps({"platform": platform.read_text(), "results": results}, indent=1)
            )
    print(table(results, catalogue))


if __name__ == "__main__":
    main()
