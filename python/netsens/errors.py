"""The exceptions netsens raises, defined by the native engine and re-exported here.

``NetsensError`` is the base class. ``InputError`` means the input is wrong: a value
without a unit, an unknown preset, a malformed platform or GOAL file. ``DeadlockError``
means the simulated program cannot finish; its message lists the stuck ranks.
``ProgramError`` means a rank program failed, most often because it found its answer
wrong; its message names the rank and why. Every message is a single line that names
what was wrong and where.
"""

from netsens._core import DeadlockError, InputError, NetsensError, ProgramError

__all__ = ["DeadlockError", "InputError", "NetsensError", "ProgramError"]
