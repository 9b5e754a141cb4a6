"""Tabular panes.

Modules
-------
ap_table
    The per-class AP table.
messages
    The message area (``MessagesPanel``).
ap_cells
    The AP table's cells beside its model (``ap_table.ApTableModel``).
protocol_views
    The summary numbers and image captions of the protocols beside VOC.
confusion
    The confusion matrix.
compare
    Images where result set A is right and B wrong.
"""
