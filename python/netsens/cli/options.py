"""The options several ``netsens`` commands share: the flags that override a
platform's LogGOPS and shape parameters, the seed and its range check, and the epilog that
lists the units and the platform presets.

Kept apart from :mod:`netsens.cli.main` so a command module can import them without the
group, which loads each command module only when that command runs.
"""

from collections.abc import Callable
from typing import Any

import click

from netsens.engine import presets

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

UNITS_HELP = """\b
Every value needs its unit (a bare number is an error):
  time      5us  2.5us  1500ns  3ms  40ps      (us or µs)
  per byte  6ns/B  40ps/B, or a bandwidth: 1MB/s  10Gbit/s  12.5GB/s  100MiB/s
  size      100B  65535B  64KiB  1MB"""


def _presets_help() -> str:
    lines = ["\b", "Platform presets (netsens platform show NAME prints one in full):"]
    lines += [f"  {name:<10} {description}" for name, description in presets()]
    return "\n".join(lines)


EPILOG = f"{UNITS_HELP}\n\n{_presets_help()}"

# (flag, override key, metavar, help); the key is also the click destination, given
# explicitly because click would otherwise lowercase `--G` into `g`.
NETWORK_OPTIONS = [
    ("--L", "L", "TIME", "Latency L: wire time of a message, e.g. 5us."),
    ("--o", "o", "TIME", "CPU overhead o per message, paid at each end, e.g. 1us."),
    ("--g", "g", "TIME", "Gap g between two messages on one NIC, e.g. 2us."),
    ("--G", "G", "PER_BYTE", "Gap G per byte on the NIC, e.g. 6ps/B or 10Gbit/s."),
    ("--O", "O", "PER_BYTE", "CPU overhead O per byte, e.g. 0ns/B."),
    ("--S", "S", "SIZE", "Eager limit S: larger messages use rendezvous, e.g. 64KiB."),
    ("--G-above", "G_above", "SIZE", "G only on messages above this size (0B: on all), e.g. 16B."),
    (
        "--o-control",
        "o_control",
        "TIME",
        "CPU overhead of the rendezvous handshake's control messages, e.g. 2us  [default: o].",
    ),
]
SHAPE_OPTIONS = [
    ("--clusters", "clusters", "SHAPE", "Clusters joined by wide-area links, e.g. 4x8."),
    ("--ranks-per-node", "ranks_per_node", "N", "Ranks sharing one node, e.g. 2, or all."),
    (
        "--cores-per-node",
        "cores_per_node",
        "N",
        "Cores of each node: its ranks take them in turn and ranks on one core compute "
        "in turn, e.g. 2  [default: a core per rank].",
    ),
    ("--cpu-speed", "cpu_speed", "X", "CPU speed scale, e.g. 2 (twice as fast)."),
    (
        "--am-window",
        "am_window",
        "N",
        "Active Messages' flow control on one-sided ops: at most N requests outstanding "
        "per destination, each freed by its reply, e.g. 4  [default: no window].",
    ),
    ("--wan-latency", "wan_latency", "TIME", "Latency of each wide-area link, e.g. 3ms."),
    ("--wan-bandwidth", "wan_bandwidth", "BANDWIDTH", "Bandwidth of each wide-area link, 1MB/s."),
    (
        "--wan-gateway",
        "wan_gateway",
        "TIME",
        "Each cluster's gateway cost per wide-area message, e.g. 32us  [default: the platform's].",
    ),
    (
        "--disk-bandwidth",
        "disk_bandwidth",
        "BANDWIDTH",
        "Bandwidth of each node disk (programs that use disks), e.g. 5.5MB/s.",
    ),
]
CHOICE_OPTIONS = [
    (
        "--rendezvous",
        "rendezvous",
        ("handshake", "loggopsim"),
        "Protocol above S: MPI-like request/clear-to-send, or LogGOPSim's shortcut.",
    ),
    ("--wan-shape", "wan_shape", ("full", "star", "ring"), "How clusters are linked."),
]
OVERRIDE_KEYS = [key for _, key, *_ in NETWORK_OPTIONS + SHAPE_OPTIONS + CHOICE_OPTIONS]


def platform_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the flags that override a platform's parameters (see ``overrides_from``)."""
    for flag, key, choices, text in reversed(CHOICE_OPTIONS):
        command = click.option(flag, key, type=click.Choice(choices), help=text)(command)
    for flag, key, metavar, text in reversed(NETWORK_OPTIONS + SHAPE_OPTIONS):
        command = click.option(flag, key, metavar=metavar, help=text)(command)
    return command


def overrides_from(params: dict[str, Any]) -> dict[str, str]:
    """The platform overrides among a command's parameters, the unset ones left out."""
    return {key: params[key] for key in OVERRIDE_KEYS if params.get(key) is not None}


def check_seed(value: int) -> int:
    """A seed in 0..2^64-1, or a usage error."""
    if not 0 <= value < 2**64:
        raise click.BadParameter(f"{value} is not between 0 and 2^64-1")
    return value


def seed_option(help_text: str) -> Callable[..., Any]:
    """``--seed N``, checked to lie in 0..2^64-1; ``help_text`` says what it seeds."""
    return click.option(
        "--seed",
        type=int,
        default=0,
        show_default=True,
        metavar="N",
        callback=lambda _ctx, _param, value: check_seed(value),
        help=help_text,
    )


def repeat_option(help_text: str) -> Callable[..., Any]:
    """``--repeat K`` (at least 1): runs of a suite application in one MPI job."""
    return click.option(
        "--repeat",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        metavar="K",
        help=help_text,
    )
