"""The application and its window: the panes put together, with actions, menus, open and export.

Modules
-------
app
    ``QApplication`` setup and ``run_gui`` (used by the CLI; can render a screenshot and exit).
main_window
    ``MainWindow``: the layout of the panes, the status bar's contents, state to widgets.
actions
    Actions, toolbar, menus and status bar, and the commands they trigger (a mixin).
protocol_controls
    Captions, the summary tab and the IoU / area / segmentation controls (a mixin).
open_actions, recent
    Open dialogs, drag and drop, File ▸ Open Recent.
export_actions, export, export_run
    File ▸ Export, the writers behind it, and the headless ``vocviewer export``.
"""
