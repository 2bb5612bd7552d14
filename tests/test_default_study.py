"""The default study of `make run` (studies/isca97.toml): the grid Martin et al. swept.

Hand-derived: 8 evenly spaced points from 2.9 us to 102.9 us are 100/7 us apart
(2.9, 17.185714, ..., 102.9 us at the engine's 1 ps resolution); L from 5 to 100 us
in steps of 95/7 us; G from 1/(38 MB/s) = 26.315789 ns/B to 1000 ns/B (1 MB/s). Each
axis holds the NOW's own value as its first point, which is the baseline point, so
every (workload, seed) has 1 + 4 x 7 = 29 distinct points; 10 applications are
randomised (3 seeds) and ft, mg and radix are not (1 seed): (10 x 3 + 3) x 29 = 957
points.
"""

from pathlib import Path

import pytest

from netsens.study.definition import Study
from netsens.units import parse_quantity

ROOT = Path(__file__).resolve().parent.parent
STUDY = ROOT / "studies/isca97.toml"


@pytest.fixture(scope="module")
def study():
    return Study.from_toml(STUDY)


def _ps(text: str) -> float:
    return float(parse_quantity("time", text, ("time",)).value)


def _fs_per_byte(text: str) -> float:
    return float(parse_quantity("G", text, ("per_byte",)).value)


def test_every_application_of_the_suite_at_32_ranks_on_the_now(study):
    names = {p.workload for p in study.points()}
    assert names == {
        "radix", "radb", "sample", "em3d-write", "em3d-read", "barnes", "pray",
        "murphi", "connect", "nowsort", "ft", "is", "mg",
    }  # fmt: skip
    assert {p.ranks for p in study.points()} == {32}
    assert {p.size for p in study.points()} == {"small"}
    assert {p.platform for p in study.points()} == {"now1997"}


def test_point_count_derived_by_hand(study):
    points = study.points()
    assert len(points) == (10 * 3 + 3) * 29 == 957
    assert len({p.point_id for p in points}) == len(points)
    assert {p.seed for p in points if p.workload == "ft"} == {0}
    assert {p.seed for p in points if p.workload == "radix"} == {0}
    assert {p.seed for p in points if p.workload == "radb"} == {0, 1, 2}


def test_axes_span_the_seed_ranges(study):
    values = study.axis_values
    o = [_ps(v) for v in values["o"]]
    step = 100e6 / 7  # ps
    assert o == pytest.approx([2.9e6 + i * step for i in range(8)], abs=1)
    L = [_ps(v) for v in values["L"]]
    assert L == pytest.approx([5e6 + i * 95e6 / 7 for i in range(8)], abs=1)
    g = [_ps(v) for v in values["g"]]
    assert g[0] == 5.8e6 and g[-1] == 105.8e6
    G = [_fs_per_byte(v) for v in values["G"]]
    assert G[0] == pytest.approx(1e15 / 38e6, abs=1) and G[-1] == 1e9  # fs/B
    assert G == pytest.approx([G[0] + i * (1e9 - G[0]) / 7 for i in range(8)], abs=1)
