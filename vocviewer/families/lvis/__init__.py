"""LVIS v1: COCO's reader and evaluator with the federated rules (``LVISEval``), analyses, the
window's view and the ``Benchmark``.

Modules
-------
analyze
    ``vocviewer analyze`` on LVIS boxes and masks (``--task bbox|segm``), under LVIS's federated
    rules.
analyze_curves
    COCO's ``analyze()`` under LVIS's rules.
benchmark
    LVIS.
bootstrap
    Bootstrap over images for LVIS.
class_views
    COCO's ``coco.class_views`` under its old name.
columns
    LVIS-specific columns.
declared
    What the CLI and the registry know before the family is imported (name, tasks, options,
    file hints, a cheap ``sniff``); ``benchmark`` inherits it.
evaluate
    LVIS evaluation (the ``lvis`` package's ``LVISEval``.
prepare
    COCO's grouping and ranking of what LVIS evaluates, from one score sort.
ranked
    Each category's evidence in rank order, for many categories at once.
reader
    LVIS v1 annotation JSON → ``Dataset``, LVIS results JSON → ``ResultSet``.
reader_kernel
    LVIS annotation JSON → ``Dataset`` through the compiled scanner (plain files only).
reconcile
    ``vocviewer reconcile`` on LVIS: LVIS AP50 -> COCO AP50 -> VOC2012 -> VOC2007, rule by rule.
summary
    ``LVISEval.summarize``'s 13 numbers.
tide
    TIDE's error breakdown on LVIS, from ``LVISEval``'s own verdicts at IoU 0.5 (``lvis.py``).
view
    LVIS in the window.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes(
    "an LVIS annotation JSON",
    annotation_file=True,
    dataset_patterns=("*.json",),
    result_patterns=("*.json",),
)
