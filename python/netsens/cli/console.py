"""Printing to stdout: rich's console, and the run's tables without it when that gives
the same text (:mod:`netsens.cli.text_table`)."""

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

# Piped or captured output has no terminal width; rich would then wrap tables at 80
# columns and split values from their units. A file or pipe gets room for the widest.
PIPE_WIDTH = 160
# Settings that change what rich writes (terminal or not, its width, its styles): with
# any of them set, rich prints.
RICH_ENVIRONMENT = ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS")


def stdout_console() -> "Console":
    """A console on stdout: the terminal's width, or PIPE_WIDTH when not a terminal."""
    from rich.console import Console  # rich loads when a command prints, not before

    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=PIPE_WIDTH)
    return console


def _page() -> tuple[int, bool] | None:
    """stdout's width and whether it is a terminal (takes SGR styles) as rich would
    find them, or ``None`` when only rich can tell."""
    out = sys.stdout
    if sys.platform == "win32" or any(name in os.environ for name in RICH_ENVIRONMENT):
        return None
    if not (out.encoding or "").lower().replace("-", "").startswith("utf"):
        return None  # rich would draw the box in ASCII
    if not out.isatty():
        return PIPE_WIDTH, False
    if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        return None
    for fd in (0, 1, 2):  # rich asks stdin first
        try:
            return os.get_terminal_size(fd).columns or 80, True
        except (OSError, ValueError):
            continue
    return 80, True


def print_blocks(blocks: Sequence[Any]) -> None:
    """Print TextLine and TextTable blocks as ``stdout_console().print`` prints each."""
    from netsens.cli.text_table import render_blocks

    page = _page()
    text = render_blocks(list(blocks), *page) if page else None
    if text is not None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    console = stdout_console()
    for block in blocks:
        console.print(block)
