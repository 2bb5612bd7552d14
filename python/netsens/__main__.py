"""``python -m netsens`` runs the command line, exactly like the ``netsens`` script."""

from netsens.cli import main

raise SystemExit(main())
