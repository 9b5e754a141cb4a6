"""The application and its window: the panes composed with controllers that own the actions.

Modules
-------
app
    ``QApplication`` setup and ``run_gui`` (used by the CLI; can render a screenshot and exit).
show
    ``vocviewer.show``: the window from a script or a notebook, and the ``WindowHandle`` that
    reads what it shows.
main_window
    ``MainWindow``: builds the panes and the controllers, lays them out in splitters, toolbars
    and menus, and wires the panes to each other; thin delegations for the commands callers use.
actions
    ``make_action`` and ``DisplayControls``: what the image shows and where the user is (View
    menu, the toolbar's result set, threshold, toggles and view mode).
open_actions, recent
    ``OpenController``: open dialogs, the demo, drops, File ▸ Open Recent.
export_actions, export, export_run
    ``ExportController`` (File ▸ Export), the writers behind it, and the headless
    ``vocviewer export``.
subset_actions
    ``SubsetExportController``: File ▸ Export the listed images as a dataset… (on a worker).
session_actions
    ``SessionController``: File ▸ Open session… and Save session….
threshold_actions
    ``ThresholdController``: View ▸ Load per-class thresholds… and back to one threshold.
protocol_controls
    ``ProtocolControls``: the toolbar's IoU, area and segmentation controls.
walk_actions
    ``WalkController``: the Walk menu over the detection walk (``models.walk.DetectionWalk``).
curation
    ``CurationController``: the Tags menu (tag keys, notes, Export tags) and the Suspects tab.
palette_actions
    ``PaletteMenu``: View ▸ Palette.
status_line
    ``StatusLine``: the status bar's line, notes, progress and messages button.
file_names
    What the window's dialogs, tool tips, drop message and help call the files it opens, read
    from the registry's families (``families.registry.file_types``).
help_dialogs
    ``HelpController`` and Help ▸ Keyboard shortcuts, Getting started and About.
help_text
    The text of Help ▸ Getting started.
settings_store
    ``WindowSettings`` and ``LastFolders``.
svg_raster
    SVG figures (``evaluation.figure_svg``, ``evaluation.render.analyze_figures``) rendered to
    PNG or PDF with Qt's SVG renderer, for ``vocviewer analyze --format png|pdf`` (the SVG stays
    the source).
theme
    ``ThemeControl``: View ▸ Theme.
toolbar_rows
    ``ToolbarRows``.
"""
