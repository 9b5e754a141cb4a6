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

from vocviewer import kernel
from vocviewer.core.boxes import overlap_pairs
from vocviewer.core.dataset import Dataset
from vocviewer.core.results import ResultSet
from vocviewer.evaluation.ap import voc_ap_all_points
from vocviewer.evaluation.matching import greedy_with_fallback, same_image_pairs
from vocviewer.families.ilsvrc.columns import IlsvrcDetInfo

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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


def _blacklisted(
    black_image: npt.ArrayLike, black_label: npt.ArrayLike, image_id: IntArray, label: IntArray
) -> npt.NDArray[np.bool_]:
    """Whether each (image id, label) pair is on the blacklist (bool, like ``image_id``)."""
    bi = np.asarray(black_image, dtype=np.int64)
    bl = np.asarray(black_label, dtype=np.int64)
    if not len(bi) or not len(image_id):
        return np.zeros(len(image_id), dtype=bool)
    scale = int(max(label.max(initial=0), bl.max(initial=0))) + 1
    keys = np.unique(bi * scale + bl)
    return np.isin(image_id.astype(np.int64) * scale + label, keys)


def _greedy(
    dataset: Dataset,
    results: ResultSet,
    thr: FloatArray,
    skipped: npt.NDArray[np.bool_],
    img_id: IntArray,
) -> IntArray:
    """The object row each detection takes (-1: none), each image's detections visited by
    descending score (ties in file order); on the compiled kernel
    (``vocviewer/kernel/_greedy.c``) where it is built, else in vectorised rounds
    (``greedy_with_fallback``): the same rows."""
    obj, dets = dataset.objects, results.detections
    if (k := kernel.load("_greedy")) is not None:
        taken: IntArray = k.ilsvrc_match(
            np.argsort(dets.image_index, kind="stable"),  # the kernel orders each image itself
            dets.image_index,
            dets.score,
            dets.label,
            dets.box,
            np.ascontiguousarray(skipped, dtype=bool).view(np.uint8),
            dataset.object_offsets,
            obj.label,
            obj.box,
            thr,
        )
        return taken
    # per-image visiting order: image id, -score, file order
    order = np.lexsort((np.arange(len(dets)), -dets.score, img_id))
    # candidate pairs: same image, same label, IoU (+1 rule) >= the object's own threshold
    pd, pg = same_image_pairs(dets.image_index, dataset.object_offsets)
    sel = (dets.label[pd] == obj.label[pg]) & ~skipped[pd]
    pd, pg = pd[sel], pg[sel]
    considered, ov = overlap_pairs(dets.box[pd], obj.box[pg], plus_one=True)
    sel = considered & (ov >= thr[pg])
    pd, pg, ov = pd[sel], pg[sel], ov[sel]
    # a detection prefers the largest IoU; strict ">" in XML order: the first object on ties
    pref = np.empty(len(pd), dtype=np.int64)
    pref[np.lexsort((pg, -ov, pd))] = np.arange(len(pd), dtype=np.int64)
    priority = np.empty(len(dets), dtype=np.int64)
    priority[order] = np.arange(len(dets), dtype=np.int64)
    return greedy_with_fallback(pd, pg, pref, priority, len(dets), len(obj))


def evaluate_ilsvrc_det(dataset: Dataset, results: ResultSet) -> IlsvrcDetResult:
    """Evaluate a DET submission (``read_ilsvrc_det_results``) on ``dataset``."""
    info: IlsvrcDetInfo = dataset.data(IlsvrcDetInfo)
    obj = dataset.objects
    dets = results.detections
    n_lab = int(obj.label.max()) + 1 if len(obj) else 0
    thr = object_thresholds(obj.box)
    img_id = info.image_id[dets.image_index] if len(dets) else np.zeros(0, np.int64)
    skipped = _blacklisted(info.blacklist_image_id, info.blacklist_label, img_id, dets.label)
    matched = _greedy(dataset, results, thr, skipped, img_id)
    verdict = np.where(skipped, -1, np.where(matched >= 0, 1, 0)).astype(np.int8)
    obj_black = _blacklisted(
        info.blacklist_image_id, info.blacklist_label, info.image_id[obj.image_index], obj.label
    )
    npos = np.bincount(obj.label[~obj_black], minlength=n_lab).astype(np.int64)[:n_lab]
    # the global ranking: -score, image id, file order; then label by label (a stable sort)
    glob = np.lexsort((np.arange(len(dets)), img_id, -dets.score))
    glab = dets.label[glob]
    short = len(glab) and glab.min() >= -(2**15) and glab.max() < 2**15  # a radix sort
    by_label = glob[np.argsort(glab.astype(np.int16) if short else glab, kind="stable")]
    gv = verdict[by_label]
    cut = np.searchsorted(dets.label[by_label], np.arange(n_lab + 1))
    ap = np.zeros(n_lab)
    ndet = np.zeros(n_lab, dtype=np.int64)
    for c in range(n_lab):
        v = gv[cut[c] : cut[c + 1]]
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
        names=dataset.classes[:n_lab],
        ap=ap,
        npos=npos,
        ndet=ndet,
        verdict=verdict,
        matched_gt=matched,
        notes=tuple(notes),
    )
