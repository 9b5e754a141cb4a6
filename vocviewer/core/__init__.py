"""The shared model: numpy and stdlib only; no Qt, no file formats.

Modules
-------
dataset
    ``Dataset``: images, classes, image sets and ground truth as columnar numpy arrays.
results
    ``ResultSet``: detections and classification scores as columnar numpy arrays, with provenance
    (file and line) for every row.
boxes
    Box conventions and vectorised pairwise overlap; the VOC ``+1`` rule is a named parameter.
ranking
    The one stable descending sort every protocol ranks with.
masks
    COCO run-length encoded (RLE) masks: decode, encode, area, IoU.
palette
    The PASCAL VOC label colour map.
person_results
    Person layouts and action scores, columnar.
coco, ilsvrc, visdrone, lvis
    Each benchmark's extra columns beside ``Dataset`` / ``ResultSet``.
errors
    ``FormatError`` (bad input, naming file and line or element) and ``OutputError``.
arrays
    ``frozen``: read-only column copies.
"""
