"""A table of `netsens sensitivity --json` answers, to compare two builds byte for byte.

    python scripts/sensitivity_answers.py OUT_DIR                  # write the answers
    python scripts/sensitivity_answers.py OUT_DIR --compare BEFORE # and compare them

Each case (a schedule or program) is analysed under each variant (every parameter,
confirmation on and off, other ε, a non-zero O, curves, one thread); each answer is
written to OUT_DIR/CASE.VARIANT.json and its SHA-256 printed in a table. With
--compare, each answer is compared byte for byte with the one of the same name in
BEFORE, and the script exits 1 if any differs. ``--ignore-passes`` drops the count of
Newton's passes (``newton_passes``: how the answer was found, not the answer) from
both sides before comparing, for a change that searches with fewer passes.

The schedules are written into OUT_DIR/goal/ by the project's generators
(scripts/goal_gen.py, scripts/sensitivity_schedules.py) with the same file names, so
the workload's path in the answers is the same in both directories where OUT_DIR is
(use one OUT_DIR path, e.g. /tmp/answers, and move the first table aside).
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import goal_gen  # noqa: E402
import sensitivity_schedules  # noqa: E402

EPSILONS = ["--epsilon", "0.5%", "--epsilon", "3%", "--epsilon", "25%"]
VARIANTS: dict[str, list[str]] = {
    "all": [],
    "no-confirm": ["--no-confirm"],
    "epsilons": EPSILONS,
    "epsilons-no-confirm": ["--no-confirm", *EPSILONS],
    "O-and-g": ["--O", "2ps/B", "--g", "3us"],
    "curves": ["--no-confirm", "--param", "L", "--param", "G", "--curve", "L", "--curve", "G"],
    "one-thread": ["--no-confirm"],
}


def schedules(goal_dir: Path) -> dict[str, list[str]]:
    """Each case's workload arguments; the GOAL files written into goal_dir."""
    goal_dir.mkdir(parents=True, exist_ok=True)
    files = {
        "exchange": goal_gen.exchange(64, 40),
        "dissemination": goal_gen.dissemination(256),
        "pairs": sensitivity_schedules.pairs(32, 24, 200_000, 1),
        "pipeline": sensitivity_schedules.pipeline(8, 16, 8192),
    }
    cases = {}
    for name, blocks in files.items():
        path = goal_dir / f"{name}.goal"
        sensitivity_schedules.write(str(path), blocks)
        cases[name] = [str(path)]
    cases["radix"] = ["--app", "radix", "--ranks", "16", "--size", "small"]
    return cases


def answer(args: list[str], one_thread: bool) -> bytes:
    env = dict(os.environ)
    if one_thread:
        env["NETSENS_ANALYSIS_THREADS"] = "1"
    command = [sys.executable, "-m", "netsens", "sensitivity", *args, "--json"]
    done = subprocess.run(command, capture_output=True, cwd=ROOT, env=env, timeout=1800)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return done.stdout


def without_passes(text: bytes) -> bytes:
    data = json.loads(text)
    data.pop("newton_passes", None)
    return json.dumps(data, sort_keys=True).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--compare", type=Path, metavar="BEFORE")
    ap.add_argument("--ignore-passes", action="store_true")
    ap.add_argument("--only", help="cases whose name contains this")
    ap.add_argument("--variants", help="these variants alone, e.g. no-confirm,curves")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    cases = schedules(a.out / "goal")
    differ = 0
    print(f"{'case':<14} {'variant':<20} {'sha256':<16} {'time':>8}  compared")
    for case, workload in cases.items():
        if a.only and a.only not in case:
            continue
        for variant, extra in VARIANTS.items():
            if a.variants and variant not in a.variants.split(","):
                continue
            t = time.perf_counter()
            out = answer([*workload, *extra], one_thread=variant == "one-thread")
            took = time.perf_counter() - t
            name = f"{case}.{variant}.json"
            (a.out / name).write_bytes(out)
            verdict = ""
            if a.compare is not None:
                before = (a.compare / name).read_bytes()
                if a.ignore_passes:
                    same = without_passes(before) == without_passes(out)
                else:
                    same = before == out
                verdict = "same" if same else "DIFFERS"
                differ += not same
            digest = hashlib.sha256(out).hexdigest()[:16]
            print(f"{case:<14} {variant:<20} {digest:<16} {took:7.2f} s  {verdict}", flush=True)
    if a.compare is not None:
        left_out = " (newton_passes left out)" if a.ignore_passes else ""
        same = f"every answer is the same, byte for byte{left_out}"
        print(f"{differ} answers differ" if differ else same)
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
