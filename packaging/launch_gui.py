"""The frozen app's entry script: what the ``vocviewer-gui`` launcher runs (``cli.gui_main``).

It lives outside the package so that ``vocviewer.gui`` never imports ``vocviewer.cli``.
"""

import sys

from vocviewer.cli import gui_main

if __name__ == "__main__":
    sys.exit(gui_main())
