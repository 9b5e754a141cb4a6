"""The shared model: numpy and stdlib only; no Qt, no file formats, no family.

Modules
-------
arrays
    Small helpers for the read-only columnar arrays of the model.
boxes
    Box conventions and vectorised overlap.
dataset
    ``Dataset``.
family_data
    The typed records a family attaches to a dataset or result set, found by type.
errors
    Errors for bad input.
masks
    COCO run-length encoded (RLE) masks, numpy only.
mask_iou
    Mask IoU of RLEs as pycocotools' ``rleIou`` (its box filter, crowd, sizes, early stop).
mask_boundary
    Mask boundaries for Boundary IoU (boundary-iou-api's ``mask_to_boundary``) on RLE masks.
palette
    Colour maps.
ranking
    The one ranking rule shared by every protocol.
result_sets
    Result sets from ``--results`` paths, as ``open``, ``eval``, ``analyze`` and ``export`` all
    see them.
results
    ``ResultSet``.
rle_columns
    Many COCO RLE masks at once, as columns.
subset
    A selection of images as a dataset of its own (``Subset``), result sets restricted to it.
tags
    Tags and notes on images, objects and detections, with the fixes they ask for.
view_filter
    ``ViewFilter``: the view's filter as one record of plain values, with its JSON form.
"""
