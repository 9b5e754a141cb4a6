"""COCO: annotation and results JSON, ``COCOeval`` bbox / segm / keypoints exactly, ``analyze()``,
the window's view and the ``Benchmark``. LVIS and ``vocviewer.cocoapi`` build on these modules.

Modules
-------
accumulate
    COCOeval's ``accumulate`` for one category.
analyze
    ``vocviewer analyze`` on COCO boxes and masks (``--task bbox|segm``).
analyze_curves
    COCO's ``analyze()``.
benchmark
    COCO.
bootstrap
    Bootstrap over images for COCO boxes and masks.
class_views
    ``view.coco_class`` for a run of categories at once (COCO's and LVIS's views).
chosen_params
    COCOeval parameters the user chooses (``--max-dets``, ``--area-ranges``, ``--iou-thresholds``).
columns
    COCO-specific columns.
declared
    What the CLI and the registry know before the family is imported (name, tasks, options,
    file hints, a cheap ``sniff``); ``benchmark`` inherits it.
evaluate
    COCO detection evaluation (pycocotools ``COCOeval``.
lazy_masks
    The ground truth's RLE masks, rasterised when first read (a row alone, or all at once).
match_kernel
    COCOeval's matching and accumulation on the compiled kernel (``vocviewer/kernel/_match.c``).
matching
    COCOeval's greedy matching, vectorised over images, area ranges and IoU thresholds.
params
    COCOeval's ``Params`` as a frozen dataclass.
polygon_sets
    Objects' list segmentations rasterised into RLE masks in one batch.
prepare
    COCOeval's ``_prepare``.
reader
    COCO annotation JSON (instances, person_keypoints, captions) → ``Dataset``.
reader_kernel
    COCO annotation JSON → ``Dataset`` through the compiled scanner (plain files only).
reconcile
    ``vocviewer reconcile`` on COCO data: the detections as ``protocol_rules.Columns``.
results_bulk
    Bulk paths of ``coco_results``.
results_entries
    A results list read entry by entry (each field checked), and the ``ResultSet`` built.
results_fast
    Box results JSON parsed straight into columns by ``msgspec``, chunk by chunk.
results_kernel
    COCO results JSON → columns through the compiled scanner (plain files only).
results_reader
    COCO results JSON (bbox / segm / keypoints) → ``ResultSet``, with ``loadRes``' rules.
rle_strings
    A results file's RLE masks kept as their compressed strings, decoded when read.
schema
    Schema checks for COCO annotation and results JSON.
similarity
    Similarity of (detection, ground truth) pairs for COCOeval.
summarize
    COCOeval's ``summarize()`` numbers and printed lines.
tide
    TIDE's error breakdown on COCO boxes and masks, as ``tidecv``'s ``TIDE().evaluate(gt, preds,
    mode=TIDE.BOX)`` (or ``mode=TIDE.MASK``) on ``datasets.COCO`` / ``datasets.COCOResult``
    (definitions.
view
    COCO in the window.
write_coco
    ``vocviewer convert --to coco``: a COCO file laid out as pycocotools' folder.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes(
    "a COCO annotation JSON",
    annotation_file=True,
    dataset_patterns=("*.json",),
    result_patterns=("*.json",),
)
