"""A sweep gives bit-identical stored results whatever the number of workers: every
column but the wall-clock time and how the point was produced (by the program or a
recorded schedule, which depends on which worker got which point) is equal, point by
point."""

from pathlib import Path

import netsens
from netsens.study.definition import Study
from netsens.study.sweep import run_study

STUDY = (
    'name = "det"\nworkloads = ["radix", "stencil"]\nranks = [4]\nsize = "tiny"\nseeds = [3]\n'
    '[axes]\nL = ["4us", "9us"]\n'
)


def swept(directory: Path, jobs: int):
    directory.mkdir()
    path = directory / "study.toml"
    path.write_text(STUDY)
    summary = run_study(Study.from_toml(path), jobs=jobs, progress=False)
    assert (summary.done, summary.failed) == (6, 0)
    return netsens.results(path).drop("wall_s", "produced").sort("point_id", "axis")


def test_a_sweep_on_1_and_on_2_workers_stores_identical_results(tmp_path: Path) -> None:
    one, two = swept(tmp_path / "one", 1), swept(tmp_path / "two", 2)
    assert one.height == 8  # 3 points per workload, the baseline on 2 curves
    assert one.equals(two, null_equal=True)
