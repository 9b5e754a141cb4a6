"""Shared widgets and styles of the panes and the window; they import ``gui.models`` at most,
never a pane or the window.

Modules
-------
rows_table
    ``RowsTable`` over keyed rows (``HeldRowsModel``, ``RowsModel``) and ``make_compact``, the
    look of every table.
verdict_style
    The verdict palette in Qt: colours, pen styles, glyphs and names, per verdict and per
    detection row (``row_style``).
plot_theme
    Plots of the panes.
rotated_header
    ``RotatedHeader``.
pane_keys
    Keys a pane handles itself rather than through one of the window's actions.
"""
