"""``python -m netsens`` runs the command line, exactly like the ``netsens`` script."""

from netsens.cli.main import main

if __name__ == "__main__":  # not when a spawned worker process re-imports the main module
    raise SystemExit(main())
