"""The image pane and what is drawn over it.

Modules
-------
view
    The current image, large, with its ground truth and detections drawn over it.
overlays, extra_overlays, overlay_scene, drawable, layers
    The items drawn over the image (boxes, labels, keypoints, regions, parts, pixel layers).
box_batch
    One graphics item that paints many box outlines.
label_layout
    Text tags over an image and where they go.
shown_overlays
    The overlay items of the image on screen, kept up to date cheaply.
"""
