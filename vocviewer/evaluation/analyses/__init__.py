"""Analyses beyond AP, each one module over the protocol's own verdicts (``ClassEvaluation``:
the evidence record's per-class ranked detections), family-free and Qt-free. Each declares itself
(``ANALYSIS``: name, title, command-line flag and options, ``compute`` over one evaluation's
evidence, its result's JSON, text columns and figures) on the seam in ``base``; ``registry``
lists them (the command line, ``vocviewer analyze``, the API and the window read it):

* ``operating_point``: precision, recall, F1 and F-beta against the score threshold, the best
  threshold per class (by F-beta or a target precision / recall), deployment thresholds and the
  row-normalised confusion matrix at a chosen threshold;
* ``calibration``: the detection expected calibration error (D-ECE, Küppers et al., CVPR-W
  2020) and its maximum over bins, optionally over confidence x box position and size, with the
  reliability diagram's bins;
* ``lrp``: Localisation-Recall-Precision error and its optimum over score thresholds (oLRP,
  Oksuz et al., ECCV 2018 / TPAMI 2022) with its components and threshold per class, moLRP;
* ``base``: ``Analysis`` (what a module declares), ``Subject`` (what it reads), ``TextPart`` and
  ``table`` (the printed table the analyses share);
* ``registry``: the analyses in order (``BUILTIN``), ``register`` for one more.
"""
