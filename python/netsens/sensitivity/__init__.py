"""Every sensitivity from one run: the workload runs once with its execution graph
recorded beside the engine (``netsens_core::analysis``), and from that record come
its critical path and what it is made of, the exact slopes ∂T/∂x of every network
parameter (up and down where paths tie), each parameter's exact curve T(x) (or T
at values asked alone) and its tolerance: the largest increase Δx with
T ≤ (1 + ε)·T0.

:func:`analyze` is the API (``netsens sensitivity`` prints it, :mod:`.timeline` draws
the run); docs/guides/sensitivity.md explains the method and its limits.
"""

from netsens.sensitivity.analyze import EPSILONS, analyze, parse_at, parse_curve, parse_epsilon

__all__ = ["EPSILONS", "analyze", "parse_at", "parse_curve", "parse_epsilon"]
