"""The rich console the commands print their tables to."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

# Piped or captured output has no terminal width; rich would then wrap tables at 80
# columns and split values from their units. A file or pipe gets room for the widest.
PIPE_WIDTH = 160


def stdout_console() -> "Console":
    """A console on stdout: the terminal's width, or PIPE_WIDTH when not a terminal."""
    from rich.console import Console  # rich loads when a command prints, not before

    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=PIPE_WIDTH)
    return console
