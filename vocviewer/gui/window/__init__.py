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
file_names
    What the window's dialogs, tool tips, drop message and help call the files it opens, read
    from the registry's families (``families.file_types``).
help_dialogs
    Help ▸ Keyboard shortcuts, Getting started and About.
help_text
    The text of Help ▸ Getting started.
palette_actions
    View ▸ Palette.
session_actions
    File ▸ Open session… and Save session….
settings_store
    ``WindowSettings``.
svg_raster
    SVG figures (``evaluation.figure_svg``, ``evaluation.render.analyze_figures``) rendered to
    PNG or PDF with Qt's SVG renderer, for ``vocviewer analyze --format png|pdf`` (the SVG stays
    the source).
theme
    Themes.
toolbar_rows
    ``ToolbarRows``.
walk_actions
    The window's detection walk (``models.walk.DetectionWalk``).
"""
