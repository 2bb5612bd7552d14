"""The per-byte cost of messages by size band, from calibrations run with several
largest sizes (``scripts/fidelity16_rerun.sh size-bands``).

    python scripts/calibration_bands.py M=DIR [M=DIR ...]

Each DIR holds a ``calibration.json`` of ``netsens-mpi-run --calibrate --max-size M``
(M in bytes; the default calibration's M is 1048576).
Its long-message fit (``G_long``) is the ping-pong's slope over sizes from a quarter
of M (and above the eager limit S) up to M: run with M = 2, 4, 32 and 128 KiB beside the
default 1 MiB, the slopes show where a message's bytes stop costing the eager O (copied
twice) and start costing the long messages' slope (copied once), the size a model that
charges long messages their own per-byte cost needs. Printed: one row per calibration,
by its largest size: the band, S, the eager bursts' O and the band's slope (ns/B).
"""

import argparse
import json
import sys
from pathlib import Path

KIB = 1024


class BadInput(Exception):
    """A calibration this script cannot read: one line of error, exit code 2."""


def _param(calibration: dict, name: str) -> dict:
    for p in calibration.get("parameters", []):
        if p["name"] == name:
            return p
    raise BadInput(f"no {name} among its parameters")


def _slope(param: dict) -> float | None:
    """The band's slope, ps/B: G_long measured, or the slope that bounds it."""
    if param["measured"] is not None:
        return float(param["measured"])
    bound = param.get("bound") or {}
    return float(bound["value"]) if bound.get("kind") == "at_most" else None


def band(calibration: dict, largest: int) -> dict:
    """One calibration's band (``netsens_apps::calibrate::long_sizes``: from a quarter
    of its largest size, above S, up to it), S (B), O and the slope (ps/B)."""
    s = _param(calibration, "S")
    eager = s["measured"]
    low = max(largest // 4, int(eager) + 1 if eager is not None else 1)
    return {
        "from_B": min(low, largest),
        "to_B": largest,
        "S_B": eager,
        "O_ps_per_B": _param(calibration, "O")["measured"],
        "slope_ps_per_B": _slope(_param(calibration, "G_long")),
    }


def _size(b: int) -> str:
    for unit, n in (("MiB", KIB * KIB), ("KiB", KIB)):
        if b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def _ns(v: float | None) -> str:
    return "-" if v is None else f"{v / 1000:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="M=DIR")
    args = parser.parse_args()
    rows = []
    for run in args.runs:
        largest, _, folder = run.partition("=")
        path = Path(folder) / "calibration.json"
        try:
            if not largest.isdigit() or not folder:
                raise BadInput("expected BYTES=DIR, e.g. 4096=out/calibrate-max-4096")
            try:
                calibration = json.loads(path.read_text())
            except OSError as e:
                raise BadInput(f"{path}: {e.strerror}") from e
            except ValueError as e:
                raise BadInput(f"{path}: not JSON ({e})") from e
            rows.append(band(calibration, int(largest)))
        except BadInput as e:
            print(f"error: {run}: {e}", file=sys.stderr)
            sys.exit(2)
    print("| band | S | eager O (ns/B) | band's slope (ns/B) |")
    print("|---|---|---|---|")
    for r in sorted(rows, key=lambda r: r["to_B"]):
        s = "-" if r["S_B"] is None else _size(int(r["S_B"]))
        band_text = f"{_size(r['from_B'])}–{_size(r['to_B'])}"
        print(f"| {band_text} | {s} | {_ns(r['O_ps_per_B'])} | {_ns(r['slope_ps_per_B'])} |")


if __name__ == "__main__":
    main()
