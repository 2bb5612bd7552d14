"""``netsens trace``: a real MPI run (any program, or a suite application) recorded as
an OTF2 archive by the netsens library's trace mode (:mod:`netsens.live`).

Registered on the ``netsens`` group by :mod:`netsens.cli`; errors end as one line
``netsens: error: ...`` with exit code 2 there.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click

from netsens.cli_live import CONTEXT, mpi_options, timeout_seconds
from netsens.console import stdout_console
from netsens.errors import InputError, ProgramError
from netsens.live import run_live
from netsens.units import format_time

ARCHIVE = "traces.otf2"


def trace_run(
    out: str | Path,
    ranks: int,
    *,
    app: str | None = None,
    program: tuple[str, ...] | list[str] | None = None,
    **live: Any,
) -> tuple[Path, dict[str, Any]]:
    """Run under trace mode; returns the archive's anchor file and the live result."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out} exists and is not an empty directory; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    result = run_live(ranks, app=app, program=program, trace_dir=out, **live)
    anchor = out / ARCHIVE
    if not anchor.is_file():
        raise ProgramError(f"the run ended but rank 0 wrote no OTF2 archive in {out}")
    return anchor, result


def trace_command() -> click.Command:
    @click.command("trace", context_settings=CONTEXT)
    @click.argument("program", nargs=-1, type=click.UNPROCESSED, metavar="[-- PROGRAM ARGS...]")
    @click.option("--app", metavar="NAME", help="Suite application to trace (netsens apps).")
    @click.option("--ranks", type=int, required=True, metavar="P", help="Number of MPI processes.")
    @click.option(
        "--size",
        default="small",
        show_default=True,
        metavar="tiny|small|paper",
        help="Size preset of the --app application's input.",
    )
    @click.option(
        "--out",
        default="netsens-trace",
        show_default=True,
        metavar="DIR",
        help=f"New directory for the OTF2 archive (DIR/{ARCHIVE}).",
    )
    @mpi_options
    def trace(
        program: tuple[str, ...],
        app: str | None,
        ranks: int,
        size: str,
        out: str,
        mpi: str,
        mpirun_args: str,
        timeout: str | None,
    ) -> None:
        """Record a real MPI run as an OTF2 archive.

        \b
        Every MPI call with its times, communicator, peer, tag, size and request;
        collectives with root and byte counts; the CPU time between calls:
          netsens trace --ranks 4 --out ring-trace -- ./ring 1000
          netsens trace --app radb --ranks 4 --size tiny --out radb-trace
        otf2-print, Vampir and Pipit read the archive.
        """
        anchor, result = trace_run(
            out,
            ranks,
            app=app,
            program=list(program) if program else None,
            size=size,
            mpi=mpi,
            mpirun_args=shlex.split(mpirun_args),
            timeout=timeout_seconds(timeout),
            matrix=False,
        )
        stdout_console().print(
            f"{anchor}: {ranks} ranks, run time {format_time(result['makespan_ps'])}, "
            f"{result['messages']:,} messages"
        )

    return trace
