"""Open Images detection (V6/V7, the challenge protocol): the folder of released CSVs and the
hierarchy, predictions, the challenge evaluation, the window's view and the ``Benchmark``.

Modules
-------
benchmark
    Open Images: ``vocviewer eval FOLDER --results predictions.csv``.
columns
    Open Images extras: normalised boxes as written, group-of flags, the expansion.
csv_rows
    Located CSV reading (header by name, ``FormatError`` with file and line).
declared
    What the CLI and the registry know before the family is imported (name, tasks, options,
    file hints, a cheap ``sniff``); ``benchmark`` inherits it.
evaluate
    The challenge evaluation (PROTOCOLS.md §13), with each detection's verdict and reason.
hierarchy
    The class hierarchy JSON: ancestors (boxes, positive labels) and descendants (negatives).
reader
    The annotation folder → ``core.Dataset``.
results_reader
    Predictions (``ImageID,LabelName,Score,XMin,XMax,YMin,YMax`` rows or the challenge's
    ``ImageID,PredictionString``) → ``core.ResultSet``.
view
    Open Images in the window.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes("an Open Images folder", result_patterns=("*.csv",))
