"""``netsens trace``: a real MPI run (any program, or a suite application) recorded as
an OTF2 archive by the netsens library's trace mode (:mod:`netsens.live.run`);
``netsens trace to-goal`` writes a trace's GOAL form; ``netsens replay`` replays a
trace under any platform.

Registered on the ``netsens`` group by :mod:`netsens.cli.main`; errors end as one line
``netsens: error: ...`` with exit code 2 there.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

import click

from netsens.cli.console import stdout_console
from netsens.cli.live import CONTEXT, mpi_options, result_options, timeout_seconds
from netsens.cli.o_from_trace import describe, o_from_trace_options, o_paid_override
from netsens.cli.options import overrides_from, platform_options, repeat_option
from netsens.cli.run import print_run, warn_trace
from netsens.cli.trace_info import info_command
from netsens.engine import run_goal, run_goal_json, trace_to_goal
from netsens.errors import InputError, ProgramError
from netsens.live.mpi import implementation
from netsens.live.run import run_live
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
    anchor = out / ARCHIVE
    try:
        result = run_live(ranks, app=app, program=program, trace_dir=out, **live)
    except ProgramError as stopped:
        if not partial_records(out, ranks):
            raise
        # Every rank stopped by SIGTERM (a timeout) left its records: the archive of
        # the run up to there, for replay to say where it was stuck.
        merge(out, live.get("mpi", "openmpi"))
        raise ProgramError(f"{stopped}; its trace up to then is {anchor}") from None
    if not anchor.is_file():
        raise ProgramError(f"the run ended but rank 0 wrote no OTF2 archive in {out}")
    return anchor, result


def partial_records(out: Path, ranks: int, patience_s: float = 5.0) -> bool:
    """Whether the ranks of a stopped run left their records in ``out``: the launcher
    may return before its processes have written them, so wait a little for all."""
    deadline = time.monotonic() + patience_s
    while True:
        found = len(list(out.glob("traces.rank-*.partial")))
        if found == ranks or (found == 0 and not any(out.glob("*.partial.tmp"))):
            return found == ranks
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def merge(out: Path, mpi: str) -> None:
    """The archive of a stopped run from its ranks' partial records (netsens-trace-merge)."""
    tool = implementation(mpi).pmpi_library().parent / "netsens-trace-merge"
    proc = subprocess.run([str(tool), str(out)], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        why = proc.stderr.strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
        raise ProgramError(f"the stopped run's trace could not be written: {why[0]}")


def trace_command() -> click.Command:
    @click.command("trace", context_settings=CONTEXT)
    @click.argument("program", nargs=-1, type=click.UNPROCESSED, metavar="[-- PROGRAM ARGS...]")
    @click.option("--app", metavar="NAME", help="Suite application to trace (netsens apps).")
    @click.option("--ranks", type=int, metavar="P", help="Number of MPI processes.")
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
    @click.option(
        "--cpu-time/--no-cpu-time",
        default=None,
        help="Record each rank's thread CPU time at every call (replay charges it as "
        "compute when ranks share cores); it costs two system calls per MPI call.  "
        "[default: only with more ranks than this machine's cores]",
    )
    @click.option("--json", "as_json", is_flag=True, help="trace info: its description as JSON.")
    @repeat_option(
        "Record K runs of the --app application in one job (the recording paused "
        "between them): replay reports the median run, as live --repeat K does."
    )
    @mpi_options
    def trace(
        program: tuple[str, ...],
        app: str | None,
        ranks: int | None,
        size: str,
        out: str,
        cpu_time: bool | None,
        as_json: bool,
        repeat: int,
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
        otf2-print, Vampir and Pipit read the archive. A run stopped by --timeout (a
        deadlock) keeps its trace up to there; replay names the calls each rank was
        stuck in. MPI_Pcontrol(0) / MPI_Pcontrol(1) pause and resume the recording.
        The first run of an MPI job is the slow one (caches, connections); with
        --repeat K an application runs K times in the job, and replay reports the
        median run (a program that repeats its work pauses the recording between
        repetitions itself, and replay does the same):
          netsens trace --app mg --size tiny --ranks 4 --repeat 5 --out mg-trace
        Its GOAL form (collectives expanded), for LogGOPSim and LLAMP:
          netsens trace to-goal ring-trace/traces.otf2 ring.goal
        What a trace holds (this one's, Score-P's, liballprof's, DUMPI's): tracer, ranks, the
        time measured per rank, every MPI call with its count and whether replay
        models it:
          netsens trace info ring-trace/traces.otf2 [--json]
        """
        if program[:1] == ("info",) and app is None:
            if len(program) != 2:
                raise click.UsageError("usage: netsens trace info TRACE [--json]")
            info_command(program[1], as_json)
            return
        if program[:1] == ("to-goal",) and app is None:
            if len(program) != 3:
                raise click.UsageError("usage: netsens trace to-goal TRACE OUT.goal")
            nranks, ops = trace_to_goal(program[1], program[2])
            stdout_console().print(f"{program[2]}: {nranks} ranks, {ops:,} operations")
            return
        if ranks is None:
            raise click.UsageError("Missing option '--ranks'")
        if repeat > 1 and app is None:
            raise InputError(
                "--repeat: netsens repeats a suite application (--app); a program that "
                "runs its work K times pauses the recording between the runs itself "
                "(MPI_Pcontrol(0) ... MPI_Pcontrol(1)), and replay reports its median run"
            )
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
            trace_cpu_time=cpu_time,
            repeat=repeat,
        )
        runs = f"{repeat} runs, median run time" if repeat > 1 else "run time"
        stdout_console().print(
            f"{anchor}: {ranks} ranks, {runs} {format_time(result['makespan_ps'])}, "
            f"{result['messages']:,} messages"
        )

    return trace


def replay_command(platform_options: Any, overrides_from: Any) -> click.Command:
    """``netsens replay``, given the network flags of :mod:`netsens.cli.main`."""

    @click.command("replay", context_settings=CONTEXT)
    @click.argument("trace", metavar="TRACE")
    @click.option(
        "--platform",
        default="loggopsim",
        show_default=True,
        metavar="PRESET|FILE.toml",
        help="Platform preset name or TOML file (e.g. calibrate --live --save's).",
    )
    @platform_options
    @result_options("Seed of the platform's noise streams.")
    @click.option(
        "--collectives",
        metavar="COLL=ALGO,...",
        help="Other algorithms than MPICH's: bcast|reduce|gather|scatter=linear, "
        "allreduce=reduce-bcast, allgather=ring; non-blocking collectives progressed by "
        "a second CPU: nonblocking=thread.",
    )
    @click.option(
        "--compute",
        type=click.Choice(["cpu", "wall"]),
        default="cpu",
        show_default=True,
        help="Compute between calls: the ranks' thread CPU time recorded in the trace "
        "(wall time where it is not), or the wall time.",
    )
    @click.option(
        "--run",
        default="median",
        show_default=True,
        metavar="median|whole|N",
        help="Of a trace of several runs (trace --repeat K, or a program's own pauses "
        "of the recording): the median run (every run replayed), the archive whole, or "
        "run N (from 1).",
    )
    @click.option(
        "--served",
        metavar="auto|none|COMM,...",
        help="Communicators whose messages the program serves as they come (a server's "
        "requests, one-sided operations over messages): a receive on one that a test "
        "completes orders nothing after it. auto: those the trace shows (every message "
        "on it sent synchronously, every receive posted on a probe that found it and "
        "completed by a test), the default; none; or the OTF2 references otf2-print shows "
        "in <>, e.g. 1.",
    )
    @click.option(
        "--tracer-gap",
        metavar="TIME",
        help="The tracer's own cost per gap between two MPI calls, removed from the "
        "compute, in place of what the archive records (netsens's tracer measures it), "
        "e.g. 85ns; 0ps charges the gaps whole.",
    )
    @click.option(
        "--poll-runs",
        type=click.Choice(["wait", "work"]),
        default="wait",
        show_default=True,
        help="A run of polls (MPI_Test*, MPI_Iprobe) that found nothing and ended in new "
        "work (a send, a receive posted without a probe) rather than in what it polled "
        "for: wait leaves it out, as every unsuccessful poll; work charges its polls and "
        "the gaps between them as the rank's compute (a program that checks for messages "
        "before each send).",
    )
    @click.option(
        "--tracer-call",
        metavar="TIME",
        help="With --poll-runs work: the tracer's own cost inside each poll, left out of "
        "what is charged, e.g. 230ns (default 0ps).",
    )
    @o_from_trace_options
    def replay(
        trace: str,
        platform: str,
        seed: int,
        as_json: bool,
        matrix: bool,
        collectives: str | None,
        compute: str,
        run: str,
        served: str | None,
        tracer_gap: str | None,
        poll_runs: str,
        tracer_call: str | None,
        o_from_trace: bool,
        o_injected: str | None,
        **params: Any,
    ) -> None:
        """Replay an MPI run's trace under any network.

        \b
        TRACE: an OTF2 archive's .otf2 file (netsens trace's, Score-P's), a
        liballprof trace's directory or a DUMPI trace's .meta file
        (docs/guides/traces.md).
        The trace's sends and receives (wildcards as they matched), non-blocking
        operations and their waits, collectives expanded into messages, and the CPU
        time between MPI calls (scaled by the platform's cpu_speed):
          netsens replay radb-trace/traces.otf2 --platform machine.toml
          netsens replay radb-trace/traces.otf2 --platform machine.toml --o 50us
        With more ranks than cores, the platform's cores_per_node (calibrate --live
        --save records it) makes ranks on one core compute in turn. A rank that polls
        (MPI_Test, MPI_Iprobe) and finds nothing is waiting, not computing. A trace of
        several runs reports its median run (--run picks another). The tracer's own
        cost between calls, recorded in netsens's archives, is not charged as compute.
        --poll-runs work charges polls that found nothing and were followed by new
        work, not by what they polled for, as compute.
        --o-from-trace replays at the o the traced run paid per message (measured
        from its calls), --o-injected 50us on top of it.
        The result has the schema of netsens run.
        """
        overrides = overrides_from(params)
        measured = None
        if o_from_trace:
            overrides, measured = o_paid_override(trace, platform, overrides, o_injected)
        elif o_injected is not None:
            raise InputError("--o-injected adds to the o of --o-from-trace: give both")
        args = (trace, platform, overrides, seed)
        chosen = {
            "collectives": collectives,
            "compute": compute,
            "run": run,
            "served": served,
            "tracer_gap": tracer_gap,
            "poll_runs": poll_runs,
            "tracer_call": tracer_call,
        }
        if as_json:
            text = run_goal_json(*args, matrix, **chosen)
            result = json.loads(text)
            warn_trace(result)
            if measured is not None:
                result["workload"]["o_from_trace"] = measured
                text = json.dumps(result)
            click.echo(text)
        else:
            if measured is not None:
                click.echo(describe(measured))
            print_run(run_goal(*args, matrix=False, **chosen))

    return replay


# The commands `netsens trace` and `netsens replay` load (see netsens.cli.main.COMMANDS).
trace = trace_command()
replay = replay_command(platform_options, overrides_from)
