"""ACE, Evans and Hood's Application Communication Emulator: the emulator's entry point
(:func:`netsens.ace`), on real MPI, and ACE studies.
"""
