"""The panes: each derives what it shows from ``gui.models`` and never imports ``gui.window``.

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
protocol_views
    The summary numbers and image captions of the protocols beside VOC.
"""
