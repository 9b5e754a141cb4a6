"""The panes: each derives what it shows from ``gui.models`` (with the shared ``gui.widgets``) and
never imports ``gui.window``.

Modules
-------
image_view
    The current image, large, with its ground truth and detections drawn over it.
overlays, extra_overlays, overlay_scene, drawable, layers
    The items drawn over the image (boxes, labels, keypoints, regions, parts, pixel layers).
pr_pane
    The precision/recall curve of the selected class; a click selects that detection.
tables
    The per-class AP table and the message area.
side_panel
    The current image's detections and objects, the ranks around a PR point, the inspector.
confusion_pane, compare
    The confusion matrix; images where result set A is right and B wrong.
image_browser
    The image list with its set, class, flag and error filters.
suspects_pane
    The label-error queue, walkable and taggable.
protocol_views
    The summary numbers and image captions of the protocols beside VOC.
analysis_bootstrap
    ``BootstrapRow``.
analysis_characteristics
    ``CharacteristicsChart``.
analysis_compare
    ``CompareView``.
analysis_curves
    ``CurvesChart``.
analysis_members
    ``MemberList``.
analysis_operating
    ``OperatingChart``: P / R / F1 against the score threshold; a click sets the threshold.
analysis_reliability
    ``ReliabilityChart``: the reliability diagram (D-ECE); a bin lists its detections.
analysis_pane
    ``AnalysisPane``.
ap_cells
    The AP table's cells beside its model (``tables.ApTableModel``).
box_batch
    One graphics item that paints many box outlines.
label_layout
    Text tags over an image and where they go.
pane_sizes
    Minimum sizes that keep the panes usable in a small window (1366 x 768, the default 1400 x
    900).
pr_band
    ``PRBand``.
pr_overview
    The All-classes PR plot.
shown_overlays
    The overlay items of the image on screen, kept up to date cheaply.
thumbnail_grid
    ``ThumbnailGrid``.
"""
