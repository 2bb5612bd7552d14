"""``netsens calibrate``: the seeds' LogP calibration, simulated on a platform or, with
``--live``, measured on real MPI (:mod:`netsens.live.calibrate`).

Registered on the ``netsens`` group by :mod:`netsens.cli.main` (which passes its shared
network flags in); errors end there as one line with exit code 2.
"""

import json
from typing import Any

import click

from netsens.cli.console import stdout_console
from netsens.cli.live import LIVE_CALIBRATE_KEYS, calibrate_live_cli, live_calibrate_options
from netsens.cli.options import EPILOG, overrides_from, platform_options
from netsens.engine import calibrate_json
from netsens.units import format_bytes, format_time


def calibrate_command(platform_options: Any, overrides_from: Any, epilog: str) -> click.Command:
    """The command, given the network flags of :mod:`netsens.cli.main` (shared with ``run``)."""

    @click.command(epilog=epilog)
    @click.option(
        "--platform",
        default=None,
        metavar="PRESET|FILE.toml",
        help="Platform preset name or TOML file  [default: loggopsim; with --live: none injected]",
    )
    @platform_options
    @click.option(
        "--json",
        "as_json",
        is_flag=True,
        help="Print the result as one JSON object (times in ps) and nothing else.",
    )
    @click.option(
        "--live",
        is_flag=True,
        help="Measure the real machine over MPI (two processes), then with the platform injected.",
    )
    @live_calibrate_options
    def calibrate(platform: str | None, as_json: bool, live: bool, **params: Any) -> None:
        """Recover L, o, g, G, O and S with the seeds' LogP microbenchmarks.

        Two ranks of the platform's cluster run Martin et al.'s calibration: bursts of
        messages with a chosen computation between sends (send overhead o_s, gap g),
        a receiver that computes while a message waits (receive overhead o_r), ping-pongs
        over message sizes (L, and the alpha-beta line: beta = max(G, O)), bursts of large
        messages (O, and g when g <= o) and a probe of the eager limit S. Each estimate is
        printed next to the dialled value; one the method cannot observe is printed as the
        bound the measurements prove, with the reason.

        \b
        With --live the same microbenchmarks run on real MPI (--mpi): first the bare
        machine, then, if a platform or flags are given, with them injected, each
        parameter next to what the injection should deliver on this machine:
          netsens calibrate --live                          # the machine's own L, o, g, G
          netsens calibrate --live --o 20us --L 50us        # dialled vs measured
          netsens calibrate --live --save machine.toml      # the machine as a platform file
        """
        live_options = {k: params.pop(k) for k in LIVE_CALIBRATE_KEYS}
        if live:
            calibrate_live_cli(platform, overrides_from(params), as_json, **live_options)
            return
        context = click.get_current_context()
        given = [
            "--" + key
            for key in LIVE_CALIBRATE_KEYS
            if context.get_parameter_source(key) != click.core.ParameterSource.DEFAULT
        ]
        if given:
            raise click.UsageError(f"{', '.join(given)}: only with --live")
        text = calibrate_json(platform or "loggopsim", overrides_from(params))
        if as_json:
            click.echo(text)
        else:
            _print_calibration(json.loads(text))

    return calibrate


def _quantity(value: float, unit: str) -> str:
    """A calibrated value with its unit: a time, a cost per byte or a size."""
    if unit == "ps":
        return format_time(round(value))
    if unit == "ps/B":
        if abs(value) >= 1000:
            return f"{value / 1000:.3f}".rstrip("0").rstrip(".") + " ns/B"
        return f"{value:.3f}".rstrip("0").rstrip(".") + " ps/B"
    return format_bytes(round(value))


def _print_calibration(result: dict[str, Any]) -> None:
    from rich.table import Table

    console = stdout_console()
    console.print(f"calibration of platform [bold]{result['platform_name']}[/bold] (cluster level)")
    table = Table("parameter", "dialled", "measured", "error")
    for column in table.columns[1:]:
        column.justify = "right"
    notes = []
    for p in result["parameters"]:
        dialled = _quantity(p["dialled"], p["unit"])
        if p["measured"] is None:
            relation = "<=" if p["bound"]["kind"] == "at_most" else ">="
            measured = f"{relation} {_quantity(p['bound']['value'], p['unit'])} *"
            error = "not observable"
            notes.append(f"* {p['name']}: {p['why']}")
        else:
            measured = _quantity(p["measured"], p["unit"])
            error = _percent(p["relative_error"])
        table.add_row(p["name"], dialled, measured, error)
    table.rows[-1].end_section = True
    for name, key in (("alpha (intercept)", "alpha"), ("beta (slope)", "beta")):
        line = result[key]
        model = _quantity(line["model"], line["unit"])
        table.add_row(name, f"{model} (model)", _quantity(line["measured"], line["unit"]), "")
    console.print(table)
    for note in notes:
        console.print(note)


def _percent(fraction: float | None) -> str:
    if fraction is None:
        return "inf"
    if fraction == 0:
        return "0%"
    if abs(fraction) < 1e-6:
        return "< 0.0001%"  # picosecond rounding of a per-byte cost, not a miss
    return f"{100 * fraction:+.4f}%"


# The command `netsens calibrate` loads (see netsens.cli.main.COMMANDS).
calibrate = calibrate_command(platform_options, overrides_from, EPILOG)
