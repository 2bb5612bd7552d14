"""The parameters a study can sweep: how each is written, stored and found in a result.

Each parameter is an engine override key (``L o g G O S wan_latency wan_bandwidth
cpu_speed clusters``) with the kinds of value it takes, the stored column that holds its
resolved value in a canonical unit, and where the resolved platform (TOML from
``netsens.engine.platform_toml``, JSON in a run result) keeps it.
"""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Parameter:
    name: str
    kinds: tuple[str, ...]  # see netsens.units.parse_quantity; () = list of shapes only
    column: str  # stored column, resolved value in `unit`
    unit: str
    toml: tuple[str, ...]  # its place in the resolved platform TOML
    description: str


PARAMETERS: dict[str, Parameter] = {
    p.name: p
    for p in (
        Parameter("L", ("time",), "L_ps", "ps", ("cluster", "L"), "latency"),
        Parameter("o", ("time",), "o_ps", "ps", ("cluster", "o"), "CPU overhead per message"),
        Parameter("g", ("time",), "g_ps", "ps", ("cluster", "g"), "gap between messages"),
        Parameter("G", ("per_byte",), "G_ps_per_B", "ps/B", ("cluster", "G"), "gap per byte"),
        Parameter(
            "O", ("per_byte",), "O_ps_per_B", "ps/B", ("cluster", "O"), "CPU overhead per byte"
        ),
        Parameter("S", ("size",), "S_B", "B", ("cluster", "S"), "eager limit"),
        Parameter(
            "wan_latency", ("time",), "wan_latency_ps", "ps", ("wan", "latency"), "WAN latency"
        ),
        Parameter(
            "wan_bandwidth",
            ("per_byte",),
            "wan_bandwidth_Bps",
            "B/s",
            ("wan", "bandwidth"),
            "WAN bandwidth",
        ),
        Parameter("cpu_speed", ("number",), "cpu_speed", "ratio", ("cpu_speed",), "CPU speed"),
        Parameter("clusters", (), "clusters", "clusters", ("shape", "clusters"), "cluster shape"),
    )
}

# Where the other engine overrides (allowed in a study's [baseline]) live in the
# resolved platform TOML, so that they too compare by value rather than spelling.
OTHER_TOML = {
    "rendezvous": ("rendezvous",),
    "ranks_per_node": ("shape", "ranks_per_node"),
    "wan_shape": ("wan", "shape"),
    "wan_hub": ("wan", "hub"),
    "disk_bandwidth": ("disks", "bandwidth"),
    "disks_per_node": ("disks", "count"),
    "latency_jitter": ("noise", "latency_jitter"),
    "wan_jitter": ("noise", "wan_jitter"),
    "detour_interval": ("noise", "detour_interval"),
    "detour_duration": ("noise", "detour_duration"),
}

FS_PER_S = 10**15


def clusters_text(sizes: list[int] | None) -> str | None:
    """The stored cluster shape: ``4x8`` when the clusters are equal, ``16+16+4``
    otherwise, ``None`` for a single cluster."""
    if not sizes or len(sizes) == 1:
        return None
    if len(set(sizes)) == 1:
        return f"{len(sizes)}x{sizes[0]}"
    return "+".join(map(str, sizes))


def columns(platform: dict[str, Any]) -> dict[str, float | str | None]:
    """Every parameter's stored column from a run result's resolved ``platform``."""
    cluster, wan = platform["cluster"], platform.get("wan")
    return {
        "L_ps": float(cluster["latency"]),
        "o_ps": float(cluster["overhead"]),
        "g_ps": float(cluster["gap"]),
        # The engine keeps per-byte costs in fs/B.
        "G_ps_per_B": cluster["gap_per_byte"] / 1000,
        "O_ps_per_B": cluster["overhead_per_byte"] / 1000,
        "S_B": float(cluster["eager_limit"]),
        "wan_latency_ps": float(wan["latency"]) if wan else None,
        "wan_bandwidth_Bps": _bandwidth(wan["per_byte"]) if wan else None,
        "cpu_speed": float(platform["cpu_speed"]),
        "clusters": clusters_text((platform.get("shape") or {}).get("clusters")),
    }


def _bandwidth(fs_per_byte: int) -> float:
    return FS_PER_S / fs_per_byte if fs_per_byte else float("inf")
