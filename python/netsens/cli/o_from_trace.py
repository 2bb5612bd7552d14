"""``netsens replay --o-from-trace``: replay at the o the traced program paid per
message in its own run (:func:`netsens.engine.trace_overhead_paid`), not the
platform's calibrated one; ``--o-injected`` adds what a live run injects on top."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from netsens import _core
from netsens.engine import trace_overhead_paid
from netsens.errors import InputError
from netsens.units import format_time, parse_quantity


def o_from_trace_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--o-from-trace`` and ``--o-injected TIME`` to a replay command."""
    command = click.option(
        "--o-injected",
        metavar="TIME",
        help="With --o-from-trace: o added on top of what the trace paid, as netsens "
        "live --o injects it, e.g. 50us.",
    )(command)
    return click.option(
        "--o-from-trace",
        is_flag=True,
        help="o = what the traced run paid per eager message (at most the platform's S): "
        "the time in the non-blocking calls that started its messages, the probes that "
        "found them and the tests that completed them, per message end "
        "(docs/guides/replay-fidelity.md).",
    )(command)


def o_paid_override(
    trace: str, platform: str, overrides: dict[str, str], injected: str | None
) -> tuple[dict[str, str], dict[str, Any]]:
    """``overrides`` with o set to what ``trace`` paid per message up to the platform's
    S, plus ``injected``; and what was measured, for the result's workload."""
    if "o" in overrides:
        raise InputError("--o and --o-from-trace both set o: give one of them")
    try:
        added = 0 if injected is None else parse_quantity("o-injected", injected, ("time",)).value
    except ValueError as e:
        raise InputError(str(e)) from None
    if added != int(added):
        raise InputError(f'o-injected: "{injected}" is below the engine\'s 1 ps resolution')
    resolved = json.loads(_core.platform_json(platform, overrides))
    up_to = int(resolved["cluster"]["eager_limit"])
    paid = trace_overhead_paid(trace, up_to)
    if paid["o_ps"] is None:
        raise InputError(
            f"{trace}: no message of at most {up_to} B was started by a non-blocking call "
            "and completed by an MPI_Test*: the o it paid cannot be told from waiting; "
            "replay without --o-from-trace"
        )
    o_ps = paid["o_ps"] + int(added)
    measured = {
        "o_paid_ps": paid["o_ps"],
        "o_injected_ps": int(added),
        "ends": sum(r["ends"] for r in paid["ranks"]),
        "up_to_bytes": up_to,
    }
    return {**overrides, "o": f"{o_ps}ps"}, measured


def describe(measured: dict[str, Any]) -> str:
    """One line: the o the replay used and where it came from."""
    line = (
        f"o from the trace: {format_time(measured['o_paid_ps'])} paid per message end "
        f"({measured['ends']} ends of at most {measured['up_to_bytes']} B)"
    )
    if measured["o_injected_ps"]:
        line += f", + {format_time(measured['o_injected_ps'])} injected"
    return line
