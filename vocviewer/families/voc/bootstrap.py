"""Bootstrap evidence from a VOC evaluation (``voc.py``): one ``EvidenceSet`` per result set.

Units are the images of the evaluated list. Detection: the entries of ``Main/<set>.txt`` (an id
listed twice is two units, as the official ``npos`` counts it twice); ``positives`` = non-difficult
objects of the class per entry. Classification: the images of the classes' ground-truth lists
(``Main/<class>_<set>.txt``, normally the same list for every class); ``positives`` = entries with
label 1. TP/FP come straight from the verdicts (``DUPLICATE`` is FP; ``IGNORED`` neither).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.evaluation.bootstrap import EvidenceSet, RankedEvidence
from vocviewer.evaluation.result import EvalResult, Verdict


def _ranked(
    name: str,
    unit_of_image: npt.NDArray[np.int64],
    c_image: npt.NDArray[np.int64],
    verdict: npt.NDArray[np.int8],
    positives: npt.NDArray[np.int64],
    in_mean: bool,
    npos: int,
) -> RankedEvidence:
    unit = unit_of_image[c_image]
    if np.any(unit < 0):
        raise ValueError(f"{name}: a ranked item lies on an image outside the evaluated list")
    ev = RankedEvidence(
        name=name,
        unit=unit,
        tp=verdict == Verdict.TP,
        fp=verdict >= Verdict.FP,
        positives=positives,
        in_mean=in_mean,
    )
    if ev.npos != npos:
        raise ValueError(f"{name}: {ev.npos} positives from the dataset, {npos} in the evaluation")
    return ev


def voc_det_evidence(dataset: Dataset, evaluation: EvalResult, name: str) -> EvidenceSet:
    """Evidence of a ``evaluate_voc_det`` result on ``dataset``'s evaluated image set."""
    if evaluation.task != "det":
        raise ValueError(f"expected a detection evaluation, got task {evaluation.task!r}")
    key = evaluation.image_set
    entries = dataset.image_sets[key if "/" in key else f"Main/{key}"]
    n_img = len(dataset.images)
    unit_of_image = np.full(n_img, -1, dtype=np.int64)
    unit_of_image[entries[::-1]] = np.arange(len(entries))[::-1]  # first entry of each image
    obj = dataset.objects
    classes = []
    for c in evaluation.classes:
        easy = (obj.label == c.class_index) & ~obj.difficult
        per_image = np.bincount(obj.image_index[easy], minlength=n_img)
        classes.append(
            _ranked(
                c.class_name,
                unit_of_image,
                c.image_index,
                c.verdict,
                per_image[entries].astype(np.int64),
                c.has_results,
                c.npos,
            )
        )
    return EvidenceSet(name, evaluation.ap_rule, tuple(classes), np.asarray(entries, np.int64))


def voc_cls_evidence(dataset: Dataset, evaluation: EvalResult, name: str) -> EvidenceSet:
    """Evidence of a ``evaluate_voc_cls`` result: units are the images of the ground-truth lists
    (in first-seen order over the classes)."""
    if evaluation.task != "cls":
        raise ValueError(f"expected a classification evaluation, got task {evaluation.task!r}")
    labels = [dataset.image_class_labels(evaluation.image_set, c.class_name) for c in evaluation]
    n_img = len(dataset.images)
    seen = np.concatenate([g.image_index for g in labels]) if labels else np.zeros(0, np.int64)
    _, first = np.unique(seen, return_index=True)
    images = seen[np.sort(first)].astype(np.int64)
    unit_of_image = np.full(n_img, -1, dtype=np.int64)
    unit_of_image[images] = np.arange(len(images))
    classes = []
    for c, g in zip(evaluation.classes, labels, strict=True):
        pos = np.bincount(unit_of_image[g.image_index[g.label > 0]], minlength=len(images))
        classes.append(
            _ranked(
                c.class_name,
                unit_of_image,
                c.image_index,
                c.verdict,
                pos.astype(np.int64),
                c.has_results,
                c.npos,
            )
        )
    return EvidenceSet(name, evaluation.ap_rule, tuple(classes), images)
