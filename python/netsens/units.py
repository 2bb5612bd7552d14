"""Quantities for people to read: adaptive time and byte strings for tables.

Inputs are parsed (and validated) by the engine; this module only formats results,
which the engine reports in integer picoseconds and bytes.
"""

_TIME_UNITS = (("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3), ("ps", 1))


def format_time(ps: int) -> str:
    """Picoseconds in the largest unit that keeps the value >= 1, at most 3 decimals.

    >>> format_time(22_000_000), format_time(616_494_000), format_time(0)
    ('22 us', '616.494 us', '0 ns')
    """
    if ps == 0:
        return "0 ns"
    unit, scale = next((u, s) for u, s in _TIME_UNITS if abs(ps) >= s or s == 1)
    number = f"{ps / scale:.3f}".rstrip("0").rstrip(".")
    return f"{number} {unit}"


def format_bytes(count: int) -> str:
    """An exact byte count with thousands separators: ``100,000 B``."""
    return f"{count:,} B"
