"""Panes for moving through the images.

Modules
-------
image_browser
    The image list with its set, class, flag and error filters.
filter_panel
    ``FilterPanel``: the view's filter field by field, its counts and the saved views.
thumbnail_grid
    ``ThumbnailGrid``: the images as a grid of thumbnails.
patches
    ``PatchesPane``: crops of detections of a verdict, missed objects or objects of a class.
cells
    What the grid and the patches share: cell sizes, page keys, the tag flag.
image_area
    ``ImageArea``: the image view, or the grid or the patches in its place.
suspects
    The label-error queue, walkable and taggable.
side_panel
    The current image's detections and objects, the ranks around a PR point, the inspector.
"""
