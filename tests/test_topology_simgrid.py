"""The topology's flow sharing against SimGrid (docs/guides/topology.md): the same
flows on the same links, bandwidths, latencies and routes complete at the same times
under SimGrid's own CM02 and LV08 models, and netsens's plain max-min against CM02
where every latency is 0 (CM02's weights are then all equal).

SimGrid comes from Debian's python3-simgrid (3.32), installed here with apt-get when
missing; it runs under the system Python it is built for (tests/simgrid_flows.py).
"""

import json
import shutil
import subprocess
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


pytestmark = pytest.mark.skipif(
    not simgrid_available(),
    reason="python3-simgrid (Debian) is missing and apt-get could not install it",
)


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
        "config": config,
        "hosts": 6,
        "links": links,
        "flows": [
            {"src": s, "dst": d, "bytes": n, "start": t * 1e-9, "route": route(s, d)}
            for s, d, n, t in FLOWS
        ],
    }
    out = subprocess.run(
        [SYSTEM_PYTHON, str(HERE / "simgrid_flows.py")],
        input=json.dumps(case),
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
