"""The panes: each derives what it shows from ``gui.models`` (with the shared ``gui.widgets``) and
never imports ``gui.window``. One subpackage per area of the window.

Modules
-------
image
    The current image, large, and everything drawn over it.
pr
    The precision/recall curves: the selected class's, the All-classes plot, the ranks.
tables
    The AP table, the summaries beside VOC, the confusion matrix and the A-versus-B list.
browse
    The image list, the thumbnail grid, the label-error queue and the side panel.
analysis
    The Analysis tab: curves, characteristics, bootstrap, comparison, operating point,
    reliability.
pane_sizes
    Minimum sizes that keep the panes usable in a small window (1366 x 768, the default 1400 x
    900).
"""
