"""File formats: the only code that reads or writes benchmark files (lxml, numpy, stdlib; no Qt).
Which reader a path needs is decided by its family in ``vocviewer.families``.

Modules
-------
voc
    ``read_voc``: a VOCdevkit root or year folder → ``core.Dataset``; re-exports the results API.
voc_annotations
    ``Annotations/<id>.xml`` → object, action and part columns (devkit text and flag rules).
voc_imagesets
    ``ImageSets/<task>/*.txt`` → image sets, ``<class>_<set>`` labels, layout/action person sets.
voc_results
    ``read_voc_results`` / ``write_voc_results``: ``<comp>_det_<set>_<class>.txt`` (and
    ``_cls_``) files ↔ ``core.ResultSet``.
voc_common
    Element text cleaning, number parsing, per-file problem lists shared by the above.
voc_segmentation, voc_layout, voc_action
    VOC segmentation PNGs, person-layout results XML, action results files.
coco, coco_results
    COCO annotation JSON → ``Dataset``; COCO results JSON → ``ResultSet`` (``loadRes``' rules).
lvis
    LVIS v1 annotation JSON (COCO's reader + the federated fields); LVIS results JSON.
ilsvrc, ilsvrc_clsloc
    ILSVRC DET and CLS-LOC ground truth, devkit lists and submissions.
visdrone
    VisDrone-DET split folders and result folders.
input, output
    Bounded reading of regular files only; the one guarded writer (atomic, never into a dataset).
"""
