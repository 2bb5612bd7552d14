"""The wide-area study's stored link traffic (Figure 3 left), its Tables 1 and 2 and
the cluster structures, from companion studies stored next to the sweep."""

from pathlib import Path

import polars as pl
import pytest

from netsens.report.wan_figures import traffic_per_cluster
from netsens.report.wan_tables import structures, table1, table2
from netsens.study import store
from netsens.study.definition import Study
from netsens.study.sweep import run_study

MS = 10**9


def study(tmp_path: Path, name: str, **fields) -> Study:
    fields.setdefault("ranks", [8])
    fields.setdefault("size", "tiny")
    fields.setdefault("combine", "product")
    return Study(name=name, platform="das1998", base_dir=tmp_path, **fields)


def grid_study(tmp_path: Path, workloads: list[str]) -> Study:
    return study(
        tmp_path,
        "w",
        workloads=workloads,
        variants=["original"],
        baseline={"clusters": "8"},
        axes={"clusters": ["2x4"], "wan_bandwidth": ["3MB/s"], "wan_latency": ["0.3ms"]},
    )


def test_each_point_stores_its_wide_area_links(tmp_path):
    s = grid_study(tmp_path, ["fft1d"])
    assert run_study(s, jobs=1, progress=False).ok
    frame = store.load(s.results_dir).unique("point_id")
    base = frame.filter(pl.col("is_baseline")).row(0, named=True)
    assert base["wan_links"] == []
    row = frame.filter(~pl.col("is_baseline")).row(0, named=True)
    # fft1d, tiny, 2 x 4: three transposes, each a message from every rank to every
    # rank of the other cluster, 8 · 4 = 32 a transpose, 64 B each (the Rust tests
    # derive both): 96 messages and 6144 B over the two links.
    links = row["wan_links"]
    assert sum(x["messages"] for x in links) == 96
    assert sum(x["bytes"] for x in links) == 96 * 64
    # 64 B at 3 MB/s keep a link busy 21.33 us: 48 messages a link, 1.024 ms each way.
    assert all(x["busy_ps"] == pytest.approx(48 * 64 / 3e6 * 1e12, rel=1e-6) for x in links)
    (traffic,) = traffic_per_cluster(frame.filter(~pl.col("is_baseline"))).iter_rows(named=True)
    seconds = row["makespan_ps"] * 1e-12
    assert traffic["MBps"] == pytest.approx(6144 / 2 / seconds / 1e6)
    assert traffic["messages_per_s"] == pytest.approx(96 / 2 / seconds)


def test_a_point_stored_before_the_links_were_kept_reads_as_null(tmp_path):
    s = grid_study(tmp_path, ["fft1d"])
    assert run_study(s, jobs=1, progress=False).ok
    (path, *_) = sorted((s.results_dir / store.POINTS).glob("*.parquet"))
    pl.read_parquet(path).drop("wan_links").write_parquet(path)
    path.with_suffix(".sha256").unlink(missing_ok=True)
    for sidecar in path.parent.glob(path.name + "*"):
        if sidecar != path:
            sidecar.unlink()
    frame = store.load(s.results_dir).unique("point_id")
    assert frame.height == 2
    assert frame.filter(pl.col("point_id") == path.stem)["wan_links"][0] is None
    assert not (s.results_dir / "damaged").exists()


def reference_frame() -> pl.DataFrame:
    # asp: 8 s on one rank, 1.25 s on 8 (speedup 6.4), 0.5 s on 32 (speedup 16) with
    # 2 MB sent: 4 MB/s.
    rows = [
        ("asp:optimized", 1, 8 * 10**12, 0),
        ("asp:optimized", 8, 125 * 10**10, 10**6),
        ("asp:optimized", 32, 5 * 10**11, 2 * 10**6),
        ("asp:original", 1, 8 * 10**12, 0),
    ]
    return pl.DataFrame(rows, schema=["workload", "ranks", "makespan_ps", "bytes"], orient="row")


def test_table1_is_speedup_traffic_and_run_time_on_one_cluster():
    # asp:original has no 32-rank run: no row.
    (row,) = table1(reference_frame().with_columns(seed=0))
    assert row["workload"] == "asp:optimized"
    assert (row["speedup_32"], row["speedup_8"]) == (pytest.approx(16), pytest.approx(6.4))
    assert row["traffic_MBps"] == pytest.approx(4.0)
    assert row["runtime_s"] == pytest.approx(0.5)


def test_table2_is_speedup_over_one_rank_at_1_mb_s_and_3_ms():
    # 8 s over 2 s (optimized) and 4 s (original); the 30 ms point is not Table 2's.
    grid = pl.DataFrame(
        {
            "workload": ["asp:optimized", "asp:original", "asp:optimized"],
            "wan_bandwidth_Bps": [1e6, 1e6, 1e6],
            "wan_latency_ps": [3 * MS, 3 * MS, 30 * MS],
            "makespan_ps": [2 * 10**12, 4 * 10**12, 10**12],
            "seed": [0, 0, 0],
        }
    )
    (row,) = table2(grid, reference_frame().with_columns(seed=0))
    assert row == {"app": "asp", "optimized": pytest.approx(4.0), "original": pytest.approx(2.0)}


def test_structures_are_relative_to_the_one_cluster_baseline():
    match = {"workload": "asp:optimized", "size": "tiny", "ranks": 32, "seed": 0}
    base = pl.DataFrame([{**match, "point_id": "b", "is_baseline": True, "makespan_ps": 10**12}])
    full = pl.DataFrame(
        [{**match, "clusters": c, "makespan_ps": t} for c, t in (("8x4", 2e12), ("4x8", 4e12))]
    )
    star = pl.DataFrame([{**match, "clusters": "4x8", "makespan_ps": 5e12}])
    got = structures(base, {"structures": full, "star": star})
    speedup = dict(zip(got["structure"], got["speedup"], strict=True))
    assert speedup == {"4x8 full": 0.25, "4x8 star": 0.2, "8x4 full": 0.5}


def test_the_report_adds_traffic_tables_and_structures_from_companions(tmp_path):
    from netsens.report.page import write_report

    main = study(
        tmp_path,
        "w",
        workloads=["asp"],
        variants=["original"],
        baseline={"clusters": "8"},
        axes={
            "clusters": ["2x4"],
            "wan_bandwidth": ["3MB/s", "1MB/s"],
            "wan_latency": ["0.3ms", "3ms"],
        },
    )
    assert run_study(main, jobs=1, progress=False).ok
    companion = study(
        tmp_path,
        "w-reference",
        workloads=["asp"],
        variants=["original"],
        ranks=[1, 8],
        baseline={"clusters": "all"},
        axes={"clusters": ["all"]},
    )
    assert companion.results_dir == main.results_dir.with_name("w-reference")
    assert run_study(companion, jobs=1, progress=False).ok
    page = write_report(main.results_dir).read_text()
    assert "Table 1" in page and "Table 2" in page
    # The seed's Table 2 beside netsens's: asp's original 6.37, its optimized 24.0.
    assert "(6.37)" in page and "— (24.00)" in page
    figures = main.results_dir / "report" / "figures"
    for suffix in (".png", ".pdf"):
        assert (figures / f"wan-traffic{suffix}").stat().st_size > 0
    # Without its companions the section says which study to sweep.
    lone = grid_study(tmp_path / "lone", ["asp"])
    assert run_study(lone, jobs=1, progress=False).ok
    assert "w-reference.toml" in write_report(lone.results_dir).read_text()
