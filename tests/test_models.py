"""Martin's simple models (netsens.models.martin) and `netsens explain`.

Every expected number is derived by hand, from the model's formula and the counts, or
from the LogGP rules of LOGGP.md for a schedule simple enough to time on paper. The
results frames are built as ``netsens.study.store.load`` returns them (tests/frames.py):
from made-up numbers, or from real runs of ``netsens.run``.
"""

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from frames import run_curves, stored_row, synthetic_frame

import netsens
from netsens.cli import main as cli
from netsens.errors import InputError
from netsens.models.martin import explain, model_table
from netsens.study import store

ROOT = Path(__file__).resolve().parent.parent
US = 1_000_000  # ps per us
MS = 1_000_000_000  # ps per ms
# now1997 as the synthetic frames resolve it: o0 = 2.9 us, g0 = 5.8 us, L0 = 5 us,
# G0 = 26315.789 ps/B, O0 = 0.
O0, G0_GAP, L0, G0 = 2.9 * US, 5.8 * US, 5 * US, 26_315.789


def rows(table: pl.DataFrame, model: str) -> list[dict]:
    return table.filter(pl.col("model") == model).sort("value").to_dicts()


# ---- each model's formula, by hand from the counts ------------------------------


def test_overhead_model_is_baseline_plus_two_delta_o_per_busiest_rank_message():
    # The busiest rank sent m = 1000 messages. At o = 12.9 us (Δo = 10 us) the model
    # adds 2 · 1000 · 10 us = 20 ms to the 30 ms baseline: 50 ms, slowdown 5/3.
    df = synthetic_frame(
        {"o": [(12.9 * US, 48 * MS), (22.9 * US, 70 * MS)]},
        baseline_makespan_ps=30 * MS,
        messages_max=1000,
    )
    over = rows(model_table(df), "overhead")
    assert [r["value"] for r in over] == [O0, 12.9 * US, 22.9 * US]
    assert over[0]["predicted_makespan_ps"] == 30 * MS  # the baseline point
    assert over[1]["predicted_makespan_ps"] == pytest.approx(50 * MS, rel=1e-12)
    assert over[1]["predicted_slowdown"] == pytest.approx(5 / 3)
    assert over[1]["measured_makespan_ps"] == 48 * MS
    assert over[1]["rel_error"] == pytest.approx(50 / 48 - 1)
    # Δo = 20 us: 30 ms + 2 · 1000 · 20 us = 70 ms, exactly the measurement.
    assert over[2]["predicted_makespan_ps"] == pytest.approx(70 * MS, rel=1e-12)
    assert over[2]["rel_error"] == pytest.approx(0, abs=1e-12)
    assert {r["count_name"] for r in over} == {"messages_max"}
    assert {r["count"] for r in over} == {1000}


def test_gap_model_is_flat_until_g_exceeds_two_o():
    # m = 1000; 2·o0 = 5.8 us = g0. g = 1 us is below the burst interval 2·o0: no
    # change. g = 15.8 us: 1000 · (15.8 - 5.8) us = 10 ms more.
    df = synthetic_frame(
        {"g": [(1 * US, 30 * MS), (15.8 * US, 40 * MS)]},
        baseline_makespan_ps=30 * MS,
        messages_max=1000,
    )
    gap = rows(model_table(df), "gap")
    assert [r["predicted_makespan_ps"] for r in gap] == pytest.approx([30 * MS, 30 * MS, 40 * MS])
    # With o0 = 1 us (burst 2 us < g0 = 5.8 us) every μs of g counts: Martin's m·Δg,
    # also downwards, until g reaches 2 us: g = 1 us gives 1000 · (2 - 5.8) us.
    df = synthetic_frame(
        {"g": [(1 * US, 26.2 * MS), (15.8 * US, 40 * MS)]},
        baseline_makespan_ps=30 * MS,
        messages_max=1000,
        params={"o_ps": 1 * US},
    )
    gap = rows(model_table(df), "gap")
    assert [r["predicted_makespan_ps"] for r in gap] == pytest.approx([26.2 * MS, 30 * MS, 40 * MS])


def test_latency_model_counts_round_trips_and_collective_depths():
    # 8 ranks; the busiest rank's counts: 10 gets and 1 put (round trips, 2 hops each),
    # 3 store_syncs (1 hop), 2 barriers and 1 allreduce (log2 8 = 3 hops each), 1
    # alltoall (8 - 1 = 7 hops), and sends that do not count.
    # h = 2·11 + 3 + 3·3 + 7 = 41 hops; ΔL = 20 us adds 820 us.
    prims = {"get": 10, "put": 1, "store_sync": 3, "barrier": 2, "allreduce": 1}
    prims |= {"alltoall": 1, "send": 500, "recv": 500, "coll_send": 40, "compute": 9}
    df = synthetic_frame(
        {"L": [(25 * US, 31 * MS)]},
        baseline_makespan_ps=30 * MS,
        ranks=8,
        primitives=prims,
    )
    lat = rows(model_table(df), "latency")
    assert lat[-1]["count"] == 41
    assert lat[-1]["predicted_makespan_ps"] == pytest.approx(30 * MS + 41 * 20 * US)


def test_bulk_and_per_byte_overhead_models():
    # B = 100,000 bytes from the busiest rank. G = 126315.789 ps/B (ΔG = 100 ns/B):
    # 100,000 · 100 ns = 10 ms more.
    # O = 10 ns/B (below G0 = 26.3 ns/B): only the sender's O: 100,000 · 10 ns = 1 ms.
    # O = 100 ns/B: the sender's 100 ns/B and the receiver's max(O, G0) - G0 =
    # 73.684211 ns/B: 100,000 · 173.684211 ns = 17.3684211 ms.
    df = synthetic_frame(
        {
            "G": [(G0 + 100_000, 40 * MS)],
            "O": [(10_000, 31 * MS), (100_000, 47 * MS)],
        },
        baseline_makespan_ps=30 * MS,
        bytes_max=100_000,
    )
    table = model_table(df)
    bulk = rows(table, "bulk")
    assert bulk[-1]["predicted_makespan_ps"] == pytest.approx(40 * MS)
    per_byte = rows(table, "per_byte_overhead")
    assert [r["value"] for r in per_byte] == [0, 10_000, 100_000]
    expected = [30 * MS, 31 * MS, 30 * MS + 17.3684211 * MS]
    assert [r["predicted_makespan_ps"] for r in per_byte] == pytest.approx(expected)


def test_a_model_that_does_not_apply_is_absent():
    df = synthetic_frame(
        {"S": [(1024.0, 31 * MS)], "cpu_speed": [(2.0, 20 * MS)], "o": [(10 * US, 40 * MS)]},
        baseline_makespan_ps=30 * MS,
    )
    table = model_table(df)
    assert set(table["axis"]) == {"o"}
    assert set(table["model"]) == {"overhead"}


def test_the_cluster_shape_is_a_curve_of_cluster_counts_without_a_model(tmp_path):
    # The value of a clusters row is the number of clusters: one for the baseline's
    # single cluster (a null shape), 4 for 4x2, 2 for 2+6; the same from the store.
    df = synthetic_frame(
        {"clusters": [("4x2", 31 * MS), ("2+6", 32 * MS)]}, baseline_makespan_ps=30 * MS, ranks=8
    )
    assert sorted(df.select("value", "value_unit", "is_baseline").rows()) == [
        (1.0, "clusters", True),
        (2.0, "clusters", False),
        (4.0, "clusters", False),
    ]
    as_stored = df.with_columns(
        axis=pl.when("is_baseline").then(pl.lit("baseline")).otherwise("axis")
    ).drop(list(store.DERIVED))
    for row in as_stored.to_dicts():
        store.write_point(tmp_path, row)
    loaded = store.load(tmp_path).filter(pl.col("axis") == "clusters").sort("value")
    assert loaded.select("value", "value_unit", "is_baseline").rows() == [
        (2.0, "clusters", False),
        (4.0, "clusters", False),
    ]
    assert loaded["slowdown"].to_list() == pytest.approx([32 / 30, 31 / 30])
    # No model and no fit for the shape.
    assert model_table(df).is_empty()
    (e,) = explain(df)
    assert (e.axes, e.models, e.most_sensitive) == ([], [], None)


def test_goal_workloads_have_no_latency_model(tmp_path):
    # A GOAL schedule has no primitive counts (gets, barriers): no latency model.
    df = run_curves(
        str(ROOT / "tests/data/pingpong.goal"),
        {"L": ["10us"], "o": ["3us"]},
        platform="loggopsim",
    )
    table = model_table(df)
    assert set(table["model"]) == {"overhead"}


def test_seeds_are_folded_by_the_median():
    # Three seeds: baselines 30, 31, 35 ms (median 31), counts 1000, 1100, 900
    # (median 1000); at o = 12.9 us the makespans 50, 52, 60 ms (median 52).
    stored = []
    for seed, (t0, m, t) in enumerate([(30, 1000, 50), (31, 1100, 52), (35, 900, 60)]):
        f = synthetic_frame(
            {"o": [(12.9 * US, t * MS)]}, baseline_makespan_ps=t0 * MS, messages_max=m, seed=seed
        )
        stored.append(f)
    table = model_table(pl.concat(stored))
    row = rows(table, "overhead")[-1]
    assert (row["seeds"], row["measured_makespan_ps"], row["count"]) == (3, 52 * MS, 1000)
    # 31 ms + 2 · 1000 · 10 us = 51 ms.
    assert row["predicted_makespan_ps"] == pytest.approx(51 * MS)
    assert row["predicted_slowdown"] == pytest.approx(51 / 31)


def test_baseline_rows_kept_or_folded_give_the_same_table():
    curves = {"o": [(10 * US, 40 * MS)], "g": [(20 * US, 50 * MS)], "L": [(50 * US, 30.5 * MS)]}
    args = {"baseline_makespan_ps": 30 * MS, "primitives": {"barrier": 3}}
    folded = model_table(synthetic_frame(curves, **args))
    kept = model_table(synthetic_frame(curves, keep_baseline_rows=True, **args))
    assert folded.equals(kept)
    assert len(folded) == 6


def test_a_frame_without_the_counters_is_an_input_error():
    df = synthetic_frame({"o": [(10 * US, 40 * MS)]}, baseline_makespan_ps=30 * MS)
    with pytest.raises(InputError, match="missing column.*messages_max"):
        model_table(df.drop("messages_max"))


# ---- the models against the simulation -----------------------------------------


def exchange_goal(n: int) -> str:
    """Two ranks each send n 1-byte messages to the other and receive n, all at once."""
    lines = ["num_ranks 2"]
    for rank in range(2):
        lines.append(f"rank {rank} {{")
        lines += [f"l{i + 1}: send 1b to {1 - rank} tag {i}" for i in range(n)]
        lines += [f"l{n + i + 1}: recv 1b from {1 - rank} tag {i}" for i in range(n)]
        lines.append("}")
    return "\n".join(lines) + "\n"


def pingpong_goal(n: int) -> str:
    """n 1-byte round trips, each send waiting for the previous receive."""
    lines = ["num_ranks 2"]
    for rank, (first, second) in enumerate([("send", "recv"), ("recv", "send")]):
        lines.append(f"rank {rank} {{")
        for i in range(n):
            a, b = 2 * i + 1, 2 * i + 2
            for label, op in ((a, first), (b, second)):
                word = "to" if op == "send" else "from"
                lines.append(f"l{label}: {op} 1b {word} {1 - rank} tag {i}")
            lines.append(f"l{b} requires l{a}")
            if i:
                lines.append(f"l{a} requires l{a - 1}")
        lines.append("}")
    return "\n".join(lines) + "\n"


def test_overhead_model_is_exact_for_a_cpu_bound_exchange(tmp_path):
    # Each rank sends n = 50 messages and receives 50 (g = 1 us < o, 1-byte messages:
    # k = 0). Its CPU pays o per send and per arrival; arrivals come every o after
    # o + L, so with L <= (n - 1)·o the CPU never idles: T = 2·n·o on both ranks.
    # The busiest rank sent m = 50: the model's 2·m·Δo is exactly the change.
    goal = tmp_path / "exchange.goal"
    goal.write_text(exchange_goal(50))
    base = {"o": "10us", "L": "5us", "g": "1us"}
    df = run_curves(str(goal), {"o": ["20us", "50us"]}, platform="loggopsim", baseline=base)
    over = rows(model_table(df), "overhead")
    assert [r["measured_makespan_ps"] for r in over] == [2 * 50 * o * US for o in (10, 20, 50)]
    assert [r["predicted_makespan_ps"] for r in over] == [2 * 50 * o * US for o in (10, 20, 50)]
    assert [r["rel_error"] for r in over] == [0, 0, 0]


def test_overhead_model_under_predicts_a_ping_pong_by_half_the_change(tmp_path):
    # n = 20 round trips: each is o + L + o one way and o + L + o back, T = n·(4·o + 2·L)
    # (LOGGP.md; LogGOPSim's 14000 ns for one round trip with L = 5 us, o = 1 us).
    # The critical path crosses both CPUs, so Δo costs 4·n·Δo while the model, from
    # the busiest rank's m = 20 messages, adds 2·n·Δo: the seed's under-prediction.
    n, lat = 20, 5
    goal = tmp_path / "pingpong.goal"
    goal.write_text(pingpong_goal(n))
    base = {"o": "1us", "L": f"{lat}us", "g": "1us"}
    df = run_curves(str(goal), {"o": ["11us"]}, platform="loggopsim", baseline=base)
    row = rows(model_table(df), "overhead")[-1]
    t0 = n * (4 * 1 + 2 * lat) * US
    assert row["measured_makespan_ps"] == n * (4 * 11 + 2 * lat) * US
    assert row["predicted_makespan_ps"] == t0 + 2 * n * 10 * US
    assert row["rel_error"] == pytest.approx((t0 + 400 * US) / (t0 + 800 * US) - 1)


@pytest.fixture(scope="module")
def radix_o():
    """radix, tiny, 4 ranks on now1997, o swept over the seed's range 2.9-103 us."""
    return run_curves("radix", {"o": ["10us", "30us", "60us", "103us"]}, ranks=4)


def test_overhead_model_explains_radix(radix_o):
    # Martin: radix's slowdown under overhead follows the overhead model. Its busiest
    # rank sent 3099 messages (3072 stores, 26 collective messages, 1 send); the
    # model is within 1% of the simulation at every o (0.66% at worst, at 10 us: the
    # collectives' waits shift a little), and the slowdown at 103 us is over 30x.
    base = radix_o.filter(pl.col("axis") == "o").sort("value").row(0, named=True)
    over = rows(model_table(radix_o), "overhead")
    assert over[0]["count"] == base["messages_max"] == 3099
    for r in over:
        expected = base["makespan_ps"] + 2 * 3099 * (r["value"] - O0)
        assert r["predicted_makespan_ps"] == pytest.approx(expected, rel=1e-12)
        assert abs(r["rel_error"]) < 0.01
    assert over[-1]["measured_slowdown"] > 30


def test_em3d_read_fits_the_latency_model_not_the_overhead_model():
    # The seed: EM3D(read) is "the only application for which a simple model of
    # latency is accurate", and "the simple overhead model under predicts the run
    # time". Its blocking reads are round trips on the critical path of two CPUs.
    df = run_curves("em3d-read", {"L": ["25us", "50us", "100us"], "o": ["53us", "103us"]}, ranks=8)
    table = model_table(df)
    moved = table.filter(pl.col("rel_error") != 0)
    latency = moved.filter(pl.col("model") == "latency")["rel_error"].abs()
    overhead = moved.filter(pl.col("model") == "overhead")["rel_error"]
    assert latency.max() < 0.06
    assert overhead.max() < -0.3


# ---- explain -------------------------------------------------------------------


def two_axis_frame() -> pl.DataFrame:
    # o: 30 ms -> 90 ms over 2.9-52.9 us (slowdown 3); L: 30 -> 33 ms (1.1).
    return synthetic_frame(
        {
            "o": [(12.9 * US, 42 * MS), (32.9 * US, 66 * MS), (52.9 * US, 90 * MS)],
            "L": [(25 * US, 31 * MS), (50 * US, 32 * MS), (100 * US, 33 * MS)],
        },
        baseline_makespan_ps=30 * MS,
        messages_max=600,
        primitives={"barrier": 10},
    )


def test_explain_names_the_largest_slowdown():
    (e,) = explain(two_axis_frame())
    assert (e.workload, e.ranks, e.most_sensitive) == ("synth", 4, "o")
    assert (e.max_slowdown, e.at_value, e.at_unit) == (3.0, 52.9, "us")
    assert [a["axis"] for a in e.axes] == ["L", "o"]
    # The overhead model: 30 ms + 2 · 600 · Δo = 42, 66, 90 ms: exact at every point.
    over = next(m for m in e.models if m["model"] == "overhead")
    assert over["points"] == 3
    assert over["max_abs_rel_error"] == pytest.approx(0, abs=1e-12)
    # The latency model: 10 barriers · log2 4 = 20 hops; 20 · 20 us = 0.4 ms at 25 us
    # (measured 1 ms more), 0.9 ms at 50 us (2 ms), 1.9 ms at 100 us (3 ms).
    lat = next(m for m in e.models if m["model"] == "latency")
    errors = [30.4 / 31 - 1, 30.9 / 32 - 1, 31.9 / 33 - 1]
    assert lat["max_abs_rel_error"] == pytest.approx(max(map(abs, errors)))
    assert lat["mean_abs_rel_error"] == pytest.approx(sum(map(abs, errors)) / 3)


def netsens_cli(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_explain_prints_units_and_json(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("netsens.cli.explain.results", lambda *_a, **_k: two_axis_frame())
    assert cli.main(["explain", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "synth (size tiny, 4 ranks): baseline run time 30 ms" in out
    assert "most sensitive to o (largest slowdown over its range): 3x at 52.9 us" in out
    assert "1.2 ms/us" in out  # the line through the o curve: 2 · 600 · 1 us per us
    assert "overhead: T = T0 + 2·m·Δo" in out and "m = 600 messages" in out
    assert cli.main(["explain", str(tmp_path), "--json"]) == 0
    (e,) = json.loads(capsys.readouterr().out)
    assert e["most_sensitive"] == "o"
    o_fit = next(a for a in e["axes"] if a["axis"] == "o")
    assert o_fit["slope"] == pytest.approx(1.2e-3)  # s per us
    assert o_fit["slope_unit"] == "s per us"


def touch(path: Path) -> Path:
    path.write_text("")
    return path


def write_study(path: Path) -> Path:
    """A valid study file whose results directory (results/never-run) does not exist."""
    text = 'name = "never-run"\nworkloads = ["radix"]\nranks = [4]\nsize = "tiny"\n'
    path.write_text(text + '[axes]\no = ["10us", "20us"]\n')
    return path


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p / "missing", "no such study file or results directory"),
        (lambda p: p, "no stored points"),
        (lambda p: (p / "points").mkdir() or p, "no stored points"),
        (lambda p: touch(p / "x.txt"), "expected a study file"),
        (lambda p: write_study(p / "s.toml"), "no such results directory"),
    ],
    ids=["missing-dir", "empty-dir", "no-points", "not-a-study", "study-without-results"],
)
def test_explain_bad_input_is_one_line_and_exit_2(tmp_path, make, says):
    proc = netsens_cli("explain", make(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("netsens: error: "), proc.stderr
    assert says in lines[0]


def test_explain_reads_a_results_directory(tmp_path):
    # Through the real store: stored points (one Parquet row each under points/), read
    # back by netsens.study.store.load.
    stored = []
    base = netsens.run("radix", "now1997", 4, "tiny")
    stored.append(stored_row(base, axis="baseline", overrides={}))
    for o in ("30us", "103us"):
        r = netsens.run("radix", "now1997", 4, "tiny", 0, {"o": o})
        stored.append(stored_row(r, axis="o", overrides={"o": o}))
    for row in stored:
        store.write_point(tmp_path, row)
    proc = netsens_cli("explain", tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    (e,) = json.loads(proc.stdout)
    assert (e["workload"], e["most_sensitive"]) == ("radix", "o")
