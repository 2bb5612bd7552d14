"""Quantities with units: adaptive strings for tables (:mod:`netsens.units_format`), and
the parser study ranges need.

Run inputs are parsed (and validated) by the engine. A study's ranges, though, need
numbers in Python to interpolate between ``from`` and ``to``; :func:`parse_quantity`
reads the engine's spellings (``netsens run --help``) exactly, and
:func:`format_quantity` writes a point back as text the engine reads, in the unit the
study used, rounded to the engine's resolution (whole ps, fs/B or bytes).
"""

from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

# The formatters live apart, light enough for start-up; imported here as before.
from netsens.units_format import format_bandwidth as format_bandwidth
from netsens.units_format import format_bytes as format_bytes
from netsens.units_format import format_per_byte as format_per_byte
from netsens.units_format import format_time as format_time

_NUMBER_CHARS = set("0123456789.+-")

# Unit -> size of one unit in the kind's base unit (ps, B, B/s).
TIME_PS = {"ps": 1, "ns": 10**3, "us": 10**6, "µs": 10**6, "μs": 10**6, "ms": 10**9, "s": 10**12}
SIZE_B = {
    **{"B": 1, "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12},
    **{"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40},
}
_BIT_BYTES = {"bit": 1, "Kbit": 10**3, "kbit": 10**3, "Mbit": 10**6, "Gbit": 10**9, "Tbit": 10**12}
BANDWIDTH_BPS: dict[str, Fraction] = {f"{u}/s": Fraction(n) for u, n in SIZE_B.items()}
BANDWIDTH_BPS |= {f"{u}/s": Fraction(n, 8) for u, n in _BIT_BYTES.items()}

# What each kind of quantity is called in messages, with an accepted example.
EXAMPLES = {
    "time": "a time such as 5us",
    "per_byte": "a per-byte cost such as 6ns/B or a bandwidth such as 10Gbit/s",
    "bandwidth": "a per-byte cost such as 6ns/B or a bandwidth such as 10Gbit/s",
    "size": "a size such as 64KiB",
    "number": "a number such as 2.5",
}
# The unit every kind is stored and compared in.
BASE_UNIT = {"time": "ps", "per_byte": "fs/B", "bandwidth": "B/s", "size": "B", "number": ""}


@dataclass(frozen=True)
class Quantity:
    """A parsed value: exact, in its kind's base unit (ps, fs/B, B/s, B, or a plain
    number), with the unit it was written in."""

    value: Fraction
    kind: str  # time | per_byte | bandwidth | size | number
    unit: str


def _number(param: str, text: str, example: str) -> tuple[Fraction, str]:
    """Split ``text`` into a non-negative decimal number and the unit after it."""
    t = text.strip()
    if not t:
        raise ValueError(f"{param}: empty value; write {example}")
    end = next((i for i, c in enumerate(t) if not (c.isascii() and c in _NUMBER_CHARS)), len(t))
    number, unit = t[:end], t[end:].strip()
    body = number.lstrip("+")
    int_part, _, frac_part = body.partition(".")
    if body.startswith("-"):
        raise ValueError(f'{param}: "{t}" is negative; write {example}')
    if not (int_part or frac_part) or not (int_part + frac_part).isdigit() or body.count(".") > 1:
        raise ValueError(f'{param}: "{t}" is not a number followed by a unit; write {example}')
    return Fraction(Decimal(body)), unit


def parse_quantity(param: str, text: str, kinds: tuple[str, ...]) -> Quantity:
    """Read ``text`` as one of ``kinds`` (``time``, ``per_byte`` -- which also accepts a
    bandwidth --, ``size`` or ``number``); ``ValueError`` with a one-line message naming
    ``param`` otherwise. ``parse_quantity("L", "2.5us", ("time",)).value == 2_500_000``."""
    example = EXAMPLES[kinds[0]]
    number, unit = _number(param, text, example)
    t = text.strip()
    if kinds == ("number",):
        if unit:
            raise ValueError(f'{param}: "{t}" is not a plain number; write {example}')
        return Quantity(number, "number", "")
    if not unit:
        raise ValueError(f'{param}: "{t}" has no unit; write {example}')
    if "time" in kinds and unit in TIME_PS:
        return Quantity(number * TIME_PS[unit], "time", unit)
    if "size" in kinds and unit in SIZE_B:
        return Quantity(number * SIZE_B[unit], "size", unit)
    if "per_byte" in kinds:
        per = unit.removesuffix("/B")
        if unit.endswith("/B") and per in TIME_PS:
            return Quantity(number * TIME_PS[per] * 1000, "per_byte", unit)
        if unit in BANDWIDTH_BPS:
            if number == 0:
                raise ValueError(f'{param}: bandwidth "{t}" is zero; write {example}')
            return Quantity(number * BANDWIDTH_BPS[unit], "bandwidth", unit)
        if unit in TIME_PS:
            raise ValueError(f'{param}: "{t}" is a time, not a per-byte cost; write {t}/B')
    raise ValueError(f'{param}: unknown unit "{unit}" in "{t}"; write {example}')


def _decimal_text(value: Fraction, digits: int = 40) -> str:
    """``value`` as plain decimal text (no exponent) to ``digits`` significant digits:
    exact for the values formatted here (denominators of only 2s and 5s)."""
    with localcontext() as ctx:
        ctx.prec = digits
        text = f"{Decimal(value.numerator) / Decimal(value.denominator):f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def format_quantity(value: Fraction | float, kind: str, unit: str) -> str:
    """A value in its kind's base unit as engine input text in ``unit``, rounded to the
    engine's resolution: ``format_quantity(4_000_000, "time", "us") == "4us"``."""
    v = Fraction(value)
    if kind == "time":
        return f"{_decimal_text(Fraction(round(v), TIME_PS[unit]))}{unit}"
    if kind == "per_byte":
        return f"{_decimal_text(Fraction(round(v), TIME_PS[unit.removesuffix('/B')] * 1000))}{unit}"
    if kind == "size":
        return f"{_decimal_text(Fraction(round(v), SIZE_B[unit]))}{unit}"
    if kind == "bandwidth":
        # The engine turns a bandwidth into whole fs/B; 12 significant digits are plenty.
        return f"{_decimal_text(v / BANDWIDTH_BPS[unit], 12)}{unit}"
    return _decimal_text(v, 12)
