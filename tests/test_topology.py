"""Networks with a shape (docs/guides/topology.md) through the command line, the
Python API and study files: link statistics in --json and profile, bad topologies as
one line naming the file and field with exit 2, live mode refusing a topology, and a
study sweeping a fat-tree's taper (slowdowns derived by hand)."""

import json
from pathlib import Path

import polars as pl
import pytest
from cli_run import ROOT, one_error_line
from cli_run import netsens as cli

import netsens
from netsens.errors import InputError
from netsens.live.run import resolve_platform
from netsens.study.definition import Study, StudyError
from netsens.study.store import results
from netsens.study.sweep import run_study

# Free end points (o = L = g = G = 0): a message's time is its flow's alone.
FREE_ENDS = '[cluster]\nL = "0ns"\no = "0ns"\ng = "0ns"\nG = "0ns/B"\nS = "1MiB"\n'
TREE = '[topology]\nkind = "fat-tree"\ndown = [2, 2]\nbandwidth = "1GB/s"\n'


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def all_to_all(tmp_path: Path, ranks: int = 4, size: int = 1001) -> Path:
    """Every rank sends `size` bytes to every other at time 0 and receives from each."""
    lines = [f"num_ranks {ranks}"]
    for r in range(ranks):
        lines.append(f"rank {r} {{")
        label = 0
        for d in range(ranks):
            if d != r:
                lines += [f"l{label}: send {size}b to {d}", f"l{label + 1}: recv {size}b from {d}"]
                label += 2
        lines.append("}")
    return write(tmp_path, "a2a.goal", "\n".join(lines) + "\n")


def test_json_has_link_statistics_only_with_a_topology(tmp_path):
    goal = all_to_all(tmp_path)
    tapered = write(tmp_path, "t.toml", FREE_ENDS + TREE + 'taper = "2:1"\n')
    proc = cli("run", "--goal", goal, "--platform", tapered, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # The 2:1 all-to-all of docs/guides/topology.md, vector 3: 4000 ns.
    assert out["makespan_ps"] == 4_000_000
    classes = {c["class"]: c for c in out["links"]["classes"]}
    assert classes["level 2"]["peak_flows"] == 4 and classes["level 2"]["bytes"] == 16_016
    assert out["platform"]["topology"]["shape"]["up"] == [1]
    plain = write(tmp_path, "p.toml", FREE_ENDS)
    out = json.loads(cli("run", "--goal", goal, "--platform", plain, "--json").stdout)
    assert "links" not in out and "topology" not in out["platform"]


def test_profile_shows_the_links(tmp_path):
    platform = write(tmp_path, "t.toml", 'base = "ib100"\n' + TREE.replace("[2, 2]", "[4, 2]"))
    args = ["profile", "--app", "ft", "--ranks", 8, "--size", "tiny", "--platform", platform]
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert "links level 2" in proc.stdout and "link wait per rank" in proc.stdout
    data = json.loads(cli(*args, "--json").stdout)
    assert {c["class"] for c in data["links"]["classes"]} == {"level 1", "level 2"}


@pytest.mark.parametrize(
    ("topology", "message"),
    [
        ('kind = "hypercube"', 'topology.kind: unknown topology "hypercube"'),
        ('kind = "fat-tree"\ndown = [2, 2]', "topology.bandwidth is missing"),
        ('kind = "fat-tree"\ndown = [4, 2]\ntaper = "8:1"\nbandwidth = "1GB/s"', "no up port"),
        ('kind = "torus"\ndims = [4]\nbandwidth = "1GB/s"\nrouting = "adaptive"',
         'topology.routing: unknown routing "adaptive"'),
        ('kind = "graph"\nhosts = 2\nswitches = 1\n[[topology.links]]\nends = ["h0", "s0"]\n'
         'bandwidth = "1GB/s"', "topology.links: host h1 has no path to host h0"),
        ('kind = "torus"\ndims = [2]\nbandwidth = "1GB/s"',
         "topology.kind: the topology has 2 hosts but the run needs 4"),
    ],
)  # fmt: skip
def test_a_bad_topology_is_one_line_naming_file_and_field(tmp_path, topology, message):
    platform = write(tmp_path, "bad.toml", FREE_ENDS + "[topology]\n" + topology + "\n")
    line = one_error_line(cli("run", "--goal", all_to_all(tmp_path), "--platform", platform))
    assert f"{platform}: " in line and message in line, line


def test_live_mode_cannot_inject_a_topology(tmp_path):
    platform = write(tmp_path, "t.toml", FREE_ENDS + TREE)
    with pytest.raises(InputError, match="live mode cannot inject a \\[topology\\]"):
        resolve_platform(platform, {})


def taper_study(tmp_path: Path, **fields) -> Study:
    platform = write(tmp_path, "tree.toml", FREE_ENDS + TREE)
    goal = all_to_all(tmp_path)
    text = (
        f'name = "taper"\nresults = "{tmp_path / "results"}"\nplatform = "{platform}"\n'
        f'workloads = ["{goal}"]\nseeds = 1\n'
        '[baseline]\n"topology.taper" = "1:1"\n'
        '[axes]\n"topology.taper" = ["1:1", "2:1"]\n'
    )
    return Study.from_toml(write(tmp_path, "taper.toml", text), **fields)


def test_a_study_sweeps_the_taper_and_reports_the_links(tmp_path):
    study = taper_study(tmp_path)
    summary = run_study(study, jobs=1, progress=False)
    assert summary.ok, summary
    df = results(study).filter(pl.col("axis") == "topology.taper").sort("taper")
    # Vector 3: 3000 ns untapered, 4000 ns at 2:1, so a slowdown of 4/3.
    assert df["taper"].to_list() == [1.0, 2.0]
    assert df["makespan_ps"].to_list() == [3_000_000, 4_000_000]
    assert df["slowdown"].to_list() == pytest.approx([1.0, 4 / 3])
    from netsens.report.page import write_report

    page = write_report(study.results_dir)
    assert "<h2>Links</h2>" in page.read_text()
    assert (page.parent / "figures" / "link-load.png").is_file()


def test_a_bad_taper_in_a_study_names_the_axis(tmp_path):
    taper_study(tmp_path)  # writes taper.toml
    text = (tmp_path / "taper.toml").read_text().replace('"2:1"]', '"0:1"]')
    study = Study.from_toml(write(tmp_path, "bad.toml", text))
    with pytest.raises(StudyError, match='axes.topology.taper: "0:1" leaves no path up the tree'):
        study.points()


def test_the_buyers_studies_read():
    # Five workloads x (the baseline + 3 values, one of them the baseline itself).
    for name in ("taper", "taper-dragonfly"):
        study = Study.from_toml(ROOT / "studies" / f"{name}.toml")
        assert len(study.points()) == 5 * 3, name


def test_python_api_runs_a_goal_on_a_topology(tmp_path):
    platform = write(tmp_path, "t.toml", FREE_ENDS + TREE)
    result = netsens.run(str(all_to_all(tmp_path)), str(platform))
    assert result.makespan_ps == 3_000_000
    # With G = 0 a flow alone takes no time: its 3000 ns are all link wait, 3 a rank.
    assert result.to_dict()["links"]["link_wait_ps"] == [9_000_000] * 4
