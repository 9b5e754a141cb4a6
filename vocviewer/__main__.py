"""``python -m vocviewer`` runs the command line."""

from vocviewer.cli import main

# helper processes (``gui.models.helper_process``) import this module too: only a run executes main
if __name__ == "__main__":
    raise SystemExit(main())
