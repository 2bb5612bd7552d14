"""The ``netsens`` command line.

``netsens run`` replays a GOAL schedule (``--goal``) or runs one of the rank programs
(``--app``, listed by ``netsens apps``) on a platform and prints where the time went
(or, with ``--json``, the whole result as one JSON object); ``netsens calibrate``
recovers a platform's parameters with the seeds' LogP microbenchmarks; ``netsens
platform list`` and ``netsens platform show`` describe the platforms; ``netsens sweep``
and ``netsens results`` run a study and show it (:mod:`netsens.cli.study`). The LogGOPS
parameters are flags spelled as LogGOPSim spells them and case-sensitive: ``--g`` (gap
per message) and ``--G`` (gap per byte) are different options (:mod:`netsens.cli.options`).

Each command lives in its own module, imported only when that command runs (``COMMANDS``
below), so a command starts with what it uses and no more; ``netsens --help`` lists the
commands from the same table without importing any.

Every user error (a bad value, a missing file, a schedule that cannot finish, a usage
mistake) ends as exactly one line on stderr, ``netsens: error: ...``, with exit code 2;
Ctrl-C ends with exit code 130. Neither prints a traceback.
"""

import importlib
import os
import sys
from collections.abc import Sequence

import click

from netsens.cli.options import CONTEXT, EPILOG
from netsens.errors import NetsensError

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130

# Command name: ("module:attribute" of the command, its one-line help for `netsens
# --help`). The help is the first sentence of the command's own help; a test holds
# them equal.
COMMANDS = {
    "ace": (
        "netsens.cli.ace:ace_command",
        "Emulate applications and compare their predicted and actual run times.",
    ),
    "apps": (
        "netsens.cli.platform:apps_command",
        "List the rank programs for `netsens run --app` and their sizes.",
    ),
    "calibrate": (
        "netsens.cli.calibrate:calibrate",
        "Recover L, o, g, G, O and S with the seeds' LogP microbenchmarks.",
    ),
    "compare": (
        "netsens.cli.compare:compare_command",
        "Which network for my program: its run time on each network and what limits it.",
    ),
    "explain": (
        "netsens.cli.explain:explain_command",
        "Say what each workload is most sensitive to and how well the models explain it.",
    ),
    "goal": (
        "netsens.cli.goal:goal_command",
        "GOAL schedules: compile one for repeated runs, or export one to SimGrid.",
    ),
    "live": ("netsens.cli.live:live", "Run a program on real MPI with o, g, L and G injected."),
    "platform": (
        "netsens.cli.platform:platform_group",
        "List the platform presets or show one platform with units.",
    ),
    "profile": (
        "netsens.cli.profile:profile_command",
        "How a program communicates (Martin's Table 3.2 / 4.1 columns).",
    ),
    "replay": ("netsens.cli.trace:replay", "Replay an MPI run's trace under any network."),
    "report": (
        "netsens.cli.report:report",
        "Write a study's report: one HTML page and its figures as PNG and PDF.",
    ),
    "results": (
        "netsens.cli.study:results_command",
        "Show a study's stored results: makespan and slowdown per point.",
    ),
    "run": (
        "netsens.cli.run:run",
        "Replay a GOAL schedule or run a rank program; report where the time went.",
    ),
    "sensitivity": (
        "netsens.cli.sensitivity:sensitivity_command",
        "Critical path, exact slopes and tolerance of every parameter, from one run.",
    ),
    "sweep": (
        "netsens.cli.study:sweep_command",
        "Run every point of a study that is not stored yet, on all cores.",
    ),
    "trace": ("netsens.cli.trace:trace", "Record a real MPI run as an OTF2 archive."),
    "validate": (
        "netsens.cli.live:validate_command",
        "The same sweep simulated and live, both curves in one figure.",
    ),
}


def load_command(name: str) -> click.Command:
    """The command ``name`` of ``COMMANDS``, its module imported."""
    module, attribute = COMMANDS[name][0].split(":")
    return getattr(importlib.import_module(module), attribute)


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (click's documented lazy
    loading: ``list_commands`` and ``get_command`` read ``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Stand-ins that carry only the one-line help: click lays them out (and
        # shortens the help to the width) as it would the commands themselves.
        stand_ins = [click.Command(name, help=text) for name, (_, text) in COMMANDS.items()]
        click.Group(commands=stand_ins).format_commands(ctx, formatter)


@click.group(cls=LazyGroup, context_settings=CONTEXT, epilog=EPILOG)
# The version is read from the package metadata only when -V asks for it.
@click.version_option(None, "-V", "--version", prog_name="netsens", package_name="netsens")
def cli() -> None:
    """Simulate how a parallel program responds to its network.

    netsens replays a program's communication in virtual time under the LogGOPS
    model: latency L, CPU overhead o per message, gap g between messages, gap G
    per byte, CPU overhead O per byte, and the eager/rendezvous threshold S. Dial
    them one at a time on a platform (a preset or a TOML file) and see where the
    time goes. Runs are deterministic: the same inputs and seed give the same result.
    """


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _fail(message: str) -> int:
    click.echo(f"netsens: error: {_one_line(message)}", err=True)
    return EXIT_USER_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        with cli.make_context("netsens", args) as ctx:
            cli.invoke(ctx)
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help())
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.UsageError as e:
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx else ""
        return _fail(e.format_message() + hint)
    except click.ClickException as e:
        return _fail(e.format_message())
    except NetsensError as e:
        return _fail(str(e))
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as other tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:
        return _fail(f"{e.strerror or e}: {e.filename}" if e.filename else str(e))
    except KeyboardInterrupt:
        click.echo("netsens: interrupted", err=True)
        return EXIT_INTERRUPTED
    return 0
