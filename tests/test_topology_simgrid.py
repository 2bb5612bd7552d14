"""The topology's flow sharing against SimGrid (docs/guides/topology.md): the same
flows on the same links, bandwidths, latencies and routes complete at the same times
under SimGrid's own CM02 and LV08 models, and netsens's plain max-min against CM02
where every latency is 0 (CM02's weights are then all equal).

SimGrid comes from Debian's python3-simgrid (3.32), installed here with apt-get when
missing; it runs under the system Python it is built for (tests/simgrid_flows.py).
"""

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import netsens

HERE = Path(__file__).resolve().parent
SYSTEM_PYTHON = "/usr/bin/python3"
# SimGrid adds 5 % of every flow to its reverse route by default (cross-traffic, the
# TCP acknowledgements); netsens's flows are one way, so the comparison turns it off.
NO_CROSS_TRAFFIC = {"network/crosstraffic": "0"}

# Hosts h0, h1 on s0; h2, h3 on s1; h4, h5 on s2; s0 - s1 - s2 in a line, so that
# every route is the one path of a tree. (a, b, bandwidth B/s, latency s)
CABLES = [
    ("h0", "s0", 2e9, 20e-9),
    ("h1", "s0", 2e9, 20e-9),
    ("h2", "s1", 2e9, 30e-9),
    ("h3", "s1", 1e9, 30e-9),
    ("h4", "s2", 2e9, 20e-9),
    ("h5", "s2", 2e9, 40e-9),
    ("s0", "s1", 1e9, 50e-9),
    ("s1", "s2", 0.5e9, 80e-9),
]
SWITCH_OF = {"h0": "s0", "h1": "s0", "h2": "s1", "h3": "s1", "h4": "s2", "h5": "s2"}
LINE = ["s0", "s1", "s2"]
# (source, destination, bytes, start ns): each host receives one flow.
FLOWS = [
    (0, 2, 40000, 0),
    (1, 4, 20000, 5000),
    (2, 5, 30000, 0),
    (3, 0, 50000, 10000),
    (4, 1, 10000, 2000),
    (5, 3, 60000, 0),
]


def simgrid_available() -> bool:
    if not Path(SYSTEM_PYTHON).exists():
        return False
    probe = [SYSTEM_PYTHON, "-c", "import simgrid"]
    if subprocess.run(probe, capture_output=True).returncode == 0:
        return True
    if shutil.which("apt-get") is None:
        return False
    install = ["apt-get", "install", "-y", "-q", "python3-simgrid"]
    env = {"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/bin:/bin"}
    subprocess.run(install, capture_output=True, env=env)
    return subprocess.run(probe, capture_output=True).returncode == 0


@pytest.fixture(autouse=True, scope="module")
def simgrid() -> None:
    """The reference must run: a missing python3-simgrid that apt-get cannot install
    fails the tests rather than skipping them."""
    missing = "python3-simgrid (Debian) is missing and apt-get could not install it"
    assert simgrid_available(), missing


def route(src: int, dst: int) -> list[str]:
    """Directed link names from host src to host dst along the tree."""
    a, b = SWITCH_OF[f"h{src}"], SWITCH_OF[f"h{dst}"]
    i, j = LINE.index(a), LINE.index(b)
    step = 1 if j >= i else -1
    switches = [LINE[k] for k in range(i, j + step, step)]
    hops = [f"h{src}"] + switches + [f"h{dst}"]
    return [f"{x}>{y}" for x, y in zip(hops, hops[1:], strict=False)]


def simgrid_times(config: dict[str, str], zero_latency: bool) -> list[float]:
    links = []
    for a, b, bandwidth, latency in CABLES:
        lat = 0.0 if zero_latency else latency
        links += [
            {"name": f"{a}>{b}", "bandwidth": bandwidth, "latency": lat},
            {"name": f"{b}>{a}", "bandwidth": bandwidth, "latency": lat},
        ]
    case = {
        "hosts": 6,
        "links": links,
        "flows": [
            {"src": s, "dst": d, "bytes": n, "start": t * 1e-9, "route": route(s, d)}
            for s, d, n, t in FLOWS
        ],
    }
    return simgrid_run(config, [case])[0]


def simgrid_run(config: dict[str, str], cases: list[dict]) -> list[list[float]]:
    """Each case's flows' completion times (s), all cases in one SimGrid run."""
    out = subprocess.run(
        [SYSTEM_PYTHON, str(HERE / "simgrid_flows.py")],
        input=json.dumps({"config": config, "cases": cases}),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def netsens_times(tmp_path: Path, model: str, zero_latency: bool) -> list[float]:
    """Each flow's completion in seconds: its receiver's end (free end points)."""
    toml = [
        '[cluster]\nL = "0ns"\no = "0ns"\ng = "0ns"\nG = "0ns/B"\nS = "1MiB"\n',
        f'[topology]\nkind = "graph"\nhosts = 6\nswitches = {json.dumps(LINE)}\n',
        f'model = "{model}"\n',
    ]
    for a, b, bandwidth, latency in CABLES:
        lat = 0 if zero_latency else round(latency * 1e9)
        toml.append(
            f'[[topology.links]]\nends = ["{a}", "{b}"]\n'
            f'bandwidth = "{bandwidth / 1e6:g}MB/s"\nlatency = "{lat}ns"\n'
        )
    platform = tmp_path / f"{model}.toml"
    platform.write_text("".join(toml))
    goal = ["num_ranks 6"]
    for r in range(6):
        ((s, d, n, t),) = [f for f in FLOWS if f[0] == r]
        ((src, _, m, _),) = [f for f in FLOWS if f[1] == r]
        goal += [
            f"rank {r} {{",
            f"l1: calc {t}",
            f"l2: send {n}b to {d}",
            "l2 requires l1",
            f"l3: recv {m}b from {src}",
            "}",
        ]
    schedule = tmp_path / "flows.goal"
    schedule.write_text("\n".join(goal) + "\n")
    result = netsens.run(str(schedule), str(platform)).to_dict()
    ends = {r["rank"]: r["end_ps"] * 1e-12 for r in result["ranks"]}
    return [ends[d] for _, d, _, _ in FLOWS]


@pytest.mark.parametrize(
    ("model", "config", "zero_latency"),
    [
        ("cm02", {"network/model": "CM02", **NO_CROSS_TRAFFIC}, False),
        ("lv08", {"network/model": "LV08", **NO_CROSS_TRAFFIC}, False),
        ("max-min", {"network/model": "CM02", **NO_CROSS_TRAFFIC}, True),
    ],
)
def test_flows_complete_when_simgrid_says(tmp_path: Path, model, config, zero_latency) -> None:
    ours = netsens_times(tmp_path, model, zero_latency)
    theirs = simgrid_times(config, zero_latency)
    for i, (_, dst, _, start_ns) in enumerate(FLOWS):
        start = start_ns * 1e-9
        # The receiver's end is also no earlier than its own send's start (its calc).
        expected = max(theirs[i], FLOWS[dst][3] * 1e-9)
        assert abs(ours[i] - expected) <= 0.01 * (theirs[i] - start), (model, i, ours, theirs)
    # The flows did share: some flow took longer than alone on its route's slowest link.
    slowest = [min(bandwidth(link) for link in route(s, d)) for s, d, _, _ in FLOWS]
    took = [theirs[i] - f[3] * 1e-9 for i, f in enumerate(FLOWS)]
    assert any(t > 1.2 * f[2] / b for t, f, b in zip(took, FLOWS, slowest, strict=True))


def bandwidth(link: str) -> float:
    a, b = link.split(">")
    return next(c[2] for c in CABLES if {c[0], c[1]} == {a, b})


# --- Generated cases: flow by flow against SimGrid -------------------------------------
#
# A seeded generator writes random graphs (a random tree of switches with extra cables
# kept only where every route stays the one shortest path, so that both tools take the
# same route) and fat-trees tapered 1:1 to 4:1 (routes by netsens's D-mod-k rule,
# `fat_tree_route` below), with two to thirty flows of 100 B to 100 kB (three orders of
# magnitude) started at staggered times, each to its own receiver. Free end points
# (L = o = g = 0; G = 0, or the host links' rate on a fat-tree): a receive then completes
# when its flow's k = size - 1 bytes are through (docs/guides/topology.md), which is a
# SimGrid flow of size - 1 bytes.

CASES = 24
SEED = 40
BANDWIDTHS = [0.5e9, 1e9, 1.25e9, 2e9, 4e9]  # B/s, whole femtoseconds per byte
FAT_TREES = [  # (down, up): 1:1, 2:1, 4:1 and a three-level tree
    ([4, 4], [4]),
    ([4, 4], [2]),
    ([4, 4], [1]),
    ([8, 4], [8]),
    ([8, 4], [4]),
    ([8, 4], [2]),
    ([8, 8], [8]),
    ([8, 8], [2]),
    ([4, 2, 4], [4, 2]),
    ([4, 2, 4], [2, 1]),
]


def fat_tree_route(down: list[int], up: list[int], src: int, dst: int) -> list[int]:
    """Directed link ids from host src to dst: climb to the nearest common ancestor,
    the parent at level e chosen by the destination, (dst / W[e]) mod w[e]; then down."""
    n = len(down)
    w = [1] + up
    under, choices = [1] * (n + 1), [1] * (n + 1)
    for e in range(n):
        under[e + 1] = under[e] * down[e]
        choices[e + 1] = choices[e] * w[e]
    base = [0] * (n + 1)
    for e in range(n):
        base[e + 1] = base[e] + under[n] // under[e] * choices[e] * w[e]

    def cable(e: int, hi: int, lo: int, port: int) -> int:
        return base[e] + (hi * choices[e] + lo) * w[e] + port

    top = next(e for e in range(1, n + 1) if src // under[e] == dst // under[e])
    links, hi, lo = [], src, 0
    for e in range(top):
        port = (dst // choices[e]) % w[e]
        links.append(2 * cable(e, hi, lo, port))
        hi //= down[e]
        lo += choices[e] * port
    for e in reversed(range(top)):
        child_hi = hi * down[e] + (dst // under[e]) % down[e]
        child_lo, port = lo % choices[e], lo // choices[e]
        links.append(2 * cable(e, child_hi, child_lo, port) + 1)
        hi, lo = child_hi, child_lo
    return links


def fat_tree_case(rng: random.Random) -> dict:
    down, up = rng.choice(FAT_TREES)
    levels = len(down)
    bandwidth = [rng.choice(BANDWIDTHS) for _ in range(levels)]
    equal = rng.random() < 0.5  # every link alike: flows between leaves have equal Λ
    latency = [100e-9] * levels if equal else [rng.randrange(0, 300) * 1e-9 for _ in range(levels)]
    hosts = 1
    for d in down:
        hosts *= d
    specs = []  # per link id: its level
    for e in range(levels):
        w = ([1] + up)[e]
        under = 1
        for d in down[:e]:
            under *= d
        choices = 1
        for u in ([1] + up)[:e]:
            choices *= u
        specs += [e] * (2 * (hosts // under) * choices * w)
    links = [
        {"name": str(i), "bandwidth": bandwidth[e], "latency": latency[e]}
        for i, e in enumerate(specs)
    ]
    route = lambda s, d: [str(i) for i in fat_tree_route(down, up, s, d)]  # noqa: E731
    flows = draw_flows(rng, hosts, route)
    toml = (
        f'[topology]\nkind = "fat-tree"\ndown = {down}\nup = {up}\n'
        f"bandwidth = {json.dumps([f'{b / 1e6:g}MB/s' for b in bandwidth])}\n"
        f"latency = {json.dumps([f'{round(x * 1e9)}ns' for x in latency])}\n"
    )
    return {
        "name": f"fat-tree down {down} up {up}{' equal latencies' if equal else ''}",
        "hosts": hosts,
        "links": links,
        "flows": flows,
        "topology": toml,
        "G_ps": round(1e12 / bandwidth[0]),
    }


def graph_case(rng: random.Random) -> dict:
    nswitches = rng.randint(2, 6)
    edges = [(rng.randrange(s), s) for s in range(1, nswitches)]  # a random tree
    for _ in range(rng.randint(0, 3)):
        a, b = rng.sample(range(nswitches), 2) if nswitches > 2 else (0, 1)
        if (a, b) in edges or (b, a) in edges:
            continue
        if unique_shortest_paths(nswitches, [*edges, (a, b)]):
            edges.append((a, b))
    hosts = rng.randint(4, 64)
    attach = [rng.randrange(nswitches) for _ in range(hosts)]
    cables = [(f"h{h}", f"s{attach[h]}") for h in range(hosts)]
    cables += [(f"s{a}", f"s{b}") for a, b in edges]
    # Equal route latencies: 100 ns on host links, none on trunks (Λ = 200 ns on every
    # route); otherwise each cable has its own.
    equal = rng.random() < 0.3
    specs = [
        (
            a,
            b,
            rng.choice(BANDWIDTHS),
            (100e-9 if a[0] == "h" else 0.0) if equal else rng.randrange(1, 200) * 1e-9,
        )
        for a, b in cables
    ]
    links = []
    for a, b, bandwidth, latency in specs:
        links += [
            {"name": f"{a}>{b}", "bandwidth": bandwidth, "latency": latency},
            {"name": f"{b}>{a}", "bandwidth": bandwidth, "latency": latency},
        ]
    paths = switch_paths(nswitches, edges)

    def route(s: int, d: int) -> list[str]:
        hops = [f"h{s}", *(f"s{x}" for x in paths[attach[s]][attach[d]]), f"h{d}"]
        return [f"{x}>{y}" for x, y in zip(hops, hops[1:], strict=False)]

    toml = [f'[topology]\nkind = "graph"\nhosts = {hosts}\nswitches = {nswitches}\n']
    for a, b, bandwidth, latency in specs:
        toml.append(
            f'[[topology.links]]\nends = ["{a}", "{b}"]\n'
            f'bandwidth = "{bandwidth / 1e6:g}MB/s"\nlatency = "{round(latency * 1e9)}ns"\n'
        )
    return {
        "name": f"graph of {nswitches} switches, {len(edges)} trunks"
        + (" equal latencies" if equal else ""),
        "hosts": hosts,
        "links": links,
        "flows": draw_flows(rng, hosts, route),
        "topology": "".join(toml),
        # G at the fastest host link's rate: no NIC is slower than its host link.
        "G_ps": round(1e12 / max(b for a, _, b, _ in specs if a[0] == "h")),
    }


def switch_paths(n: int, edges: list[tuple[int, int]]) -> list[list[list[int]]]:
    """The shortest path (in hops) between every two switches, by breadth-first search."""
    near = [[] for _ in range(n)]
    for a, b in edges:
        near[a].append(b)
        near[b].append(a)
    paths = []
    for s in range(n):
        parent = {s: None}
        queue = [s]
        for x in queue:
            for y in near[x]:
                if y not in parent:
                    parent[y] = x
                    queue.append(y)
        row = []
        for d in range(n):
            path = [d]
            while path[-1] != s:
                path.append(parent[path[-1]])
            row.append(path[::-1])
        paths.append(row)
    return paths


def unique_shortest_paths(n: int, edges: list[tuple[int, int]]) -> bool:
    """Whether every two switches have exactly one shortest path (no ECMP choice)."""
    near = [[] for _ in range(n)]
    for a, b in edges:
        near[a].append(b)
        near[b].append(a)
    for s in range(n):
        dist, count = {s: 0}, {s: 1}
        queue = [s]
        for x in queue:
            for y in near[x]:
                if y not in dist:
                    dist[y], count[y] = dist[x] + 1, count[x]
                    queue.append(y)
                elif dist[y] == dist[x] + 1:
                    count[y] += count[x]
        if any(c > 1 for c in count.values()):
            return False
    return True


def draw_flows(rng: random.Random, hosts: int, route) -> list[dict]:
    """Two to thirty flows, one per sender and one per receiver (LogGOPS's NICs send and
    receive one message at a time, which SimGrid's do not: docs/guides/topology.md),
    100 B to 100 kB log-uniform, half of them started at 0 and the others staggered
    over the first 40 µs."""
    count = rng.randint(2, min(30, hosts // 2))
    receivers = rng.sample(range(hosts), count)
    senders = rng.sample([h for h in range(hosts) if h not in receivers], count)
    flows = []
    for src, dst in zip(senders, receivers, strict=True):
        size = round(10 ** rng.uniform(2, 5))
        start = 0 if rng.random() < 0.5 else rng.randrange(0, 40_000)
        flows.append(
            {"src": src, "dst": dst, "size": size, "start_ns": start, "route": route(src, dst)}
        )
    return flows


def generated_cases() -> list[dict]:
    rng = random.Random(SEED)
    return [fat_tree_case(rng) if i % 2 == 0 else graph_case(rng) for i in range(CASES)]


def case_goal(case: dict) -> str:
    """Each rank's sends in the order of their starts (a chain of calcs up to each: a
    rank's CPU runs one calc at a time) and its one receive, posted at 0."""
    goal = [f"num_ranks {case['hosts']}"]
    for r in range(case["hosts"]):
        goal.append(f"rank {r} {{")
        at, last, label = 0, None, 0
        for f in sorted((f for f in case["flows"] if f["src"] == r), key=lambda f: f["start_ns"]):
            send = f"s{label}"
            if f["start_ns"] > at:
                goal.append(f"c{label}: calc {f['start_ns'] - at}")
                if last is not None:
                    goal.append(f"c{label} requires {last}")
                last, at = f"c{label}", f["start_ns"]
            goal.append(f"{send}: send {f['size']}b to {f['dst']}")
            if last is not None:
                goal.append(f"{send} requires {last}")
            label += 1
        for f in case["flows"]:
            if f["dst"] == r:
                goal.append(f"r: recv {f['size']}b from {f['src']}")
        goal.append("}")
    return "\n".join(goal) + "\n"


def netsens_ends(tmp_path: Path, i: int, case: dict, model: str) -> list[float]:
    """Each flow's end in seconds: its receiver's end."""
    platform = tmp_path / f"case{i}-{model}.toml"
    platform.write_text(
        f'[cluster]\nL = "0ns"\no = "0ns"\ng = "0ns"\nG = "{case["G_ps"]}ps/B"\nS = "1MiB"\n'
        + case["topology"].replace("[topology]\n", f'[topology]\nmodel = "{model}"\n', 1)
    )
    schedule = tmp_path / f"case{i}.goal"
    schedule.write_text(case_goal(case))
    ends = {
        r["rank"]: r["end_ps"] * 1e-12
        for r in netsens.run(str(schedule), str(platform)).to_dict()["ranks"]
    }
    return [ends[f["dst"]] for f in case["flows"]]


@pytest.mark.parametrize("model", ["cm02", "lv08"])
def test_generated_flows_end_when_simgrid_says(tmp_path: Path, model: str) -> None:
    cases = generated_cases()
    config = {"network/model": model.upper(), **NO_CROSS_TRAFFIC}
    # SimGrid moves k = size - 1 bytes, as netsens's flow does after the first byte.
    sim_cases = [
        {
            "hosts": c["hosts"],
            "links": c["links"],
            "flows": [
                {
                    "src": f["src"],
                    "dst": f["dst"],
                    "bytes": f["size"] - 1,
                    "start": f["start_ns"] * 1e-9,
                    "route": f["route"],
                }
                for f in c["flows"]
            ],
        }
        for c in cases
    ]
    theirs = simgrid_run(config, sim_cases)
    failures, flows, slowed = [], 0, 0
    for i, case in enumerate(cases):
        ours = netsens_ends(tmp_path, i, case, model)
        worst = (0.0, None)
        for j, f in enumerate(case["flows"]):
            start = f["start_ns"] * 1e-9
            # A receiver's end is also no earlier than its own sends' starts (its calcs).
            own = max(
                (g["start_ns"] * 1e-9 for g in case["flows"] if g["src"] == f["dst"]), default=0.0
            )
            expected = max(theirs[i][j], own)
            error = (ours[j] - expected) / (theirs[i][j] - start)
            if abs(error) > abs(worst[0]):
                worst = (error, j)
            alone = (f["size"] - 1) / min(
                link["bandwidth"] for link in case["links"] if link["name"] in f["route"]
            )
            slowed += theirs[i][j] - start > 1.2 * alone
        flows += len(case["flows"])
        if abs(worst[0]) > 0.01:
            j = worst[1]
            f = case["flows"][j]
            failures.append(
                f"case {i} ({case['name']}, {len(case['flows'])} flows): worst flow {j} "
                f"({f['size']} B, {f['src']} -> {f['dst']}, start {f['start_ns']} ns): "
                f"netsens {ours[j] * 1e6:.3f} us, SimGrid {theirs[i][j] * 1e6:.3f} us, "
                f"{worst[0] * 100:+.2f} %"
            )
    assert not failures, (
        f"{model}: {len(failures)} of {len(cases)} cases off by more than 1 %:\n"
        + "\n".join(failures)
    )
    # The cases did make flows share: many took well longer than alone on their route.
    assert flows >= 200 and slowed >= flows // 4, (flows, slowed)


# --- Export to SimGrid's time-independent trace (netsens goal to-simgrid) ---------------

TAPERED_TREE = """name = "tapered"
[cluster]
L = "0ns"
o = "0ns"
g = "0ns"
G = "0ns/B"
S = "1MiB"
[topology]
kind = "fat-tree"
down = [2, 2]
up = [1]
bandwidth = "1GB/s"
model = "cm02"
"""


def to_simgrid_cli(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "netsens", "goal", "to-simgrid", *args]
    return subprocess.run(command, capture_output=True, text=True)


def test_exported_schedule_replays_in_simgrid(tmp_path: Path) -> None:
    """An all-to-all of 100 000 B on a fat-tree tapered 2:1 (down [2, 2], one top
    link a leaf), then 50 µs of computation once a rank's receives are in; every
    rank's sends, receives and computation exported and replayed by SMPI."""
    goal = ["num_ranks 4"]
    for r in range(4):
        goal.append(f"rank {r} {{")
        for p in range(4):
            if p != r:
                goal += [f"s{p}: send 100000b to {p}", f"r{p}: recv 100000b from {p}"]
        goal.append("c: calc 50000")
        goal += [f"c requires r{p}" for p in range(4) if p != r]
        goal.append("}")
    schedule = tmp_path / "a2a.goal"
    schedule.write_text("\n".join(goal) + "\n")
    platform = tmp_path / "tapered.toml"
    platform.write_text(TAPERED_TREE)
    out = tmp_path / "sg"
    done = to_simgrid_cli(str(schedule), str(out), "--platform", str(platform))
    assert done.returncode == 0, done.stderr
    assert "4 ranks" in done.stdout
    assert (out / "rank-0.txt").read_text().splitlines()[0] == "0 init"
    replay = subprocess.run(["sh", str(out / "run.sh")], capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr
    ends = [float(t) for t in re.findall(r"rank \d+ ends at ([0-9.]+) s", replay.stdout)]
    assert len(ends) == 4
    # By hand: a leaf's one up link carries its four crossing flows at 1/4 B/ns each
    # (the flows within a leaf end earlier, at 1/2 B/ns), so the last bytes are in
    # after 4 × (100 000 + 16) ns (SMPI adds 16 B of envelope); then 50 µs.
    assert max(ends) == pytest.approx(400.064e-6 + 50e-6, rel=1e-6)
    ours = netsens.run(str(schedule), str(platform)).to_dict()["makespan_ps"] * 1e-12
    assert ours == pytest.approx(max(ends), rel=1e-3)


@pytest.mark.parametrize(
    ("workload", "platform", "extra", "says"),
    [
        (
            "a2a",
            "examples/platforms/two-sites.toml",
            [],
            "more than one cluster with wide-area links",
        ),
        ("a2a", "tapered", ["--ranks-per-node", "2"], "a node level (ranks_per_node = 2)"),
        (
            "a2a",
            "tapered",
            ["--set", "topology.model=max-min", "--set", "topology.latency=100ns"],
            "max-min",
        ),
        (
            "radix",
            "tapered",
            ["--ranks", "4", "--size", "tiny"],
            "store operations cannot be exported",
        ),
    ],
)
def test_what_simgrid_cannot_express_is_one_line_and_exit_2(
    tmp_path: Path, workload: str, platform: str, extra: list[str], says: str
) -> None:
    if platform == "tapered":
        platform_path = tmp_path / "tapered.toml"
        platform_path.write_text(TAPERED_TREE)
    else:
        platform_path = HERE.parent / platform
    if workload == "a2a":
        schedule = tmp_path / "pair.goal"
        schedule.write_text(
            "num_ranks 4\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\nl1: recv 8b from 0\n}\n"
            "rank 2 {\n}\nrank 3 {\n}\n"
        )
        workload = str(schedule)
    done = to_simgrid_cli(workload, str(tmp_path / "out"), "--platform", str(platform_path), *extra)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("netsens: error: "), done.stderr
    assert says in lines[0]
