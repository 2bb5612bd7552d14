"""Two jobs at once on one network (docs/guides/topology.md, *Two jobs on one
network*) through the command line and the Python API: a job alone against the same
job beside an all-to-all on a shared 4:1 tapered leaf link (times derived by hand in
the guide), the next-free-host placement, and bad input as one line with exit 2."""

import json
from pathlib import Path

import polars as pl
import pytest
from cli_run import netsens as cli
from cli_run import one_error_line
from test_topology import FREE_ENDS, all_to_all, write

import netsens
import netsens.jobs
from netsens.errors import InputError
from netsens.study.definition import Study, StudyError
from netsens.study.store import results
from netsens.study.sweep import run_study

# Leaves of 4 hosts with one up link each (4:1), two leaves, 1 GB/s links.
TAPERED = (
    FREE_ENDS + '[topology]\nkind = "fat-tree"\ndown = [4, 2]\nup = [1]\nbandwidth = "1GB/s"\n'
)
NS = 1000


def across(tmp_path: Path) -> Path:
    """Job A: 1001 B (k = 1000 beyond its first) from rank 0 to rank 1."""
    return write(
        tmp_path,
        "a.goal",
        "num_ranks 2\nrank 0 {\nl0: send 1001b to 1\n}\nrank 1 {\nl0: recv 1001b from 0\n}\n",
    )


def test_a_job_beside_an_all_to_all_on_a_shared_tapered_link_slows_down(tmp_path):
    platform = write(tmp_path, "t.toml", TAPERED)
    a, b = across(tmp_path), all_to_all(tmp_path)
    proc = cli(
        "run",
        "--platform",
        platform,
        "--job",
        f"{a}@0,4",
        "--job",
        f"{b}@1-2,5-6",
        "--alone",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    job_a, job_b = out["jobs"]
    # Alone, A's one flow crosses the tree at the full 1 B/ns: 1000 ns. Beside B, leaf 0's
    # one up link carries A's flow and B's four from hosts 1, 2 to hosts 5, 6: 1/5 B/ns
    # each, so A takes 5000 ns (slowdown 5).
    assert (job_a["alone_makespan_ps"], job_a["makespan_ps"]) == (1000 * NS, 5000 * NS)
    assert job_a["slowdown"] == 5.0
    # B alone: four flows each way on the leaves' up links, 1/4 B/ns: 4000 ns. Beside A,
    # its flows into hosts 5, 6 get 1/5 B/ns and end at 5000 ns; those into hosts 1, 2
    # still get 1/4 (leaf 1's up link carries only B's four): 4000 ns.
    assert (job_b["alone_makespan_ps"], job_b["makespan_ps"]) == (4000 * NS, 5000 * NS)
    assert [r["end_ps"] // NS for r in out["ranks"]] == [0, 5000, 4000, 4000, 5000, 5000]
    assert (job_a["first_rank"], job_b["first_rank"], job_a["hosts"], job_b["hosts"]) == (
        0,
        2,
        [0, 4],
        [1, 2, 5, 6],
    )
    level2 = {c["class"]: c for c in out["links"]["classes"]}["level 2"]
    assert level2["peak_flows"] == 5
    # The table shows both jobs and their slowdown.
    text = cli(
        "run", "--platform", platform, "--job", f"{a}@0,4", "--job", f"{b}@1-2,5-6", "--alone"
    )
    assert text.returncode == 0, text.stderr
    assert "5.000x" in text.stdout and "1.250x" in text.stdout
    assert "peak 5 flows" in text.stdout  # the shared links, level 2


def test_jobs_without_hosts_take_the_next_free_ones_in_placement_order(tmp_path):
    # Linear: A on hosts 0, 1 (one leaf: no shared up link), B on 2-5.
    platform = write(tmp_path, "t.toml", TAPERED)
    a, b = across(tmp_path), all_to_all(tmp_path)
    out = netsens.run_jobs([str(a), {"workload": b}], platform)
    assert [j["hosts"] for j in out["jobs"]] == [[0, 1], [2, 3, 4, 5]]
    assert out["jobs"][0]["makespan_ps"] == 1000 * NS
    # A named host is kept from the others: B fills in around A on hosts 0 and 4.
    out = netsens.jobs.run_jobs([{"workload": a, "hosts": "0,4"}, b], platform)
    assert [j["hosts"] for j in out["jobs"]] == [[0, 4], [1, 2, 3, 5]]
    # Round-robin deals the hosts over the leaves: A on 0 and 4, B on 1, 5, 2, 6.
    out = netsens.jobs.run_jobs([a, b], platform, {"topology.placement": '"round-robin"'})
    assert [j["hosts"] for j in out["jobs"]] == [[0, 4], [1, 5, 2, 6]]


@pytest.mark.parametrize(
    ("jobs", "message"),
    [
        (["A@0-1", "B@1-4"], "job 2: host 1 is also job 1's; jobs cannot share a host"),
        (["A@0-1", "B@2-3"], "job 2: its 4 nodes need 4 hosts; 2 listed"),
        (["A@0,9", "B"], "job 1: host 9 does not exist (the topology has hosts 0..7)"),
        (
            ["A@0-1", "B", "B"],
            "job 3: no free host left for its 4 nodes (the jobs need 10 hosts; the topology has 8)",
        ),
        (["@0-3", "B"], '--job "@0-3": give a GOAL file or trace before the @HOSTS'),
        (
            ["A@0-x", "B"],
            '"0-x" is not a list of hosts; write ranges such as 0-15 or 0-7,16-23',
        ),
    ],
)
def test_bad_jobs_are_one_line_with_exit_2(tmp_path, jobs, message):
    platform = write(tmp_path, "t.toml", TAPERED)
    files = {"A": str(across(tmp_path)), "B": str(all_to_all(tmp_path))}
    args = []
    for job in jobs:
        name, at, hosts = job.partition("@")
        args += ["--job", files.get(name, name) + at + hosts]
    proc = cli("run", "--platform", platform, *args)
    assert proc.returncode == 2
    assert message in one_error_line(proc)


def test_jobs_need_a_topology_and_whole_nodes(tmp_path):
    a = across(tmp_path)
    plain = write(tmp_path, "p.toml", FREE_ENDS)
    proc = cli("run", "--platform", plain, "--job", a, "--job", a)
    assert proc.returncode == 2
    assert one_error_line(proc).endswith(
        'p.toml" has no [topology]; jobs share a network only on a topology'
    )
    shaped = write(
        tmp_path, "s.toml", TAPERED.replace("[topology]", "[shape]\nranks_per_node = 4\n[topology]")
    )
    proc = cli("run", "--platform", shaped, "--job", a, "--job", a)
    assert proc.returncode == 2
    assert one_error_line(proc).endswith(
        "job 1: 2 ranks are not whole nodes of 4 ranks (ranks_per_node); jobs cannot share a node"
    )
    with pytest.raises(InputError, match=r"jobs\[0\]: a job needs a workload"):
        netsens.jobs.run_jobs([{"hosts": "0-1"}], shaped)
    proc = cli("run", "--platform", plain, "--job", a, "--goal", a)
    assert proc.returncode == 2 and "--goal cannot be combined with --job" in proc.stderr


def jobs_study(tmp_path: Path, beside: str) -> Study:
    platform = write(tmp_path, "t.toml", TAPERED)
    a, b = across(tmp_path), all_to_all(tmp_path)
    text = (
        f'name = "beside"\nresults = "{tmp_path / "results"}"\nplatform = "{platform}"\n'
        f'workloads = ["{a}@0,4"]\nbeside = [{beside.format(b=b)}]\nseeds = 1\n'
        '[axes]\n"topology.taper" = ["2:1", "1:1"]\n'
    )
    return Study.from_toml(write(tmp_path, "beside.toml", text))


def test_a_study_runs_a_job_beside_an_all_to_all_and_reports_the_interference(tmp_path):
    study = jobs_study(tmp_path, '"{b}@1-2,5-6"')
    summary = run_study(study, jobs=1, progress=False)
    assert summary.ok, summary
    df = results(study).filter(pl.col("axis") == "topology.taper").sort("taper", descending=True)
    # 4:1 (the platform's): 5000 ns (as above). 2:1: leaf 0's two up links are chosen by
    # destination (host mod 2): A's flow to host 4 shares link 0 with B's two to host 6,
    # 1/3 B/ns: 3000 ns. 1:1: host 4's up link (4 mod 4) is A's alone: 1000 ns.
    assert df["makespan_ps"].to_list() == [5000 * NS, 3000 * NS, 1000 * NS]
    assert df["alone_makespan_ps"].to_list() == [1000 * NS] * 3
    assert df["messages"].to_list() == [1, 1, 1]  # job 1's own
    assert df["workload"].unique().to_list() == ["a.goal@0,4"]
    jobs = df["jobs"][0].to_list()
    assert [(j["job"], j["hosts"], j["ranks"]) for j in jobs] == [(1, "0,4", 2), (2, "1-2,5-6", 4)]
    assert jobs[1]["makespan_ps"] == 5000 * NS
    from netsens.report.page import write_report

    page = write_report(study.results_dir).read_text()
    assert "<h2>Jobs on one network</h2>" in page and "5.000x" in page and "3.000x" in page


def test_a_study_job_that_is_not_there_is_one_line(tmp_path):
    with pytest.raises(StudyError, match='beside: GOAL file or trace "nothing.goal" not found'):
        jobs_study(tmp_path, '"nothing.goal@1-4"')
    with pytest.raises(StudyError, match='beside: "@1-4": give a GOAL file or trace before'):
        jobs_study(tmp_path, '"@1-4"')


def test_placement_is_a_categorical_study_axis(tmp_path):
    # Leaves of 2 hosts with one up link (2:1); rank pairs 0 → 1 and 2 → 3, 1001 B each.
    platform = write(tmp_path, "t.toml", TAPERED.replace("[4, 2]", "[2, 2]"))
    pairs = "num_ranks 4\n" + "".join(
        f"rank {s} {{\nl0: send 1001b to {d}\n}}\nrank {d} {{\nl0: recv 1001b from {s}\n}}\n"
        for s, d in ((0, 1), (2, 3))
    )
    goal = write(tmp_path, "pairs.goal", pairs)
    text = (
        f'name = "placement"\nresults = "{tmp_path / "results"}"\nplatform = "{platform}"\n'
        f'workloads = ["{goal}"]\nseeds = 1\n'
        '[axes]\n"topology.placement" = ["linear", "round-robin", "random:3"]\n'
    )
    study = Study.from_toml(write(tmp_path, "placement.toml", text))
    assert run_study(study, jobs=1, progress=False).ok
    df = results(study).filter(pl.col("axis") == "topology.placement")
    by = dict(zip(df["placement"].to_list(), df["makespan_ps"].to_list(), strict=True))
    # Linear: each pair within a leaf, 1000 ns. Round-robin deals nodes 0, 1, 2, 3 to
    # hosts 0, 2, 1, 3: both pairs cross leaf 0's one up link at 1/2 B/ns, 2000 ns.
    assert (by["linear"], by["round-robin"]) == (1000 * NS, 2000 * NS)
    # The random point is the run of that placement by itself.
    alone = netsens.run(str(goal), platform, overrides={"topology.placement": "random:3"})
    assert by["random:3"] == alone.makespan_ps
    assert df["value"].null_count() == len(df)  # a category has no number
    from netsens.report.page import write_report

    page = write_report(study.results_dir).read_text()
    assert "rank placement" in page
    assert (study.results_dir / "report" / "figures" / "slowdown_topology.placement.png").is_file()
    # A new placement drops the platform's seed: random with seed 3 made linear runs.
    seeded = write(tmp_path, "s.toml", platform.read_text() + 'placement = "random"\nseed = 3\n')
    assert netsens.run(str(goal), seeded).makespan_ps == alone.makespan_ps
    linear = netsens.run(str(goal), seeded, overrides={"topology.placement": "linear"})
    assert linear.makespan_ps == 1000 * NS


def test_a_bad_placement_on_the_axis_is_one_line(tmp_path):
    platform = write(tmp_path, "t.toml", TAPERED)
    goal = across(tmp_path)
    for value, message in (
        ('"spiral"', 'unknown placement "spiral"'),
        ('"random:x"', '"random:x": the seed after random: is a whole number'),
        ("3", "3 is not a placement"),
    ):
        text = (
            f'name = "p"\nresults = "{tmp_path / "r"}"\nplatform = "{platform}"\n'
            f'workloads = ["{goal}"]\n[axes]\n"topology.placement" = [{value}]\n'
        )
        with pytest.raises(StudyError, match=message):
            Study.from_toml(write(tmp_path, "p.toml", text)).points()
