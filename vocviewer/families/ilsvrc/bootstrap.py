"""Bootstrap evidence from an ILSVRC DET evaluation (``ilsvrc.py``): one ``EvidenceSet`` per set.

Units are the images of the eval list (``Dataset.images``). Per evaluated label (0 .. the largest
ground-truth label) the ranked list is the devkit's global ranking (descending confidence, ties by
image id, then file order); ``tp`` / ``fp`` from its verdicts (a detection in a blacklisted
(image, label) pair neither); ``positives`` the label's objects per image outside blacklisted
pairs. AP is ``VOCap`` (``"allpoints"``) as the devkit computes it. The devkit's mean AP is NaN
as soon as one label has detections but no positives; the bootstrap's ``mAP`` is the mean over
the labels with a defined AP (the devkit's mean when every label has positives).
"""

from __future__ import annotations

import numpy as np

from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.bootstrap import EvidenceSet, RankedEvidence
from vocviewer.families.ilsvrc.columns import IlsvrcDetInfo
from vocviewer.families.ilsvrc.evaluate import IlsvrcDetResult, _blacklisted

__all__ = ["ilsvrc_det_evidence", "ilsvrc_global_rank"]


def ilsvrc_global_rank(dataset: Dataset, results: ResultSet) -> np.ndarray:
    """int64 (D,): detection rows in the devkit's global order (-score, image id, file row)."""
    info: IlsvrcDetInfo = dataset.data(IlsvrcDetInfo)
    det = results.detections
    img_id = info.image_id[det.image_index] if len(det) else np.zeros(0, np.int64)
    return np.lexsort((np.arange(len(det)), img_id, -det.score)).astype(np.int64)


def ilsvrc_det_evidence(
    dataset: Dataset, results: ResultSet, evaluation: IlsvrcDetResult, name: str
) -> EvidenceSet:
    """Evidence of ``evaluate_ilsvrc_det(dataset, results)`` (module docstring)."""
    info: IlsvrcDetInfo = dataset.data(IlsvrcDetInfo)
    det, obj = results.detections, dataset.objects
    n_img = len(dataset.images)
    black = _blacklisted(
        info.blacklist_image_id, info.blacklist_label, info.image_id[obj.image_index], obj.label
    )
    rank = ilsvrc_global_rank(dataset, results)
    classes = []
    for k, label_name in enumerate(evaluation.names):
        mine = (obj.label == k) & ~black
        positives = np.bincount(obj.image_index[mine], minlength=n_img).astype(np.int64)
        r = rank[det.label[rank] == k]
        v = evaluation.verdict[r]
        ev = RankedEvidence(
            name=label_name, unit=det.image_index[r], tp=v == 1, fp=v == 0, positives=positives
        )
        if ev.npos != int(evaluation.npos[k]):
            raise ValueError(
                f"{label_name}: {ev.npos} positives, the devkit counts {evaluation.npos[k]}"
            )
        classes.append(ev)
    return EvidenceSet(name, "allpoints", tuple(classes), np.arange(n_img, dtype=np.int64))
