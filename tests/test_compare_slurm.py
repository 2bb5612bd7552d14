"""`netsens compare --slurm` (docs/guides/compare.md): the points run as one job array
on a real one-node Slurm cluster (tests/slurm_cluster.py) and store what a local run
stores; run again, nothing is submitted."""

import json

from test_compare import one_message, tree
from test_slurm import cluster  # noqa: F401 (the session's cluster)

from netsens.cli.main import main


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main(["compare", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_comparison_on_slurm_stores_what_a_local_run_stores(cluster, tmp_path, capsys):  # noqa: F811
    nets = f"{tree(tmp_path, 'near', '100ns')},{tree(tmp_path, 'far', '300ns')}"
    goal = one_message(tmp_path)
    code, out, err = run(capsys, goal, "-n", nets, "--results", tmp_path / "s", "--slurm", "--json")
    assert code == 0, err
    assert "submitted 2 points as Slurm job" in err and "2/2 points stored" in err
    on_slurm = json.loads(out)
    code, out, err = run(capsys, goal, "-n", nets, "--results", tmp_path / "l", "--json")
    assert code == 0, err
    local = json.loads(out)
    strip = lambda d: [{k: v for k, v in r.items() if k != "wall_s"} for r in d["networks"]]  # noqa: E731
    assert strip(on_slurm) == strip(local)
    assert [r["makespan_ps"] for r in local["networks"]] == [4_200_000, 4_600_000]
    code, out, err = run(capsys, goal, "-n", nets, "--results", tmp_path / "s", "--slurm")
    assert code == 0 and "submitted" not in err and "2 of 2 points already stored" in err
