"""ILSVRC DET evaluation, exactly as ``eval_detection.m`` (PROTOCOLS.md §7).

Rules:

* per object threshold ``min(0.5, w*h / ((w+10)*(h+10)))`` with ``w = xmax-xmin+1``,
  ``h = ymax-ymin+1``;
* per image (images in eval-list order; detections ranked by descending confidence, ties in
  file order): a detection whose (image id, label) pair is blacklisted is skipped (neither TP nor
  FP, keeps its rank); otherwise among the *undetected* GT of the same label with
  ``IoU (+1 rule) >= own threshold`` the largest IoU wins (strict ``>``: first in XML order on
  ties) → TP, else FP (falls back to other objects, unlike VOC);
* positives per label: all objects minus those in blacklisted (image id, label) pairs;
* global ranking: all detections by descending confidence, ties by image id then file order;
  ``rec = cumsum(tp)/npos``, ``prec = tp/(tp+fp)`` (NaN where only skipped ones were seen);
  AP = ``VOCap``; labels evaluated: 1..largest GT label (NaN AP for a label with detections but
  no positives, 0 without detections); mean and median propagate NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vocviewer.core.dataset import Dataset
from vocviewer.core.ilsvrc import IlsvrcDetInfo
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.ap import voc_ap_all_points

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class IlsvrcDetResult:
    """Per label (DET_ID 1..L): ``ap``, ``npos``, ``ndet``; per detection ``verdict`` (1 TP,
    0 FP, -1 skipped as blacklisted, -2 label above L) and ``matched_gt`` (object row or -1)."""

    names: tuple[str, ...]
    ap: FloatArray
    npos: npt.NDArray[np.int64]
    ndet: npt.NDArray[np.int64]
    verdict: npt.NDArray[np.int8]
    matched_gt: npt.NDArray[np.int64]
    notes: tuple[str, ...] = ()

    @property
    def mean_ap(self) -> float:
        """The devkit demo's ``mean(ap)``: NaN if any label's AP is NaN."""
        return float(np.mean(self.ap)) if len(self.ap) else math.nan

    @property
    def median_ap(self) -> float:
        """``median(ap)``: NaN if any label's AP is NaN."""
        if not len(self.ap) or np.isnan(self.ap).any():
            return math.nan
        return float(np.median(self.ap))

    @property
    def mean_ap_defined(self) -> float:
        """Mean over labels with a defined (non-NaN) AP — not official."""
        ok = self.ap[~np.isnan(self.ap)]
        return float(np.mean(ok)) if len(ok) else math.nan


def object_thresholds(box: FloatArray) -> FloatArray:
    """``min(0.5, w*h/((w+10)*(h+10)))`` per box (float64 (N, 4) xyxy, +1 sizes)."""
    w = box[:, 3] - box[:, 1] + 1
    h = box[:, 2] - box[:, 0] + 1
    out: FloatArray = np.minimum(0.5, (w * h) / ((w + 10) * (h + 10)))
    return out


def evaluate_ilsvrc_det(dataset: Dataset, results: ResultSet) -> IlsvrcDetResult:
    """Evaluate a DET submission (``read_ilsvrc_det_results``) on ``dataset``."""
    info: IlsvrcDetInfo = dataset.extras["ilsvrc"]
    obj = dataset.objects
    dets = results.detections
    n_lab = int(obj.label.max()) + 1 if len(obj) else 0
    thr = object_thresholds(obj.box)
    black = set(zip(info.blacklist_image_id.tolist(), info.blacklist_label.tolist(), strict=True))
    img_id = info.image_id[dets.image_index] if len(dets) else np.zeros(0, np.int64)
    # per-image visiting order and the global order: -score, image id, file order
    order = np.lexsort((np.arange(len(dets)), -dets.score, img_id))
    verdict = np.zeros(len(dets), dtype=np.int8)
    matched = np.full(len(dets), -1, dtype=np.int64)
    boxes = obj.box.tolist()
    labels = obj.label.tolist()
    thr_l = thr.tolist()
    dbox = dets.box.tolist()
    dlab = dets.label.tolist()
    detected = np.zeros(len(obj), dtype=bool).tolist()
    ids = img_id.tolist()
    rows = dets.image_index.tolist()
    for j in order.tolist():
        if (ids[j], dlab[j]) in black:
            verdict[j] = -1
            continue
        bb = dbox[j]
        s = dataset.objects_of(rows[j])
        ovmax, kmax = -math.inf, -1
        for k in range(s.start, s.stop):
            if labels[k] != dlab[j] or detected[k]:
                continue
            g = boxes[k]
            iw = min(bb[2], g[2]) - max(bb[0], g[0]) + 1
            ih = min(bb[3], g[3]) - max(bb[1], g[1]) + 1
            if iw > 0 and ih > 0:
                ua = (
                    (bb[2] - bb[0] + 1) * (bb[3] - bb[1] + 1)
                    + (g[2] - g[0] + 1) * (g[3] - g[1] + 1)
                    - iw * ih
                )
                ov = iw * ih / ua
                if ov >= thr_l[k] and ov > ovmax:
                    ovmax, kmax = ov, k
        if kmax >= 0:
            verdict[j] = 1
            matched[j] = kmax
            detected[kmax] = True
    npos = np.bincount(obj.label, minlength=n_lab).astype(np.int64)[:n_lab]
    obj_id = info.image_id[obj.image_index]
    for i, lab in zip(obj_id.tolist(), labels, strict=True):
        if (i, lab) in black:
            npos[lab] -= 1
    glob = np.lexsort((np.arange(len(dets)), img_id, -dets.score))
    ap = np.zeros(n_lab)
    ndet = np.zeros(n_lab, dtype=np.int64)
    glab = dets.label[glob]
    gv = verdict[glob]
    for c in range(n_lab):
        v = gv[glab == c]
        ndet[c] = len(v)
        tp = np.cumsum(v == 1).astype(np.float64)
        fp = np.cumsum(v == 0).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            rec = tp / float(npos[c])
            prec = tp / (fp + tp)
        ap[c] = voc_ap_all_points(rec, prec)
    verdict[dets.label >= n_lab] = -2
    notes = []
    if results.problems:
        notes.append(f"{len(results.problems)} submission line(s) skipped or dropped")
    if dataset.problems:
        notes.append(f"{len(dataset.problems)} ground-truth problem(s)")
    return IlsvrcDetResult(
        names=dataset.classes[:n_lab], ap=ap, npos=npos, ndet=ndet, verdict=verdict,
        matched_gt=matched, notes=tuple(notes),
    )  # fmt: skip
