"""What the window shows, without widgets: state, settings and the background work behind them.

Modules
-------
state
    ``AppState``: what is open and what is selected, composed of the models below.
evaluation
    ``EvaluationModel``: every result set evaluated through its benchmark family at the
    user's choice (IoU, area, image set) — one path for every family.
result_evaluations
    ``ResultEvaluations``: one result set's evaluation as the window stores it.
ap_n
    Each class's normalised AP of the views shown, kept per evaluation.
curve_paths
    Each evaluation's PR polyline as the All-classes plot draws it, built in a worker.
warm_memory
    Memory a re-derive at a new IoU threshold will fill, faulted in ahead (kept by the heap).
display_settings
    Score threshold, view mode and drawing toggles.
image_filter
    Which images the browser lists, in which order (pure numpy).
listed_images
    The filter, the listed images and the boxes kept (``AppState.kept``, ``kept_images``).
worker
    The one background-worker pattern (``Worker``, ``Jobs``: latest wins, stale results dropped).
debounce
    Coalescing bursts of refresh requests.
tasks
    What loading workers run (through the dataset's family) and the indexes they build.
helper_process
    One helper process for long parses that would hold the interpreter lock (no JSON kernel).
open_ahead
    A JSON dataset, its results and their evaluation read in a thread before the window exists.
analysis_tasks
    The Analysis tab's background work.
beyond_source
    The analyses beyond AP of the current result set, from the window's evidence.
thumbnails
    Thumbnails of a dataset's images.
crops
    Crops of boxes for the patches view (a ``ThumbnailLoader`` keyed by patch).
patches
    ``PatchListModel``: a patch table as a list model, with each patch's words and tag target.
walk
    ``DetectionWalk``.
tags
    ``TagsModel``: the tags and notes of the open dataset.
saved_views
    ``SavedViews``: the window's named filters.
"""
