"""The Qt application (PySide6 + pyqtgraph): thin views over ``core`` and ``evaluation``.

Modules
-------
app
    ``QApplication`` setup, ``main`` (the ``vocviewer-gui`` script) and ``run_gui`` (used by the
    CLI; can render a screenshot and exit).
state
    ``AppState``: the one observable holder of the open dataset, result sets, evaluations and the
    selection; every view connects to its ``*_changed`` signals.
worker
    The one background-worker pattern (``Worker`` + ``WorkerSignals``, superqt-style names) and
    ``Jobs`` (latest wins, generation ids drop stale results).
tasks
    What workers run (load, evaluate) and the GUI-side indexes they build.
main_window
    ``MainWindow``: layout, menus, toolbar, status bar, messages panel.
image_view, overlays
    The image with ground truth and detections drawn over it, coloured by verdict.
pr_pane
    The precision/recall curve of the selected class; a click selects that detection.
tables
    Image browser, per-class AP table, messages list.
"""
