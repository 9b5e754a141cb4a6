"""PASCAL VOC: VOCdevkit reading, det / cls / seg / layout / action evaluation, analyses, the
window's view and the ``Benchmark``.

Modules
-------
action_evaluate
    PASCAL VOC action classification (``VOCevalaction``), exactly.
action_reader
    VOC action results files (``<comp>_action_<set>_<action>.txt``, VOC2011 devkit manual §7.3).
analyze
    ``vocviewer analyze`` on a VOCdevkit (``--task det|cls``).
analyze_curves
    COCO ``analyze()``'s nested PR curves on PASCAL VOC detection, on VOC's own matching.
annotations
    VOC annotation XML (``Annotations/<id>.xml``) → columnar objects and parts.
benchmark
    PASCAL VOC.
bootstrap
    Bootstrap evidence from a VOC evaluation (``voc.py``).
declared
    What the CLI and the registry know before the family is imported (name, tasks, options,
    file hints, a cheap ``sniff``); ``benchmark`` inherits it.
evaluate
    PASCAL VOC detection (``VOCevaldet``) and classification (``VOCevalcls``), exactly.
image_sets
    VOC image-set files (``ImageSets/<task>/*.txt``) → image sets, class labels and person sets.
layout_evaluate
    PASCAL VOC person layout (``VOCevallayout_pr``, VOC2010+), exactly.
layout_reader
    VOC person-layout results XML (``<comp>_layout_<set>.xml``, VOC2011 devkit manual §6.3).
person_results
    Results about annotated persons, columnar.
reader
    PASCAL VOCdevkit reader (and results reader/writer).
results_lines
    Lines of one VOC results file → columns.
reconcile
    ``vocviewer reconcile`` on a VOCdevkit: the image set's objects and detections as columns.
results_reader
    VOC results files (``<comp>_det_<set>_<class>.txt``, ``<comp>_cls_<set>_<class>.txt``).
segmentation_evaluate
    PASCAL VOC segmentation (``VOCevalseg``), exactly, and segmentations from detections.
segmentation_reader
    VOC segmentation PNGs.
tasks
    ``vocviewer eval --task seg|layout|action`` for PASCAL VOC.
write_voc
    ``vocviewer convert --to voc``: a COCO-model annotation dict (and results) as a VOC folder.
tasks_report
    Text and JSON renderings of VOC segmentation, person-layout and action results (pure).
tide
    TIDE's error breakdown on PASCAL VOC detection, from ``VOCevaldet``'s own verdicts.
view
    PASCAL VOC in the window.
"""

from vocviewer.families.base import FileTypes

#: what the window's dialogs and help call this family's files (read without importing its
#: readers: the window builds its menus before any family is loaded)
FILES = FileTypes(
    "a VOCdevkit year",
    result_patterns=("comp*_det_*.txt", "comp*_cls_*.txt"),
    results_folder="results/VOC20xx",
)
