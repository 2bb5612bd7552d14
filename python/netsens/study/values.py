"""What a study file's values mean: rank counts, seeds and the axes' values (lists or
ranges, with units checked), each read into the form the engine takes, and the one
error every bad value becomes (:class:`StudyError`, a one-line message naming the
key). :mod:`netsens.study.definition` builds the grid from them.
"""

import difflib
import math
from fractions import Fraction
from typing import Any

from netsens.errors import InputError
from netsens.parameters import PARAMETERS, Parameter
from netsens.units import Quantity, format_quantity, parse_quantity

RANGE_KEYS = ("from", "to", "points", "scale")
SCALES = ("linear", "log")
RANGE_EXAMPLE = {
    "time": 'from = "2us", to = "16us"',
    "per_byte": 'from = "10MB/s", to = "1GB/s"',
    "size": 'from = "1KiB", to = "64KiB"',
    "number": "from = 1, to = 4",
}


class StudyError(InputError):
    """A study that cannot run; the message names the field, on one line."""


def _suggest(name: str, known: list[str] | tuple[str, ...]) -> str:
    """``; did you mean "axes"?`` for a close match (case-insensitive), else empty."""
    by_lower = {k.lower(): k for k in known}
    match = by_lower.get(name.lower()) or next(
        iter(difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)), None
    )
    return f'; did you mean "{match}"?' if match else ""


def _unknown(what: str, name: str, known: list[str] | tuple[str, ...]) -> str:
    return f'unknown {what} "{name}"{_suggest(name, known)} (known: {", ".join(known)})'


def _ranks(value: Any) -> list[int]:
    values = [value] if isinstance(value, int) else value
    ok = isinstance(values, list | tuple) and all(
        isinstance(r, int) and not isinstance(r, bool) and r > 0 for r in values
    )
    if not ok:
        raise StudyError(
            f"ranks: must be a list of positive integers such as [4, 32], got {value!r}"
        )
    return list(dict.fromkeys(values))


def _seeds(value: Any) -> list[int]:
    def is_int(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if is_int(value):
        if value < 1:
            raise StudyError(f"seeds: a number of seeds must be at least 1, got {value}")
        return list(range(value))
    if (
        isinstance(value, list | tuple)
        and value
        and all(is_int(s) and 0 <= s < 2**63 for s in value)
    ):
        return list(dict.fromkeys(value))
    raise StudyError(
        f"seeds: give a number of seeds (3 = seeds 0, 1, 2) or a list of seeds from 0 to "
        f"2^63-1 such as [1, 7], got {value!r}"
    )


def _axis_values(name: str, spec: Any) -> list[str]:
    """An axis's values as engine input strings (a range expanded), units checked."""
    if name not in PARAMETERS:
        raise StudyError(f"axes: {_unknown('parameter', name, list(PARAMETERS))}")
    param, where = PARAMETERS[name], f"axes.{name}"
    if isinstance(spec, dict):
        return _range(where, param, spec)
    values = spec if isinstance(spec, list) else [spec]
    if not values:
        raise StudyError(f"{where}: empty grid: the list has no values")
    return list(dict.fromkeys(_value(where, param, v) for v in values))


def _value(where: str, param: Parameter, value: Any) -> str:
    if param.name == "clusters":
        if isinstance(value, list) and all(isinstance(n, int) for n in value):
            return ",".join(map(str, value))
        if isinstance(value, str):
            return value
        raise StudyError(f'{where}: {value!r} is not a cluster shape; write e.g. "4x8"')
    if param.name == "topology.placement":
        # The engine checks the name (and a random placement's seed) when it resolves.
        if isinstance(value, str):
            return value
        raise StudyError(f'{where}: {value!r} is not a placement; write e.g. "round-robin"')
    if param.name == "topology.taper":
        # The engine checks the ratio against the tree when the platform resolves.
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return str(value)
        raise StudyError(f'{where}: {value!r} is not a taper; write e.g. "2:1"')
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise StudyError(f"{where}: {value!r} is not a value; write {_example(param)}")
    text = str(value).strip()
    _parse(where, param, text)
    return text


def _example(param: Parameter) -> str:
    return RANGE_EXAMPLE[param.kinds[0]].split(",")[0].removeprefix("from = ")


def _parse(where: str, param: Parameter, text: str) -> Quantity:
    try:
        return parse_quantity(where, text, param.kinds)
    except ValueError as e:
        raise StudyError(str(e)) from None


def _range(where: str, param: Parameter, spec: dict[str, Any]) -> list[str]:
    for key in spec:
        if key not in RANGE_KEYS:
            raise StudyError(f"{where}: {_unknown('range key', key, RANGE_KEYS)}")
    if param.name == "topology.taper":
        raise StudyError(f'{where}: tapers take a list, e.g. ["1:1", "2:1", "4:1"]')
    if param.name == "topology.placement":
        raise StudyError(f'{where}: placements take a list, e.g. ["linear", "random:1"]')
    if not param.kinds:
        raise StudyError(f'{where}: cluster shapes take a list, e.g. ["1x32", "2x16", "4x8"]')
    example = RANGE_EXAMPLE[param.kinds[0]]
    if "from" not in spec or "to" not in spec:
        raise StudyError(f"{where}: a range needs from and to, e.g. {{ {example}, points = 8 }}")
    points, scale = spec.get("points"), spec.get("scale", "linear")
    if not isinstance(points, int) or isinstance(points, bool):
        raise StudyError(f"{where}: a range needs points = N, the number of values, e.g. 8")
    if points < 1:
        raise StudyError(f"{where}: empty grid: points = {points}")
    if points < 2:
        raise StudyError(f"{where}: a range needs at least 2 points; for one value give a list")
    if scale not in SCALES:
        raise StudyError(f"{where}: {_unknown('scale', str(scale), SCALES)}")
    raw = (spec["from"], spec["to"])
    if param.kinds != ("number",) and any(
        not isinstance(r, str) or not any(c.isalpha() for c in r) for r in raw
    ):
        raise StudyError(
            f"{where}: range without units (from = {raw[0]!r}, to = {raw[1]!r}); write e.g. "
            f"{example}"
        )
    lo = _parse(f"{where}.from", param, str(raw[0]))
    hi = _parse(f"{where}.to", param, str(raw[1]))
    if lo.kind != hi.kind:
        raise StudyError(
            f"{where}: from and to must be alike (both bandwidths or both per-byte costs), "
            f"got {raw[0]!r} and {raw[1]!r}"
        )
    if scale == "log" and (lo.value <= 0 or hi.value <= 0):
        raise StudyError(f"{where}: a log range needs from and to above zero")
    values = [_interpolate(lo.value, hi.value, i, points, scale) for i in range(points)]
    return list(dict.fromkeys(format_quantity(v, lo.kind, lo.unit) for v in values))


def _interpolate(lo: Fraction, hi: Fraction, i: int, n: int, scale: str) -> Fraction:
    """The i-th of n points from lo to hi: exact for linear, ends exact for log."""
    if scale == "linear":
        return lo + (hi - lo) * i / (n - 1)
    if i in (0, n - 1):
        return lo if i == 0 else hi
    return Fraction(math.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * i / (n - 1)))
