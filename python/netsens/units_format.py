"""Quantities written for people: times, byte counts, per-byte costs and bandwidths
in the unit that reads best, for tables and messages. Apart from :mod:`netsens.units`
(which parses, with fractions and decimals) so a command that only prints starts fast.
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


def format_per_byte(ps_per_byte: float) -> str:
    """A cost per byte: ``6 ns/B``, ``26.316 ns/B``, ``800 ps/B``."""
    if abs(ps_per_byte) >= 1000:
        return f"{ps_per_byte / 1000:.3f}".rstrip("0").rstrip(".") + " ns/B"
    return f"{ps_per_byte:.3f}".rstrip("0").rstrip(".") + " ps/B"


def format_bandwidth(bytes_per_s: float) -> str:
    """A bandwidth in decimal units, 4 significant digits: ``38 MB/s``, ``550 KB/s``."""
    for scale, unit in ((1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "KB/s")):
        if bytes_per_s >= scale:
            return f"{bytes_per_s / scale:.4g} {unit}"
    return f"{bytes_per_s:.4g} B/s"
