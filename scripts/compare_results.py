"""Whether two results directories stored the same results: every point of one in the
other, every stored column equal (makespans to the ps, `events`, per-rank figures,
matrices), and the study's table as `netsens results` reads it (one row per point and
curve, with its slowdown) equal too. Only the columns that measure the run itself
differ by design: `wall_s` always, and `produced` with `--ignore produced` (a sweep
with `--full` against one by recorded schedules).

    .venv/bin/python scripts/compare_results.py RESULTS_A RESULTS_B [--ignore COLUMN ...]

Prints one line per difference found (at most a few per column) and a summary line;
exit code 0 when the same, 1 when not, 2 for a directory that is not a results
directory.
"""

import argparse
import sys
from pathlib import Path

import polars as pl

from netsens.errors import NetsensError
from netsens.study import store, store_verify

# The wall-clock time of a point's run is never the same twice.
ALWAYS_IGNORED = ("wall_s",)
# Differences shown per column before the count.
SHOWN = 3


def point_table(root: Path, ignore: tuple[str, ...] = ()) -> pl.DataFrame:
    """The stored points of ``root``, one row each, by point id, without ``ignore``."""
    frames = store_verify.read_points(root)
    if not frames:
        raise NetsensError(f"{root}: no stored points (expected {root / store.POINTS}/*.parquet)")
    return pl.concat(frames).drop(*ALWAYS_IGNORED, *ignore).sort("point_id")


def differences(a: Path, b: Path, ignore: tuple[str, ...] = ()) -> list[str]:
    """One line per difference between the results in ``a`` and ``b`` (none: the same)."""
    left, right = point_table(a, ignore), point_table(b, ignore)
    lines = []
    only_a = set(left["point_id"]) - set(right["point_id"])
    only_b = set(right["point_id"]) - set(left["point_id"])
    for name, only in ((a, only_a), (b, only_b)):
        if only:
            lines.append(f"{len(only)} point(s) only in {name}: {', '.join(sorted(only)[:SHOWN])}")
    both = left.join(right, on="point_id", how="inner", suffix="#b")
    for column in left.columns:
        if column == "point_id":
            continue
        # eq_missing: null equals null; nested columns (lists of structs) compare whole.
        differ = both.filter(~pl.col(column).eq_missing(pl.col(f"{column}#b")))
        for row in differ.head(SHOWN).iter_rows(named=True):
            lines.append(
                f"{row['point_id']}: {column} {row[column]!r} in {a}, {row[column + '#b']!r} in {b}"
            )
        if differ.height > SHOWN:
            lines.append(f"{column}: {differ.height} points differ in all")
    if not lines:
        # The study's table: each point on its curves, with its slowdown.
        tables = [store.load(root).drop(*ALWAYS_IGNORED, *ignore) for root in (a, b)]
        if not tables[0].equals(tables[1]):
            lines.append("the study's tables (store.load) differ with the same points")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, metavar="RESULTS_A")
    parser.add_argument("b", type=Path, metavar="RESULTS_B")
    parser.add_argument(
        "--ignore", action="append", default=[], metavar="COLUMN", help="a column not compared"
    )
    args = parser.parse_args()
    unknown = [c for c in args.ignore if c not in store.SCHEMA]
    try:
        if unknown:
            raise NetsensError(f"--ignore {unknown[0]}: not a stored column")
        found = differences(args.a, args.b, tuple(args.ignore))
    except NetsensError as e:
        print(f"compare_results: error: {e}", file=sys.stderr)
        return 2
    for line in found:
        print(line)
    points = point_table(args.a, tuple(args.ignore)).height
    if found:
        print(f"compare_results: {args.a} and {args.b} differ ({len(found)} line(s) above)")
        return 1
    print(f"compare_results: the same {points} points in {args.a} and {args.b} (but for wall_s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
