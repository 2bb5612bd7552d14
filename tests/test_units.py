"""Formatting of results for people: adaptive time units and exact byte counts."""

import pytest

from netsens.units import format_bytes, format_time


@pytest.mark.parametrize(
    ("ps", "text"),
    [
        (0, "0 ns"),
        (40, "40 ps"),
        (1_500, "1.5 ns"),
        (5_500_000, "5.5 us"),
        (22_000_000, "22 us"),
        (616_494_000, "616.494 us"),
        (3_000_000_000, "3 ms"),
        (4_001_500_000, "4.002 ms"),
        (2_000_000_000_000, "2 s"),
    ],
)
def test_format_time(ps, text):
    assert format_time(ps) == text


def test_format_bytes():
    assert format_bytes(100_000) == "100,000 B"
    assert format_bytes(0) == "0 B"
