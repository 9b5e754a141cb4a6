"""Analyses beyond AP, each one module over the protocol's own verdicts (``ClassEvaluation``:
the evidence record's per-class ranked detections), family-free and Qt-free:

* ``operating_point``: precision, recall, F1 and F-beta against the score threshold, the best
  threshold per class (by F-beta or a target precision / recall), deployment thresholds and the
  row-normalised confusion matrix at a chosen threshold;
* ``calibration``: the detection expected calibration error (D-ECE, Küppers et al., CVPR-W
  2020) and its maximum over bins, optionally over confidence x box position and size, with the
  reliability diagram's bins;
* ``lrp``: Localisation-Recall-Precision error and its optimum over score thresholds (oLRP,
  Oksuz et al., ECCV 2018 / TPAMI 2022) with its components and threshold per class, moLRP.
"""
