"""Evaluation: pure numpy, no Qt, no file formats; nothing prints. Results carry their evidence.

Modules
-------
matching, ap, result
    Shared matching primitives, precision/recall and AP, results with per-detection evidence.
voc, voc_segmentation, voc_layout, voc_action
    PASCAL VOC: detection and classification, segmentation, person layout, action.
coco, coco_prepare, coco_similarity, coco_matching, coco_accumulate
    COCO (``COCOeval``): bbox, segm and keypoints, exactly.
lvis
    LVIS (``LVISEval``): bbox and segm with the federated rules, on COCO's matching, exactly.
coco_analyze
    COCO's ``analyze()``: the nested PR curves C75, C50, Loc, Sim, Oth, BG, FN.
ilsvrc, ilsvrc_clsloc
    ILSVRC DET and CLS-LOC.
visdrone, visdrone_match, visdrone_regions
    VisDrone-DET, with its ignored regions.
analysis, confusion
    Why each detection is what it is (error kinds); the confusion matrix.
bootstrap, bootstrap_stats, bootstrap_voc, normalised_ap
    Bootstrap intervals and paired tests over images; normalised AP.
report, report_tasks, figure_svg
    Text, JSON and SVG renderings.
"""
