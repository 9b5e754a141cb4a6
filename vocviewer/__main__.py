"""``python -m vocviewer`` runs the command line."""

from vocviewer.cli import main

raise SystemExit(main())
