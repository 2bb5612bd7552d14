"""Live mode: real MPI programs under a dialled network (the PMPI library injects o, g, L,
G), the MPI implementations and their launch, calibration on real MPI, live results, and
``netsens validate``.
"""
