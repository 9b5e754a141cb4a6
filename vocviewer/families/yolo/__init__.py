"""YOLO (Ultralytics): a dataset YAML or a bare ``images/`` + ``labels/`` folder, evaluated by
COCO's protocol exactly (its document read by COCO's reader, evaluated by COCO's evaluator) and,
as a second column, by the Ultralytics validator's convention.

Modules
-------
benchmark
    YOLO.
coco_names
    COCO's 80 classes and their 91-id numbering.
conventions
    The Ultralytics column beside COCO's, and why the two differ on the data at hand.
convert
    ``vocviewer convert`` between COCO and YOLO (ground truth and results).
declared
    What the CLI and the registry know before the family is imported (name, tasks, options,
    file hints, a cheap ``sniff``); ``benchmark`` inherits it.
labels
    Label and prediction lines → rows; the classic-mistake checks.
reconcile
    ``vocviewer reconcile``: Ultralytics' mAP50 -> COCO AP50 -> VOC2012 -> VOC2007.
layout
    Where a split's images and labels are (YAML, list files, folders).
reader
    A YOLO split → its COCO document → ``Dataset``.
results
    Prediction label folders and ``predictions.json`` → ``ResultSet``.
ultralytics_rules
    The validator's matching and AP, from its documented behaviour.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes(
    "a YOLO dataset YAML",
    annotation_file=True,
    dataset_patterns=("*.yaml", "*.yml"),
    result_patterns=("*.json",),
    results_folder="a folder of YOLO prediction .txt files",
)
