"""Evaluation, family-free: pure numpy, no Qt, no file formats; nothing prints. Shared matching,
AP, results with per-detection evidence, and the analyses over them (diagnosis, TIDE, analyze()
curves, characteristics, normalised AP, bootstrap, confusion); ``render`` writes them out. Each
family's protocol lives in its folder (``vocviewer.families.<name>``).

Modules
-------
analysis
    Evidence in words.
analysis_curves
    COCO ``analyze()``'s nested curves from per-class ranked verdicts, for any family.
analyses/
    The analyses beyond AP: operating point, calibration (D-ECE), LRP.
ap
    Precision/recall and average precision, exactly as the official code computes them.
bootstrap
    Bootstrap over images.
bootstrap_stats
    What the bootstrap replicates say (IJCV 2015 §3.5).
characteristics
    Object characteristics (Hoiem, Chodpathumwan and Dai, ECCV 2012.
confusion
    Confusion matrix of one result set, built from the protocol's own verdicts (pure numpy, no
    Qt).
curve_style
    How a precision/recall figure draws each curve and where its legend goes (shared by the SVG
    writer ``figure_svg`` and the window's PNG / PDF figures.
diagnosis_all
    Every class's false-positive diagnosis at once (``analysis.classify_false_positives``).
drawn
    The one rule for which detections are drawn at a score threshold (``is_drawn``).
figure_svg
    Precision/recall figures as standalone SVG text (pure strings, no Qt).
kept_by_identity
    Columns worked out from given arrays, kept for the last few and found again by those arrays.
label_errors
    The label-error queue: likely missing annotations, wrong labels, loose boxes, duplicates.
matching
    Shared, vectorised matching primitives.
normalised_ap
    Normalised precision and AP (IJCV 2015 §4.1, eq.
patches
    What a patches view lists: detections of a verdict, missed objects, objects of a class,
    as numpy columns, sorted.
pair_overlaps
    Overlaps of detections with every object of their image, reduced per wanted set of objects
    (the false-positive diagnosis of ``analysis``.
polylines
    Each evaluation's PR polyline, kept while it lives (a re-derive works out all at once).
protocol_rules
    Box AP at one IoU threshold under switchable protocol rules (COCO AP50, VOC2012, VOC2007).
reconcile
    Why the same detections score differently under two protocols: a chain of one-rule switches.
render/
    Renderings of ``vocviewer analyze``.
report
    Text and JSON renderings of evaluation results (pure functions returning strings or dicts).
result
    Evaluation results that carry their evidence (DESIGN.md rule 5).
shown_table
    A table as the window shows it (titles and cell texts), written as CSV, Markdown, LaTeX or
    JSON.
tide
    What each error costs.
tide_evidence
    TIDE's per-detection and per-ground-truth verdicts (``TideEvidence``) and their error codes.
tide_fix
    TIDE's oracle fixes and its AP, from per-detection TIDE evidence
    (``tide_evidence.TideEvidence``).
view_filter
    What a ``core.view_filter.ViewFilter`` keeps of a dataset and one result set's evidence,
    as masks (images, objects, detections).
"""
