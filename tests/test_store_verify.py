"""The results store verifies what it reads: a truncated, overwritten or foreign point
file is reported by path, left out of `results`, `explain` and `report`, moved aside
(never deleted) and computed again by the next sweep. The ping-pong's makespan is
4o + 2L (see test_sweep.py): 11 us on loggopsim, 16 us with L = 5 us."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl

import netsens
from netsens.study import store
from netsens.study.definition import Study
from netsens.study.sweep import run_study

ROOT = Path(__file__).resolve().parent.parent
US = 1_000_000  # ps


def netsens_cli(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def swept_study(directory: Path) -> Study:
    shutil.copy(ROOT / "examples/goal/pingpong.goal", directory / "pingpong.goal")
    path = directory / "study.toml"
    path.write_text('name = "pp"\nworkloads = ["pingpong.goal"]\n[axes]\nL = ["5us"]\n')
    study = Study.from_toml(path)
    assert run_study(study, jobs=1, progress=False).done == 2
    return study


def point_files(study: Study) -> list[Path]:
    return sorted((study.results_dir / store.POINTS).glob("*.parquet"))


def test_the_manifest_records_each_points_checksum(tmp_path: Path) -> None:
    import hashlib

    study = swept_study(tmp_path)
    run_study(study, jobs=1, progress=False)  # the manifest is written at a sweep's start
    manifest = json.loads((study.results_dir / store.MANIFEST).read_text())
    recorded = {p["point_id"]: p["sha256"] for p in manifest["points"]}
    actual = {f.stem: hashlib.sha256(f.read_bytes()).hexdigest() for f in point_files(study)}
    assert recorded == actual and len(actual) == 2


def test_a_truncated_point_is_reported_moved_aside_and_recomputed(tmp_path: Path) -> None:
    study = swept_study(tmp_path)
    frame = netsens.results(study)
    l_point = frame.filter(~pl.col("is_baseline"))["point_id"][0]  # keep the baseline
    victim = study.results_dir / store.POINTS / f"{l_point}.parquet"
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2])
    for command in ("results", "explain"):
        proc = netsens_cli(command, tmp_path / "study.toml")
        assert proc.returncode == 0, proc.stderr
        lines = proc.stderr.strip().splitlines()
        if command == "results":  # the first reader moves it aside; later ones never see it
            assert len(lines) == 2, proc.stderr
            assert str(victim) in lines[0] and "moved to" in lines[0]
            assert "1 damaged point file" in lines[1]
    moved = list((study.results_dir / "damaged").glob(f"{victim.name}.*"))
    assert [p.read_bytes() for p in moved if p.suffix != ".sha256"] == [data[: len(data) // 2]]
    # The baseline point is left: its row on the baseline curve and on L's.
    assert netsens.results(study)["makespan_ps"].to_list() == [11 * US, 11 * US]
    summary = run_study(study, jobs=1, progress=False)
    assert (summary.stored, summary.done) == (1, 1)
    makespans = sorted(set(netsens.results(study)["makespan_ps"]))
    assert makespans == [11 * US, 16 * US]


def test_the_report_of_a_store_with_a_truncated_point_leaves_it_out(tmp_path: Path) -> None:
    # `report` is the first reader here: it must not die on the damaged file (the
    # store once gave polars' traceback), but name it, move it aside and report the rest.
    # The victim is the baseline: the L point's curve then has no slowdown to draw and
    # no model to fit (the report once died on both).
    study = swept_study(tmp_path)
    baseline = netsens.results(study).filter(pl.col("is_baseline"))["point_id"][0]
    victim = study.results_dir / store.POINTS / f"{baseline}.parquet"
    victim.write_bytes(victim.read_bytes()[:100])
    proc = netsens_cli("report", tmp_path / "study.toml", "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    damaged = [line for line in proc.stderr.splitlines() if str(victim) in line]
    assert len(damaged) == 1 and "moved to" in damaged[0], proc.stderr
    assert "1 damaged point file" in proc.stderr
    assert (tmp_path / "out" / "report.html").is_file()
    assert not victim.exists()


def test_a_foreign_or_overwritten_file_is_left_out(tmp_path: Path) -> None:
    study = swept_study(tmp_path)
    first, second = point_files(study)
    # Overwritten with another valid point: its checksum no longer matches.
    first.write_bytes(second.read_bytes())
    # A foreign Parquet file with no checksum of its own.
    foreign = study.results_dir / store.POINTS / "other.parquet"
    pl.DataFrame({"x": [1]}).write_parquet(foreign)
    warnings: list[str] = []
    from netsens.study import store_verify

    frames = store_verify.read_points(study.results_dir, warnings.append)
    assert [f["point_id"][0] for f in frames] == [second.stem]
    assert any(str(first) in w and "checksum" in w for w in warnings), warnings
    assert any(str(foreign) in w and "not a netsens point" in w for w in warnings), warnings
    assert warnings[-1].startswith("2 damaged point file(s)")
    assert not first.exists() and not foreign.exists()


def test_a_damaged_manifest_is_one_line_and_the_next_sweep_writes_it_again(
    tmp_path: Path,
) -> None:
    study = swept_study(tmp_path)
    manifest = study.results_dir / store.MANIFEST
    manifest.write_text(manifest.read_text()[:50])
    proc = netsens_cli("results", tmp_path / "study.toml")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert str(manifest) in proc.stderr and "netsens sweep" in proc.stderr
    kept = {p: p.read_bytes() for p in point_files(study)}
    assert run_study(study, jobs=1, progress=False).stored == 2  # nothing recomputed
    assert {p: p.read_bytes() for p in point_files(study)} == kept
    assert sorted(netsens.results(study)["makespan_ps"]) == [11 * US, 11 * US, 16 * US]
