"""``python -m vocviewer`` runs the command line."""

from vocviewer.cli import main

if (
    __name__ == "__main__"
):  # helper processes (``gui.models.helper_process``) import this module too
    raise SystemExit(main())
