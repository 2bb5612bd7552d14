"""The ``netsens`` command line: the group and its entry point (:mod:`netsens.cli.main.main`),
one module per command, the options they share, and printing.
"""
