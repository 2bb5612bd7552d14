"""Networks sold today as platform files (``networks/*.toml`` beside this module), the
seeds' machines for reference, and how each is sized to a job.

A preset's file describes its end points (L, o, g, G, O, S: chosen so that netsens's
own ping-pong and streaming measurement give the published half round trip and
bandwidth, ``published``) and its topology at a small size; :func:`resolve` scales the
topology to the job's hosts (a fat-tree's leaves, a dragonfly's groups) and sets the
taper and the placement, all as ``topology.<key>`` overrides of that file. The sources
of every number are in docs/reference/networks.md.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netsens.errors import InputError

HERE = Path(__file__).resolve().parent / "networks"


@dataclass(frozen=True)
class Published:
    """What a network is measured to deliver between two hosts of one switch: MPI's
    half round trip of a small message (of ``size_B`` bytes: the size the source gives
    it at) and its large-message bandwidth."""

    half_round_trip_ps: int
    bandwidth_Bps: float
    source: str
    size_B: int = 1


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    published: Published
    # "fat-tree" (leaves of `leaf_down` hosts), "dragonfly" (groups of routers x
    # hosts) or "" (no topology: the seeds' presets, named as the engine knows them).
    scale: str = ""
    leaf_down: int = 0
    reference: bool = False
    engine_preset: str | None = None
    # Clusters a reference preset spreads the job over (das1998's 4), 0: none.
    clusters: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def spec(self) -> str:
        """What the engine is given: the file, or the engine's own preset name."""
        return self.engine_preset or os.fspath(HERE / f"{self.name}.toml")


US = 1_000_000
NS = 1_000

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "ib-ndr",
            "InfiniBand NDR 400 Gb/s, non-blocking fat-tree",
            Published(1 * US, 48e9, "osu_latency / osu_bw on ConnectX-7 NDR (estimate)"),
            scale="fat-tree",
            leaf_down=32,
        ),
        Preset(
            "ib-ndr-2to1",
            "InfiniBand NDR 400 Gb/s, fat-tree tapered 2:1",
            Published(1 * US, 48e9, "as ib-ndr"),
            scale="fat-tree",
            leaf_down=32,
        ),
        Preset(
            "slingshot-11",
            "HPE Slingshot-11 200 Gb/s, dragonfly",
            # CSCS's regression references for Alps: osu_latency 2.3 us at 256 B,
            # osu_bw 24 000 MB/s at 4 MiB (docs/reference/networks.md).
            Published(2300 * NS, 24e9, "osu_latency / osu_bw on Alps (CSCS)", size_B=256),
            scale="dragonfly",
        ),
        Preset(
            "roce-100",
            "RoCE v2 100 GbE, leaf-spine 3:1",
            Published(1600 * NS, 12e9, "osu_latency / osu_bw on ConnectX-6 Dx RoCE (estimate)"),
            scale="fat-tree",
            leaf_down=48,
        ),
        Preset(
            "roce-400",
            "RoCE v2 400 GbE, leaf-spine 3:1",
            Published(1800 * NS, 46e9, "osu_latency / osu_bw on ConnectX-7 RoCE (estimate)"),
            scale="fat-tree",
            leaf_down=48,
        ),
        Preset(
            "tcp-25g",
            "25 GbE with kernel TCP, leaf-spine 3:1",
            Published(15 * US, 2.8e9, "MPI over TCP sockets on 25 GbE (estimate)"),
            scale="fat-tree",
            leaf_down=48,
        ),
        Preset(
            "now1997",
            "Berkeley NOW (Myrinet, ISCA'97), reference",
            # Martin et al.: L = 5 us, o = 2.9 us (L + 2o); 38 MB/s bulk.
            Published(10_800 * NS, 38e6, "Martin, Vahdat, Culler, Anderson, ISCA'97"),
            reference=True,
            engine_preset="now1997",
        ),
        Preset(
            "das1998",
            "DAS (Myrinet clusters over ATM, 1998), reference",
            # Plaat, Bal, Hofman: 18 us one-way and 50 MB/s inside a cluster.
            Published(18 * US, 50e6, "Plaat, Bal, Hofman, HPCA'99 (1998 report)"),
            reference=True,
            engine_preset="das1998",
            clusters=4,
        ),
    )
}

# The networks compared when none is named: those sold today.
DEFAULT = [name for name, p in PRESETS.items() if not p.reference]


def names() -> list[str]:
    return list(PRESETS)


def listing() -> str:
    return ", ".join(PRESETS)


def expand(specs: list[str]) -> list[str]:
    """``all`` (every preset), ``today`` (the default), preset names and platform files,
    in order and without repeats; an unknown name is one line listing those that exist."""
    out: list[str] = []
    for spec in specs or ["today"]:
        for item in (s.strip() for s in spec.split(",")):
            if not item:
                continue
            group = {"all": names(), "today": DEFAULT}.get(item)
            for one in group or [item]:
                if one not in PRESETS and not _is_file(one):
                    raise InputError(
                        f'network "{one}" is neither a preset nor a platform file; '
                        f"presets: {listing()} (or all, today)"
                    )
                if one not in out:
                    out.append(one)
    return out


def _is_file(spec: str) -> bool:
    return spec.endswith(".toml") or os.sep in spec


@dataclass
class Sized:
    """A network made ready for one job: the platform the engine reads, its overrides,
    its hosts and whether it has shared links at all."""

    name: str
    platform: str
    overrides: dict[str, str]
    hosts: int | None  # None: no topology (every rank its own end point)
    topology: str | None  # the topology's kind, None without one
    tapered: bool
    how_to_scale: str


def resolve(
    spec: str,
    nodes: int,
    *,
    hosts: int | None = None,
    taper: str | None = None,
    placement: str | None = None,
    cpu_speed: float | None = None,
) -> Sized:
    """The network ``spec`` (a preset or a platform file) sized for a job of ``nodes``
    nodes: a preset's topology grows to ``hosts`` (default: the job's nodes) and takes
    ``taper`` where it is a fat-tree; any topology takes ``placement``. A platform file
    is used as it is (its hosts counted); one without a ``[topology]`` has no shared
    links."""
    preset = PRESETS.get(spec)
    over: dict[str, str] = {}
    if cpu_speed is not None:
        over["cpu_speed"] = repr(float(cpu_speed))
    want = hosts or nodes
    if preset is not None and preset.scale == "fat-tree":
        leaves = max(2, math.ceil(want / preset.leaf_down))
        over["topology.down"] = f"[{preset.leaf_down}, {leaves}]"
        over["topology.taper"] = _taper_of(preset) if taper is None else taper
    elif preset is not None and preset.scale == "dragonfly":
        per_group = 32 * 16
        over["topology.groups"] = str(max(2, math.ceil(want / per_group)))
    if placement is not None and (preset is None or preset.scale):
        over["topology.placement"] = placement
    if preset is not None and preset.reference:
        if preset.clusters:
            # The job spread over the clusters as evenly as it goes (the seed ran 4 x 8).
            k = preset.clusters
            sizes = [nodes // k + (1 if i < nodes % k else 0) for i in range(k)]
            over["clusters"] = ",".join(str(n) for n in sizes if n)
        return Sized(spec, preset.spec, over, None, None, False, "")
    platform = preset.spec if preset is not None else spec
    if preset is None and not os.path.exists(spec):
        raise InputError(f'network "{spec}": no such platform file')
    kind, count, tapered = _topology_of(platform, over)
    if preset is None and placement is not None and kind is None:
        over.pop("topology.placement")
    how = (
        f"leave --hosts out, or pass --hosts {nodes} or more"
        if preset is not None
        else "give a platform file with more hosts"
    )
    return Sized(spec, platform, over, count, kind, tapered, how)


def _tapered(t: dict[str, Any], down: list[int]) -> bool:
    """Whether a fat-tree has fewer up ports than down ports at some level."""
    if "up" in t:
        return any(int(u) < d for u, d in zip(t["up"], down, strict=False))
    taper = t.get("taper", "1:1")
    for ratio in taper if isinstance(taper, list) else [taper]:
        a, _, b = str(ratio).partition(":")
        if b and float(a) > float(b):
            return True
    return False


def _taper_of(preset: Preset) -> str:
    with open(preset.spec, "rb") as f:
        return str(tomllib.load(f)["topology"].get("taper", "1:1"))


def _topology_of(platform: str, over: dict[str, str]) -> tuple[str | None, int | None, bool]:
    """(kind, hosts, tapered) of the platform's resolved ``[topology]``; (None, None,
    False) without one."""
    from netsens.engine import platform_toml

    doc = tomllib.loads(platform_toml(platform, over))
    t: dict[str, Any] | None = doc.get("topology")
    if not t:
        return None, None, False
    kind = str(t.get("kind"))
    if kind == "fat-tree":
        down = [int(d) for d in t["down"]] if "down" in t else []
        if not down:  # a k-ary tree: half the ports down below the top, all at the top
            k, levels = int(t["radix"]), int(t["levels"])
            down = [k // 2] * (levels - 1) + [k]
        return kind, math.prod(down), _tapered(t, down)
    if kind == "dragonfly":
        return kind, int(t["groups"]) * int(t["routers"]) * int(t["hosts"]), False
    if kind == "torus":
        return kind, math.prod(int(d) for d in t["dims"]), False
    return kind, int(t.get("hosts", 0)) or None, False
