"""The Qt application (PySide6 + pyqtgraph): thin views over ``core`` and ``evaluation``.

Subpackages, each importing only those before it (``tests/test_architecture.py`` checks it):

models
    ``AppState`` and its parts, display settings, workers, debouncing, what workers run.
widgets
    Shared widgets and styles: keyed-row tables, the verdict palette, the plot theme, rotated
    headers, the keys panes handle.
panes
    The image view and its overlays, PR curve, tables, side panel, confusion, compare, browser.
window
    The application, the main window with its actions and menus, open and export.

Importing it makes pyqtgraph's mirror of the Qt modules lazy (``qt_mirror``: ~100 ms less
start-up where pyqtgraph still copies them whole); ``startup.begin`` pauses automatic garbage
collection for the window's imports in a fresh process (``vocviewer open``).
"""

from vocviewer.gui import qt_mirror

qt_mirror.install()
