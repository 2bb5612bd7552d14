"""The network presets of `netsens compare` (docs/reference/networks.md): netsens's own
ping-pong (ten round trips, of the size the published figure is given at) and streaming
bandwidth (64 x 1 MiB, osu_bw's way) on every preset, on its topology, give the
published half round trip and bandwidth within 10 %; each preset sizes its topology to
the job."""

import math

import pytest

from netsens.compare.goals import measure_network
from netsens.compare.networks import DEFAULT, PRESETS, resolve


@pytest.mark.parametrize("name", list(PRESETS))
def test_ping_pong_and_streaming_give_the_published_figures(name):
    preset = PRESETS[name]
    sized = resolve(name, 2)
    want = preset.published
    got = measure_network(sized.platform, sized.overrides, want.size_B)
    assert got["half_round_trip_ps"] == pytest.approx(want.half_round_trip_ps, rel=0.10)
    assert got["bandwidth_Bps"] == pytest.approx(want.bandwidth_Bps, rel=0.10)


def test_the_half_round_trip_is_the_end_points_and_two_links_by_hand():
    # Nothing shared: LogGP's o + L + o plus the route's two links (host to leaf and
    # back down): ib-ndr 200 + 400 + 200 + 2 x 100 ns = 1000 ns exactly.
    sized = resolve("ib-ndr", 2)
    assert measure_network(sized.platform, sized.overrides)["half_round_trip_ps"] == 1_000_000


def test_the_default_networks_are_those_sold_today():
    assert DEFAULT == ["ib-ndr", "ib-ndr-2to1", "slingshot-11", "roce-100", "roce-400", "tcp-25g"]
    assert all(PRESETS[n].reference for n in ("now1997", "das1998"))


@pytest.mark.parametrize(
    ("name", "ranks", "hosts", "tapered"),
    [
        ("ib-ndr", 64, 64, False),  # 2 leaves of 32
        ("ib-ndr", 100, 128, False),  # ceil(100 / 32) = 4 leaves
        ("ib-ndr-2to1", 64, 64, True),
        ("roce-100", 64, 96, True),  # at least 2 leaves of 48
        ("tcp-25g", 200, 240, True),  # 5 leaves of 48
        ("slingshot-11", 64, 1024, False),  # 2 groups of 32 x 16
        ("slingshot-11", 1100, 1536, False),  # 3 groups
    ],
)
def test_a_preset_grows_its_tree_or_groups_to_the_job(name, ranks, hosts, tapered):
    sized = resolve(name, ranks)
    assert (sized.hosts, sized.tapered) == (hosts, tapered)
    assert sized.hosts >= ranks
    assert sized.hosts == resolve(name, 1, hosts=ranks).hosts  # --hosts sizes it the same


def test_the_taper_is_a_parameter_of_a_fat_tree_preset():
    assert resolve("ib-ndr", 64, taper="2:1").tapered
    assert not resolve("roce-400", 64, taper="1:1").tapered
    # 4:1 on 32 hosts a leaf leaves 8 up links.
    assert resolve("ib-ndr", 64, taper="4:1").overrides["topology.taper"] == "4:1"
    assert math.prod([32, 2]) == resolve("ib-ndr", 40).hosts


def test_the_seeds_have_no_topology():
    for name in ("now1997", "das1998"):
        sized = resolve(name, 8)
        assert sized.topology is None
