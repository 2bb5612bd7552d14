"""The parameters a study can sweep: how each is written, stored, shown and fitted.

This table is the one place that knows them. Each parameter is an engine override key
(``L o g G O S wan_latency wan_bandwidth cpu_speed clusters``, and of a platform's
``[topology]``: ``topology.taper topology.global_bandwidth topology.placement``) with
the kinds of value it takes, the stored column that holds its resolved value in a
canonical unit, where the resolved platform (TOML from ``netsens.engine.platform_toml``,
JSON in a run result) keeps it, its name for people (figures and tables of ``netsens report``) and
the variable its curve is fitted against (``netsens.models.fit``, ``netsens explain``).
"""

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Parameter:
    """A sweepable parameter.

    ``fit_unit`` is the unit of the variable ``x`` its curve is fitted against (None:
    not fitted): ``x = value / fit_scale``, or ``fit_scale / value`` when
    ``fit_inverse``. Every fitted variable grows as the network (or CPU) gets slower,
    so a curve's flat region is always on its left: a bandwidth is fitted as its
    per-byte time 1/B (as Martin plots Gap, not bandwidth, to show the line), a CPU
    speed as its time scale 1/speed.
    """

    name: str
    kinds: tuple[str, ...]  # see netsens.units.parse_quantity; () = list of shapes only
    column: str  # stored column, resolved value in `unit`
    unit: str
    toml: tuple[str, ...]  # its place in the resolved platform TOML
    label: str  # for people: "latency L"
    fit_unit: str | None = None
    fit_scale: float = 1.0
    fit_inverse: bool = False
    # Stored as text, not a number: a categorical axis (drawn by category, not fitted).
    text: bool = False

    @property
    def fit_name(self) -> str:
        """The fitted variable: the parameter, or ``1/<name>`` for an inverse."""
        return f"1/{self.name}" if self.fit_inverse else self.name

    def to_fit(self, value: float) -> float:
        """A stored (canonical) value as the fitted variable, in ``fit_unit``."""
        if self.fit_inverse:
            return self.fit_scale / value if value else math.inf
        return value / self.fit_scale


_FIT_US = {"fit_unit": "us", "fit_scale": 1e6}
_FIT_NS_PER_B = {"fit_unit": "ns/B", "fit_scale": 1e3}
PARAMETERS: dict[str, Parameter] = {
    p.name: p
    for p in (
        Parameter("L", ("time",), "L_ps", "ps", ("cluster", "L"), "latency L", **_FIT_US),
        Parameter("o", ("time",), "o_ps", "ps", ("cluster", "o"), "overhead o", **_FIT_US),
        Parameter("g", ("time",), "g_ps", "ps", ("cluster", "g"), "gap g", **_FIT_US),
        Parameter("G", ("per_byte",), "G_ps_per_B", "ps/B", ("cluster", "G"),
                  "gap per byte G", **_FIT_NS_PER_B),
        Parameter("O", ("per_byte",), "O_ps_per_B", "ps/B", ("cluster", "O"),
                  "overhead per byte O", **_FIT_NS_PER_B),
        Parameter("S", ("size",), "S_B", "B", ("cluster", "S"), "eager limit S", fit_unit="B"),
        Parameter("wan_latency", ("time",), "wan_latency_ps", "ps", ("wan", "latency"),
                  "wide-area latency", **_FIT_US),
        # Fitted as time per byte: 1e9 / (B/s) = ns/B.
        Parameter("wan_bandwidth", ("per_byte",), "wan_bandwidth_Bps", "B/s",
                  ("wan", "bandwidth"), "wide-area bandwidth", fit_unit="ns/B", fit_scale=1e9,
                  fit_inverse=True),
        # Fitted as the time scale 1/speed.
        Parameter("cpu_speed", ("number",), "cpu_speed", "ratio", ("cpu_speed",), "CPU speed",
                  fit_unit="x", fit_inverse=True),
        # Stored as the shape ("4x8"); store.load's value is the number of clusters. Not
        # fitted.
        Parameter("clusters", (), "clusters", "clusters", ("shape", "clusters"),
                  "cluster shape", text=True),
        # A fat-tree's taper ("2:1"), stored as the leaves' down ports per up port.
        Parameter("topology.taper", (), "taper", "ratio", ("topology", "taper"),
                  "fat-tree taper", fit_unit="x"),
        # A dragonfly's global links, fitted as time per byte like wan_bandwidth.
        Parameter("topology.global_bandwidth", ("per_byte",), "global_bandwidth_Bps", "B/s",
                  ("topology", "global_bandwidth"), "dragonfly global-link bandwidth",
                  fit_unit="ns/B", fit_scale=1e9, fit_inverse=True),
        # Which hosts the ranks sit on: linear, round-robin, random:SEED (a category).
        Parameter("topology.placement", (), "placement", "placement", ("topology", "placement"),
                  "rank placement", text=True),
    )
}  # fmt: skip

# Where the other engine overrides (allowed in a study's [baseline]) live in the
# resolved platform TOML, so that they too compare by value rather than spelling.
OTHER_TOML = {
    "rendezvous": ("rendezvous",),
    "ranks_per_node": ("shape", "ranks_per_node"),
    "cores_per_node": ("shape", "cores_per_node"),
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
        **_topology_columns((platform.get("topology") or {}).get("shape") or {}),
        "placement": placement_text((platform.get("topology") or {}).get("placement")),
    }


def placement_text(placement: Any) -> str | None:
    """The stored placement of a resolved topology (``linear``, ``round-robin``,
    ``random:7``, ``list``); None without a topology."""
    if placement is None or isinstance(placement, str):
        return placement
    if "random" in placement:
        return f"random:{placement['random']}"
    return "list"


def _topology_columns(shape: dict[str, Any]) -> dict[str, float | None]:
    """The taper of a fat-tree's leaves and a dragonfly's global bandwidth (None for
    the other kinds, and without a topology)."""
    taper = None
    if shape.get("kind") == "fat-tree" and shape["up"]:
        taper = shape["down"][0] / shape["up"][0]
    bandwidth = None
    if shape.get("kind") == "dragonfly":
        bandwidth = _bandwidth(shape["global"]["per_byte"])
    return {"taper": taper, "global_bandwidth_Bps": bandwidth}


def _bandwidth(fs_per_byte: int) -> float:
    return FS_PER_S / fs_per_byte if fs_per_byte else float("inf")
