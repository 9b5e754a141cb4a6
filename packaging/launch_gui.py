"""The frozen app's entry script.

``vocviewer [DATASET [RESULTS ...]]`` opens the window as ``vocviewer-gui`` does
(``cli.gui_main``); ``vocviewer COMMAND ...`` with a ``vocviewer`` command (``demo``, ``open``,
``eval``, ``export``) or ``--version`` runs that (``cli.main``). It lives outside the package so
that ``vocviewer.gui`` never imports ``vocviewer.cli``.
"""

import multiprocessing
import sys

COMMANDS = (
    "demo",
    "open",
    "eval",
    "analyze",
    "export",
    "convert",
    "subset",
    "suspects",
    "reconcile",
    "--version",
)

if __name__ == "__main__":
    multiprocessing.freeze_support()  # the helper process (spawned) re-runs this executable
    from vocviewer.cli import gui_main, main

    args = sys.argv[1:]
    sys.exit(main(args) if args[:1] and args[0] in COMMANDS else gui_main(args))
