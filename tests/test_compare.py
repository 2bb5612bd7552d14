"""`netsens compare` (docs/guides/compare.md): one program on several networks.

The numbers are derived by hand on networks where nothing is shared (LogGP plus each
route's latency), from the topology's rule where a link is shared, and from ratios;
the study is resumable and gives the same answers on several processes; bad input is
one line and exit 2."""

import json
import os
import time
from pathlib import Path

import pytest
from cli_run import ROOT, one_error_line
from cli_run import netsens as cli

from netsens.compare.report import figure_data

NS = 1000

# L = o = 1 us, no gap, G = 1 ns/B; a fat-tree of 2 leaves of 2 hosts, 1 GB/s links
# (as fast as the NIC) of `latency` each.
ENDS = '[cluster]\nL = "1us"\no = "1us"\ng = "0ns"\nG = "1ns/B"\nO = "0ns/B"\nS = "1MiB"\n'


def tree(tmp_path: Path, name: str, latency: str, up: str = "") -> Path:
    path = tmp_path / f"{name}.toml"
    topo = '[topology]\nkind = "fat-tree"\ndown = [2, 2]\nbandwidth = "1GB/s"\n'
    path.write_text(f'name = "{name}"\n{ENDS}{topo}latency = "{latency}"\n{up}')
    return path


def one_message(tmp_path: Path) -> Path:
    """1001 B from rank 0 to rank 1 (hosts 0 and 1: one leaf, two links)."""
    path = tmp_path / "one.goal"
    path.write_text(
        "num_ranks 2\nrank 0 {\nl0: send 1001b to 1\n}\nrank 1 {\nl0: recv 1001b from 0\n}\n"
    )
    return path


def run_json(*args: object) -> dict:
    proc = cli("compare", *args, "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_nothing_shared_is_loggp_plus_the_route_latency(tmp_path):
    near = tree(tmp_path, "near", "100ns")
    far = tree(tmp_path, "far", "300ns")
    doc = run_json(one_message(tmp_path), "-n", f"{near},{far}", "--results", tmp_path / "r")
    a, b = doc["networks"]
    # Sent at o = 1000 ns; arrives at + L + 2 links (200 or 600 ns); received after o and
    # k G = 1000 B x 1 ns: 4200 and 4600 ns.
    assert (a["makespan_ps"], b["makespan_ps"]) == (4200 * NS, 4600 * NS)
    assert doc["best_ps"] == 4200 * NS
    assert (a["ratio_to_best"], b["ratio_to_best"]) == (1.0, 4600 / 4200)
    # The critical path: o twice, L once, the route's latency, 1000 bytes of G.
    assert a["critical_path"] == {
        "o": 2000 * NS, "L": 1000 * NS, "route latency": 200 * NS, "G": 1000 * NS
    }  # fmt: skip
    # Tolerances: L is on the path once (1 % of 4200 ns = 42 ns), o twice (21 ns), G on
    # 1000 bytes (42 ns / 1000 B = 42 ps/B); the gap g never binds one message.
    tol = a["tolerance"]
    assert tol["L"]["1%"] == 42 * NS and tol["L"]["5%"] == 210 * NS
    assert tol["o"]["1%"] == 21 * NS and tol["o"]["5%"] == 105 * NS
    assert (tol["G"]["1%"], tol["G"]["5%"]) == (42.0, 210.0)  # ps/B
    assert tol["g"]["1%"] is None
    # Halving o saves 1000 ns, L or G 500 ns, the CPU nothing (no compute).
    assert a["halved"] == {
        "L": 3700 * NS, "o": 3200 * NS, "G": 3700 * NS, "cpu": 4200 * NS
    }  # fmt: skip
    assert a["advice"] == "Halving the CPU overhead o would help most: 23.8 % shorter"
    assert "trace's computation is the traced machine's" in doc["computation"] or doc[
        "computation"
    ].startswith("the trace's")


def test_removing_the_taper_is_weighed_where_a_link_is_shared(tmp_path):
    # Hosts 0 -> 2 and 1 -> 3, 4001 B each, climb leaf 0's one up link (2:1): 0.5 B/ns
    # each, so their bytes take twice as long as the NIC's 1 ns/B.
    path = tmp_path / "cross.goal"
    path.write_text(
        "num_ranks 4\nrank 0 {\nl0: send 4001b to 2\n}\nrank 1 {\nl0: send 4001b to 3\n}\n"
        "rank 2 {\nl0: recv 4001b from 0\n}\nrank 3 {\nl0: recv 4001b from 1\n}\n"
    )
    tapered = tree(tmp_path, "tapered", "100ns", 'taper = "2:1"\n')
    doc = run_json(path, "-n", tapered, "--results", tmp_path / "r")
    (row,) = doc["networks"]
    # Untapered nothing is shared: o + L + 4 links + o + 4000 G = 7400 ns.
    assert row["untapered_ps"] == 7400 * NS
    # Shared, the 4000 bytes after the first take 8000 ns from t1 + 4 links = 1400 ns,
    # 4000 ns beyond their 4000 G: through at 9400 ns, received L + o later: 11400 ns.
    assert row["makespan_ps"] == 11400 * NS
    assert row["critical_path"]["link queueing"] == 4000 * NS
    # All of it behind the top's links (level 2: leaf 0's one up link, the way down to
    # leaf 1), whose shares held both flows; none behind a host's link (level 1).
    assert row["link_queueing_by_class"] == {"level 2": 4000 * NS}
    stacked = figure_data(doc)["stacked_pct"]
    assert stacked["link queueing: level 2"] == [pytest.approx(100 * 4000 / 11400, rel=1e-12)]
    assert "link queueing" not in stacked
    # Halving o saves 1000 ns, G 2000 ns; removing the taper 4000 ns: it helps most.
    gain = 1 - 7400 * NS / row["makespan_ps"]
    assert row["advice"] == f"Removing the taper would help most: {100 * gain:.1f} % shorter"
    levels = {c["class"]: c for c in row["links"]["classes"]}
    assert levels["level 2"]["flows"] == 4  # two flows up, two down the top's links


def test_the_untapered_run_is_left_out_where_the_taper_cannot_win(tmp_path):
    # One message within a leaf waits on no shared link: the taper cannot have
    # lengthened the path, so no run without it is made.
    tapered = tree(tmp_path, "tapered", "100ns", 'taper = "2:1"\n')
    (row,) = run_json(one_message(tmp_path), "-n", tapered, "--results", tmp_path / "r")["networks"]
    assert "untapered_ps" not in row and row["makespan_ps"] == 4200 * NS


def test_placements_are_compared_on_each_network(tmp_path):
    net = tree(tmp_path, "t", "100ns")
    doc = run_json(
        one_message(tmp_path), "-n", net, "--placement", "linear", "--placement", "round-robin",
        "--results", tmp_path / "r",
    )  # fmt: skip
    linear, rr = doc["networks"]
    # Linear: hosts 0, 1 on one leaf (2 links). Round-robin deals the nodes over the
    # leaves: hosts 0 and 2, four links: 200 ns more.
    assert (linear["placement"], rr["placement"]) == ("linear", "round-robin")
    assert rr["makespan_ps"] - linear["makespan_ps"] == 200 * NS


def test_the_study_resumes_and_runs_the_same_on_several_processes(tmp_path):
    nets = ",".join(str(tree(tmp_path, n, lat)) for n, lat in (("a", "100ns"), ("b", "200ns")))
    goal = one_message(tmp_path)
    first = run_json(goal, "-n", nets, "--results", tmp_path / "one")
    points = sorted((tmp_path / "one" / "points").glob("*.json"))
    assert len(points) == 2
    stamps = [p.stat().st_mtime_ns for p in points]
    proc = cli("compare", goal, "-n", nets, "--results", tmp_path / "one", "--json")
    assert proc.returncode == 0
    assert "2 of 2 points already stored" in proc.stderr
    assert [p.stat().st_mtime_ns for p in points] == stamps  # nothing computed again
    parallel = run_json(goal, "-n", nets, "--results", tmp_path / "two", "--jobs", "2")
    strip = lambda d: [{k: v for k, v in r.items() if k != "wall_s"} for r in d["networks"]]  # noqa: E731
    assert strip(first) == strip(parallel)


def test_points_side_by_side_are_shared_between_this_process_and_the_workers(tmp_path, monkeypatch):
    """On 2 processes this one computes points beside a worker, taking each next point
    when free. Here it waits, before each point of its own, until the store holds one
    more point than it computed (the worker's), so both take some: every row is the
    one process's, and each point is computed once."""
    from netsens.compare import study
    from netsens.compare.workload import Workload

    nets = [str(tree(tmp_path, f"t{i}", f"{100 * (i + 1)}ns")) for i in range(5)]
    w = Workload(path=str(one_message(tmp_path)), ranks=2)
    alone = study.run(study.Comparison(w, nets), tmp_path / "one", jobs=1, progress=False)
    real, here = study._compute, []
    points = tmp_path / "two" / study.POINTS

    def behind_a_worker(workload, spec, progress=None, threads=None):
        deadline = time.monotonic() + 120
        while len(list(points.glob("*.json"))) <= len(here) and time.monotonic() < deadline:
            time.sleep(0.05)
        here.append(spec["network"])
        return real(workload, spec, progress, threads)

    monkeypatch.setattr(study, "_compute", behind_a_worker)
    both = study.run(study.Comparison(w, nets), tmp_path / "two", jobs=2, progress=False)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "wall_s"} for r in rows]  # noqa: E731
    assert strip(both) == strip(alone)
    assert 1 <= len(here) < len(nets), here
    assert len(list(points.glob("*.json"))) == len(nets)


def test_cpu_speed_scales_the_traces_computation(tmp_path):
    path = tmp_path / "calc.goal"
    path.write_text("num_ranks 2\nrank 0 {\nl0: calc 10000\n}\nrank 1 {\nl0: calc 10000\n}\n")
    net = tree(tmp_path, "t", "100ns")
    slow = run_json(path, "-n", net, "--results", tmp_path / "a")
    fast = run_json(path, "-n", net, "--cpu-speed", "2", "--results", tmp_path / "b")
    assert slow["networks"][0]["makespan_ps"] == 2 * fast["networks"][0]["makespan_ps"]
    assert "x2" in fast["computation"]


def test_a_network_without_topology_is_marked_no_shared_links(tmp_path):
    plain = tmp_path / "plain.toml"
    plain.write_text(f'name = "plain"\n{ENDS}')
    proc = cli("compare", one_message(tmp_path), "-n", f"{plain},now1997", "--results", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "network now1997: no topology, so no shared links" in proc.stderr
    assert "no shared links" in proc.stdout
    # LogGP alone: 1000 + 1000 + 1000 + 1000 ns.
    doc = run_json(one_message(tmp_path), "-n", plain, "--results", tmp_path / "j")
    assert doc["networks"][0]["makespan_ps"] == 4000 * NS


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    goal = one_message(tmp_path)
    line = one_error_line(cli("compare", goal, "-n", "infiniband-xdr"))
    assert 'network "infiniband-xdr"' in line and "ib-ndr" in line and "slingshot-11" in line
    big = tmp_path / "eight.goal"
    big.write_text("num_ranks 8\n" + "".join(f"rank {r} {{\n}}\n" for r in range(8)))
    line = one_error_line(cli("compare", big, "-n", tree(tmp_path, "t", "100ns")))
    assert "needs 8 hosts and the network has 4" in line and "more hosts" in line
    line = one_error_line(
        cli("compare", "--app", "radix", "--ranks", "100", "-n", "ib-ndr", "--hosts", "16")
    )
    assert "needs 100 hosts and the network has 64" in line and "--hosts 100" in line
    line = one_error_line(cli("compare", tmp_path / "missing.goal"))
    assert "no such trace or GOAL file" in line
    line = one_error_line(cli("compare", goal, "--cpu-speed", "fast"))
    assert "--cpu-speed" in line
    line = one_error_line(cli("compare", goal, "-n", "now1997", "--background"))
    assert "no topology" in line
    assert "--hosts 0" in one_error_line(cli("compare", goal, "--hosts", "0"))
    line = one_error_line(cli("compare", goal, "--placement", "bogus", "-n", "ib-ndr"))
    assert 'unknown placement "bogus"' in line
    line = one_error_line(cli("compare", goal, "--background", "--background-rounds", "0"))
    assert "--background-rounds 0" in line


def test_a_program_beside_a_background_all_to_all(tmp_path):
    # The topology guide's two jobs: free end points, leaves of 4 hosts with one up
    # link each (4:1), 1 GB/s. Round-robin placement deals the program's 2 nodes over
    # the leaves (hosts 0 and 4) and the background's 4 onto the next free hosts in
    # that order (1, 5, 2, 6). Alone the program's one flow crosses the tree at 1 B/ns;
    # beside the all-to-all, leaf 0's up link carries it and the background's four
    # flows from hosts 1, 2 to hosts 5, 6, all at 1/5 B/ns: five times as long,
    # whatever the message's size.
    free = '[cluster]\nL = "0ns"\no = "0ns"\ng = "0ns"\nG = "0ns/B"\nS = "1MiB"\n'
    topo = '[topology]\nkind = "fat-tree"\ndown = [4, 2]\nup = [1]\nbandwidth = "1GB/s"\n'
    net = tmp_path / "t.toml"
    net.write_text(f'name = "t"\n{free}{topo}')
    goal = tmp_path / "a.goal"
    goal.write_text(
        "num_ranks 2\nrank 0 {\nl0: send 1000b to 1\n}\nrank 1 {\nl0: recv 1000b from 0\n}\n"
    )
    doc = run_json(
        goal, "-n", net, "--placement", "round-robin", "--background", "--background-ranks",
        "4", "--background-size", "1000B", "--background-rounds", "1",
        "--results", tmp_path / "r",
    )  # fmt: skip
    (row,) = doc["networks"]
    alone = row["makespan_ps"]
    assert alone == 999 * NS  # the first byte crosses at once, the 999 after it at 1 B/ns
    bg = row["background"]
    assert bg["makespan_ps"] == 5 * alone
    assert bg["slowdown"] == 5.0
    assert bg["job"] == "all-to-all 4 ranks x 1000 B x 1"


def test_help_teaches_the_networks_and_an_example():
    proc = cli("compare", "--help")
    assert proc.returncode == 0
    for word in ("ib-ndr", "slingshot-11", "roce-400", "tcp-25g", "--cpu-speed", "Examples"):
        assert word in proc.stdout


def test_the_default_compares_the_networks_sold_today(tmp_path):
    doc = run_json(one_message(tmp_path), "--results", tmp_path / "r")
    names = [r["network"] for r in doc["networks"]]
    assert names == ["ib-ndr", "ib-ndr-2to1", "slingshot-11", "roce-100", "roce-400", "tcp-25g"]
    by = {r["network"]: r for r in doc["networks"]}
    # One message of 1001 B within a leaf: each preset's half round trip plus 1000
    # bytes at its G; the same on the tapered tree (nothing crosses it).
    assert by["ib-ndr"]["makespan_ps"] == by["ib-ndr-2to1"]["makespan_ps"]
    assert min(by, key=lambda n: by[n]["makespan_ps"]) == "ib-ndr"
    assert max(by, key=lambda n: by[n]["makespan_ps"]) == "tcp-25g"
    assert os.path.isdir(tmp_path / "r" / "points")


# --- the guide's worked example (docs/guides/compare.md) ------------------------

RING = ROOT / "examples" / "traces" / "ring" / "traces.otf2"
GUIDE = ROOT / "docs" / "guides" / "compare.md"


def _fs_per_byte(bandwidth: str) -> int:
    """A bandwidth such as "48GB/s" as the engine keeps it: fs/B, rounded to nearest."""
    rate = float(bandwidth.removesuffix("GB/s")) * 1e9
    return round(1e15 / rate)


def _ns(text: str) -> int:
    """ "400ns" or "4.6us" in ns."""
    if text.endswith("us"):
        return round(float(text.removesuffix("us")) * 1000)
    return round(float(text.removesuffix("ns")))


def test_the_guides_worked_example_by_hand(tmp_path):
    import tomllib

    from netsens.compare.networks import PRESETS

    doc = run_json(RING, "--results", tmp_path / "r")
    for row in doc["networks"]:
        with open(PRESETS[row["network"]].spec, "rb") as f:
            p = tomllib.load(f)
        c, t = p["cluster"], p["topology"]
        ns = {k: _ns(c[k]) for k in ("L", "o")}
        link = t.get("latency", t.get("host_latency"))
        route = 2 * round(float(link.removesuffix("ns")))
        # 1023 bytes beyond the first at G, rounded to the ps per message as the engine does.
        g_ps = (1023 * _fs_per_byte(c["G"]) + 500) // 1000
        a_round = (2 * ns["o"] + ns["L"] + route) * NS + g_ps
        # The trace's compute on the critical path: 12.78 us on the traced machine.
        assert row["critical_path"]["compute"] == 12_780 * NS
        assert row["makespan_ps"] == 12_780 * NS + 20 * a_round, row["network"]
    ib = doc["networks"][0]
    assert ib["makespan_ps"] == 33_206_240  # 33.206 us, as the guide says
    assert ib["tolerance"]["L"]["1%"] == pytest.approx(0.01 * 33_206_240 / 20, abs=1)


def test_the_guides_table_is_the_commands_output(tmp_path):
    env = dict(os.environ, COLUMNS="100")
    proc = cli("compare", RING, "--results", tmp_path / "r", "--quiet", env=env)
    assert proc.returncode == 0, proc.stderr
    text = GUIDE.read_text()
    shown = text.split("--report ring-report\n", 1)[1].split("```", 1)[0]
    assert shown.splitlines() == proc.stdout.splitlines()


def test_the_guides_python_example_runs(tmp_path, monkeypatch):
    code = GUIDE.read_text().split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    code = code.replace('"results/ring"', repr(str(tmp_path / "ring")))
    scope: dict = {}
    exec(compile(code, "compare.md", "exec"), scope)
    assert scope["doc"]["networks"][0]["makespan_ps"] == 33_206_240


def test_a_run_the_record_does_not_follow_keeps_its_run_time(tmp_path, monkeypatch):
    # Where the engine's record cannot follow a run (its own check: the record's end
    # differs from the run's), the point keeps the full run's time and links and says
    # so, rather than stopping the comparison.
    import sys

    from netsens.compare import measure
    from netsens.compare.workload import workload_of
    from netsens.errors import InputError

    def refuse(*args, **kwargs):
        raise InputError("the dependency record gives 1 ps where the run ended at 2 ps")

    monkeypatch.setattr(sys.modules["netsens.sensitivity.analyze"], "analyze", refuse)
    w = workload_of(str(one_message(tmp_path)), None, None, None)
    row = measure.point(w, str(tree(tmp_path, "t", "100ns")))
    assert row["makespan_ps"] == 4200 * NS  # the full run's
    assert row["critical_path"] == {} and row["tolerance"] == {}
    assert "dependency record" in row["analysis_error"]
    assert row["advice"].startswith("no parameter's effect known")
