"""Study files: grids with units, combination, deduplication, point ids, bad input.

Expected values are worked out by hand in the comments (a range's points, how many
points a grid has); the engine only appears as the judge of canonical spellings.
"""

import hashlib
import shutil
from pathlib import Path

import pytest

from netsens.cli import main as cli
from netsens.study.definition import Study, StudyError, point_id
from netsens.units import format_quantity, parse_quantity

ROOT = Path(__file__).resolve().parent.parent
PINGPONG = ROOT / "examples/goal/pingpong.goal"


def make(tmp_path: Path, **fields) -> Study:
    """A study on loggopsim (L = 2.5us, o = 1.5us) rooted at tmp_path."""
    shutil.copy(PINGPONG, tmp_path / "pingpong.goal")
    fields.setdefault("workloads", ["radix"])
    fields.setdefault("ranks", [4])
    fields.setdefault("size", "tiny")
    return Study(name="t", base_dir=tmp_path, **fields)


def overrides_of(study: Study, axis: str) -> list[dict[str, str]]:
    """The overrides of one workload/ranks/seed's points on ``axis`` (not the baseline)."""
    points = [p for p in study.points() if p.seed == 0 and p.workload == "radix"]
    return [p.overrides for p in points if p.axis == axis]


# --- units ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kinds", "value", "kind"),
    [
        ("2.5us", ("time",), 2_500_000, "time"),
        ("2.5µs", ("time",), 2_500_000, "time"),
        ("1500ns", ("time",), 1_500_000, "time"),
        ("3ms", ("time",), 3_000_000_000, "time"),
        ("6ns/B", ("per_byte",), 6_000_000, "per_byte"),  # fs/B
        ("10Gbit/s", ("per_byte",), 1_250_000_000, "bandwidth"),  # B/s
        ("100MiB/s", ("per_byte",), 100 * 2**20, "bandwidth"),
        ("64KiB", ("size",), 65536, "size"),
        ("1.5KB", ("size",), 1500, "size"),
        ("2.5", ("number",), 2.5, "number"),
    ],
)
def test_parse_quantity(text, kinds, value, kind):
    q = parse_quantity("L", text, kinds)
    assert (q.value, q.kind) == (value, kind)


@pytest.mark.parametrize(
    ("text", "kinds", "message"),
    [
        ("5", ("time",), 'L: "5" has no unit; write a time such as 5us'),
        ("-1us", ("time",), 'L: "-1us" is negative; write a time such as 5us'),
        ("1e3ns", ("time",), 'L: unknown unit "e3ns" in "1e3ns"; write a time such as 5us'),
        ("5us", ("per_byte",), 'L: "5us" is a time, not a per-byte cost; write 5us/B'),
    ],
)
def test_parse_quantity_errors(text, kinds, message):
    with pytest.raises(ValueError) as e:
        parse_quantity("L", text, kinds)
    assert str(e.value) == message


def test_format_quantity_rounds_to_the_engine_resolution():
    assert format_quantity(4_000_000.0000001, "time", "us") == "4us"
    assert format_quantity(1_414_213.56, "time", "us") == "1.414214us"  # whole ps
    assert format_quantity(1000, "size", "KiB") == "0.9765625KiB"  # exact: 1000/1024
    assert format_quantity(1500.4, "per_byte", "ps/B") == "1.5ps/B"  # whole fs/B


# --- grids ------------------------------------------------------------------------------


def test_log_range_of_times(tmp_path):
    # 2us * 8^(i/3), i = 0..3: 2, 4, 8, 16 us.
    study = make(tmp_path, axes={"L": {"from": "2us", "to": "16us", "points": 4, "scale": "log"}})
    assert study.axis_values == {"L": ["2us", "4us", "8us", "16us"]}
    assert overrides_of(study, "L") == [{"L": v} for v in ["2us", "4us", "8us", "16us"]]


def test_linear_range_of_times(tmp_path):
    # The seed's o range: (103 - 2.9) / 7 = 14.3 us apart.
    study = make(tmp_path, axes={"o": {"from": "2.9us", "to": "103us", "points": 8}})
    expected = ["2.9us", "17.2us", "31.5us", "45.8us", "60.1us", "74.4us", "88.7us", "103us"]
    assert study.axis_values["o"] == expected


def test_log_range_rounds_to_whole_picoseconds(tmp_path):
    # The middle of 1us..2us on a log scale is sqrt(2) us = 1414213.56 ps -> 1414214 ps.
    study = make(tmp_path, axes={"L": {"from": "1us", "to": "2us", "points": 3, "scale": "log"}})
    assert study.axis_values["L"] == ["1us", "1.414214us", "2us"]


def test_log_range_of_bandwidths(tmp_path):
    # 10 MB/s * 10^i: 10, 100, 1000 MB/s, i.e. 1e15 / 1e7 = 1e8 fs/B = 100 ns/B, 10, 1 ns/B.
    axes = {"G": {"from": "10MB/s", "to": "1GB/s", "points": 3, "scale": "log"}}
    study = make(tmp_path, axes=axes)
    assert study.axis_values["G"] == ["10MB/s", "100MB/s", "1000MB/s"]
    assert overrides_of(study, "G") == [{"G": "100ns/B"}, {"G": "10ns/B"}, {"G": "1ns/B"}]


def test_linear_range_of_sizes(tmp_path):
    study = make(tmp_path, axes={"S": {"from": "1KiB", "to": "4KiB", "points": 4}})
    assert overrides_of(study, "S") == [{"S": f"{k}KiB"} for k in (1, 2, 3, 4)]


def test_cpu_speed_range_needs_no_unit(tmp_path):
    study = make(tmp_path, axes={"cpu_speed": {"from": 1, "to": 4, "points": 4}})
    assert study.axis_values["cpu_speed"] == ["1", "2", "3", "4"]


def test_each_and_product_counts(tmp_path):
    # L = 2.5us and o = 1.5us are the platform's own values: those are the baseline.
    # each: per (workload, ranks, seed) 1 baseline + 2 L + 1 o = 4 points; radix has
    # 2 seeds, the deterministic GOAL file 1: 4 * 3 = 12.
    # product: 3 x 2 = 6 cells, (2.5us, 1.5us) = the baseline, so 1 + 5 = 6 per
    # (workload, ranks, seed): 6 * 3 = 18.
    fields = {
        "workloads": ["radix", "pingpong.goal"],
        "seeds": 2,
        "deterministic": ["pingpong.goal"],
        "axes": {"L": ["2.5us", "5us", "10us"], "o": ["1.5us", "3us"]},
    }
    each = make(tmp_path, **fields).points()
    assert len(each) == 12
    product = make(tmp_path, combine="product", **fields).points()
    assert len(product) == 18
    assert sorted({p.seed for p in each if p.workload == "pingpong.goal"}) == [0]
    assert {p.ranks for p in each if p.workload == "pingpong.goal"} == {2}  # its num_ranks


def test_baseline_point_belongs_to_every_axis(tmp_path):
    study = make(tmp_path, axes={"L": ["2500ns", "5us"], "o": ["3us"]})
    points = study.points()
    assert [p.axes for p in points] == [["baseline", "L", "o"], ["L"], ["o"]]
    assert points[0].overrides == {}  # L = 2500ns is loggopsim's own L: no override


def test_equal_values_are_one_point(tmp_path):
    study = make(tmp_path, axes={"L": ["5us", "5000ns", "0.005ms"]})
    assert [p.overrides for p in study.points()] == [{}, {"L": "5us"}]


def test_study_baseline_overrides(tmp_path):
    # The baseline sets o = 2.9us; the o axis point at loggopsim's own o (1.5us) is a
    # different point from the baseline, and L points keep o = 2.9us.
    study = make(tmp_path, baseline={"o": "2900ns"}, axes={"o": ["1.5us", "2.9us"], "L": ["5us"]})
    assert [(p.axes, p.overrides) for p in study.points()] == [
        (["baseline", "o", "L"], {"o": "2.9us"}),
        (["o"], {}),
        (["L"], {"L": "5us", "o": "2.9us"}),
    ]


def test_point_id_is_sha256_of_canonical_json(tmp_path):
    text = (
        '{"overrides":{"L":"5us"},"platform":"loggopsim","ranks":4,"seed":0,'
        '"size":"tiny","workload":"radix"}'
    )
    expected = hashlib.sha256(text.encode()).hexdigest()[:16]
    assert point_id("radix", "tiny", 4, "loggopsim", 0, {"L": "5us"}) == expected
    study = make(tmp_path, axes={"L": ["5000ns"]})
    assert study.points()[1].point_id == expected
    # The same study written differently has the same ids.
    again = make(tmp_path, axes={"o": ["3us"], "L": ["0.005ms"]})
    assert {p.point_id for p in again.points()} >= {expected}


def test_from_toml_cli_over_file_over_default(tmp_path):
    shutil.copy(PINGPONG, tmp_path / "pingpong.goal")
    path = tmp_path / "s.toml"
    path.write_text(
        'name = "s"\nworkloads = ["radix", "pingpong.goal"]\nranks = [4]\nseeds = 3\n'
        '[axes]\nL = ["5us"]\n'
    )
    study = Study.from_toml(path, ranks=[8, 16], seeds=None)
    assert study.ranks == [8, 16]  # CLI
    assert study.seeds == [0, 1, 2]  # file
    assert (study.platform, study.size, study.combine) == ("loggopsim", "small", "each")
    assert study.results_dir == tmp_path / "results" / "s"  # beside the study file
    assert [w.label for w in study.workload_list] == ["radix", "pingpong.goal"]


def test_all_workloads(tmp_path):
    study = make(tmp_path, workloads="all", axes={"L": ["5us"]})
    assert "radix" in [w.label for w in study.workload_list]
    assert all(w.kind == "app" for w in study.workload_list)


def test_ranks_must_fit_the_clusters(tmp_path):
    study = make(tmp_path, platform="das1998", axes={"L": ["5us"]})
    with pytest.raises(StudyError) as e:
        study.points()
    assert str(e.value) == (
        "ranks: radix at 4 ranks does not fit the clusters of baseline (4x8, 32 ranks); "
        "set ranks to 32 or change clusters"
    )


# --- bad study files through the command line ------------------------------------------

HEAD = 'name = "x"\nworkloads = ["radix"]\nranks = [4]\n'
AXES = '[axes]\nL = ["5us"]\n'
BAD = {
    "unknown parameter": (
        HEAD + '[axes]\nX = ["5us"]\n',
        'axes: unknown parameter "X" (known: L, o, g, G, O, S, wan_latency, wan_bandwidth, '
        "cpu_speed, clusters, topology.taper, topology.global_bandwidth, topology.placement)",
    ),
    "parameter in the wrong case": (
        HEAD + '[axes]\nl = ["5us"]\n',
        'axes: unknown parameter "l"; did you mean "L"? (known: L, o, g, G, O, S, '
        "wan_latency, wan_bandwidth, cpu_speed, clusters, topology.taper, "
        "topology.global_bandwidth, topology.placement)",
    ),
    "range without units": (
        HEAD + "[axes]\nL = { from = 2, to = 16, points = 4 }\n",
        'axes.L: range without units (from = 2, to = 16); write e.g. from = "2us", to = "16us"',
    ),
    "value without unit": (
        HEAD + '[axes]\nL = ["5", "10us"]\n',
        'axes.L: "5" has no unit; write a time such as 5us',
    ),
    "no axes": (
        HEAD,
        'axes: empty grid; give at least one axis, e.g. [axes] L = ["5us", "10us"]',
    ),
    "empty list": (HEAD + "[axes]\nL = []\n", "axes.L: empty grid: the list has no values"),
    "no points": (
        HEAD + '[axes]\nL = { from = "2us", to = "16us", points = 0 }\n',
        "axes.L: empty grid: points = 0",
    ),
    "unknown app": (
        'name = "x"\nworkloads = ["radx"]\nranks = [4]\n' + AXES,
        'workloads: unknown application "radx"; did you mean "radix"? (known: pingpong, '
        "stencil, radix, radb, sample, em3d-write, em3d-read, barnes, pray, murphi, connect, "
        "nowsort, ft, is, mg, asp, fft1d, water, tsp, bh, awari); a GOAL file must end in .goal",
    ),
    "unknown key": (
        'name = "x"\nworkloads = ["radix"]\nrank = [4]\n' + AXES,
        'unknown key "rank"; did you mean "ranks"? (known: name, description, results, '
        "platform, workloads, size, ranks, seeds, combine, deterministic, axes, baseline, "
        "mode, mpi, variants, slurm, beside)",
    ),
    "unknown range key": (
        HEAD + '[axes]\nL = { from = "2us", to = "16us", point = 4 }\n',
        'axes.L: unknown range key "point"; did you mean "points"? (known: from, to, points, '
        "scale)",
    ),
    "bad ranks": (
        'name = "x"\nworkloads = ["radix"]\nranks = [0]\n' + AXES,
        "ranks: must be a list of positive integers such as [4, 32], got [0]",
    ),
    "no ranks": (
        'name = "x"\nworkloads = ["radix"]\n' + AXES,
        "ranks: required for applications, e.g. ranks = [32]",
    ),
    "no name": ('workloads = ["radix"]\nranks = [4]\n' + AXES, "name: required key is missing"),
    "log range through zero": (
        HEAD + '[axes]\nL = { from = "0us", to = "16us", points = 4, scale = "log" }\n',
        "axes.L: a log range needs from and to above zero",
    ),
    "missing GOAL file": (
        'name = "x"\nworkloads = ["nosuch.goal"]\n' + AXES,
        'workloads: GOAL file "nosuch.goal" not found (in {dir})',
    ),
    "override the engine rejects": (
        HEAD + '[axes]\nwan_latency = ["5us"]\n',
        'axes.wan_latency: platform "loggopsim" has no wide-area links; give wan_latency and '
        "wan_bandwidth together to add them",
    ),
    "bad baseline": (
        HEAD + AXES + '[baseline]\no = "3"\n',
        'baseline: o: "3" has no unit; write a time such as 5us',
    ),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_study_file(case, tmp_path, capsys):
    text, message = BAD[case]
    path = tmp_path / "study.toml"
    path.write_text(text)
    assert cli.main(["sweep", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"netsens: error: {path}: {message.format(dir=tmp_path)}\n"
    assert not (tmp_path / "results").exists()


def test_missing_study_file(tmp_path, capsys):
    assert cli.main(["sweep", str(tmp_path / "no.toml")]) == 2
    assert (
        capsys.readouterr().err == f"netsens: error: {tmp_path / 'no.toml'}: study file not found\n"
    )
