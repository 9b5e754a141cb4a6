"""Benchmark families: one folder per family (``voc``, ``coco``, ``lvis``, ``visdrone``, ``ilsvrc``,
``openimages``, ``cvat``), each implementing the ``Benchmark`` interface (``base``) and listed once in
``registry.BUILTIN``.
Nothing outside a family's folder imports it but the registry (by name); no family imports the
registry. The modules here are the family-free interface and what dispatches over the registry;
importing the package imports none of them (``families.registry`` opens datasets and results).

Modules
-------
analyze
    ``vocviewer analyze``.
analyze_beyond
    ``vocviewer analyze --operating-point / --calibration / --lrp / ...``: the registered
    analyses beyond AP added to a family's analysis.
api
    The plain Python API.
base
    The ``Benchmark`` protocol every family implements, and the helpers its ``evaluate`` shares.
beyond_ap
    The registered analyses beyond AP (operating point, calibration, LRP, ...) over one
    ``Evidence``.
coco/
    COCO.
cvat/
    CVAT for images 1.1 XML and LabelMe JSON ground truth, by COCO's or VOC's protocol.
eval_sets
    ``vocviewer eval`` over several result sets.
evidence
    One evaluation of a result set at one choice, kept (``Evidence``): what ``evaluate_views``
    yields, the input of ``vocviewer eval`` and the Python API.
ilsvrc/
    ILSVRC DET and CLS-LOC.
lvis/
    LVIS v1.
openimages/
    Open Images (V6/V7) detection, the challenge protocol.
official
    The one rule for official-ness, shared by ``vocviewer eval`` and every pane of the window.
reconciling
    ``vocviewer reconcile``: a family's ``reconcile`` hook.
registry
    The registry of benchmark families, and opening a dataset or results through it.
subset_export
    A selection of images written as a new dataset folder through the converters.
subset_run
    ``vocviewer subset``: which images the arguments choose.
suspects
    ``vocviewer suspects``: the label-error queue from each result set's ``Evidence``.
view_analyser
    What a family gives the window's Analysis tab.
view_analysis
    What the window's Analysis tab computes for one result set, as ``vocviewer analyze`` does it
    per family.
views
    What a benchmark gives the window.
views_all
    Every class's view at once from stored ranked evidence (re-deriving at another IoU).
visdrone/
    VisDrone-DET.
voc/
    PASCAL VOC.
yolo/
    YOLO (Ultralytics), by COCO's protocol and the validator's convention.
"""
