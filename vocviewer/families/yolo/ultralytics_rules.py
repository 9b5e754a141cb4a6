"""The Ultralytics validator's box metrics, written from its documented behaviour (not its code).

The rules (``DetectionValidator`` + ``utils/metrics.py``), as this module applies them:

1. Per image, detections with confidence ``> conf`` (0.001) are kept, highest first, at most
   ``max_det`` (300) over all classes (what its NMS returns).
2. Matching (``match_predictions``, the default non-scipy rule of ultralytics 8.4; checked
   against 8.4.190), per image and per IoU threshold t in 0.50, 0.55, ..., 0.95: IoU
   (``box_iou``: ``inter / (area_a + area_b - inter + 1e-7)``) is zeroed between boxes of
   different classes; the detections, highest confidence first, each take the object not yet
   taken at t with the highest IoU (the first on ties) and are true positives if that IoU is
   >= t. Greedy by confidence as COCO is, but without crowd regions, area ranges or COCO's
   per-class cap. (Releases before 8.4 sorted every pair by IoU instead: each detection kept
   its best pair, then each object its first detection.)
3. ``ap_per_class``: all detections sorted by confidence (``np.argsort(-conf)``); per class with
   objects, recall = cumulative TP / (objects + 1e-16), precision = cumulative TP / rank; AP by
   ``compute_ap``: the curve framed by (recall 0, precision 1) and, after its last point,
   precision 0 from its last recall to recall 1 (8.4; earlier releases drew a line from the
   last point to (recall 1, precision 0)), the precision envelope (running maximum from the right), sampled at 101 recall points by linear
   interpolation (``np.interp``) and integrated by the trapezoid rule. mAP50 is the mean of the
   AP at 0.50 over classes with objects, mAP50-95 the mean over the ten thresholds too.
4. P and R: each class's precision and recall interpolated on 1,000 confidences, F1 averaged
   over classes and smoothed (a box filter over 10 % of the points); P and R are the class means
   at the F1 maximum.

Pose (``PoseValidator``): the same, with OKS (``kpt_iou``) in place of IoU: COCO's 17
sigmas (else 1 / K each), the object's area taken as 0.53 × its box area, averaged over the
object's labelled keypoints (an object with none scores 0 against everything).

There are no crowd regions, no area ranges and no per-class detection cap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
EPS = 1e-16


@dataclass(frozen=True)
class UltralyticsMetrics:
    """The validator's box metrics: ``precision`` and ``recall`` (class means at the F1
    maximum), ``map50``, ``map`` (50-95), per class ``ap`` (classes with objects x 10
    thresholds) and ``classes`` (their indices)."""

    precision: float
    recall: float
    map50: float
    map: float
    ap: FloatArray
    classes: IntArray

    def summary(self) -> dict[str, float]:
        return {"P": self.precision, "R": self.recall, "mAP50": self.map50, "mAP50-95": self.map}


def box_iou(a: FloatArray, b: FloatArray, eps: float = 1e-7) -> FloatArray:
    """IoU of xyxy boxes ``a`` (M, 4) against ``b`` (N, 4), the validator's way (no +1)."""
    lo = np.maximum(a[:, None, :2], b[None, :, :2])
    hi = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(hi - lo, 0, None).prod(axis=2)
    area_a = (a[:, 2:] - a[:, :2]).prod(axis=1)
    area_b = (b[:, 2:] - b[:, :2]).prod(axis=1)
    return np.asarray(inter / (area_a[:, None] + area_b[None, :] - inter + eps), np.float64)


def match(iou: FloatArray, thresholds: FloatArray = IOU_THRESHOLDS) -> BoolArray:
    """Rule 2: ``iou`` (objects x detections, zero across classes; detections highest
    confidence first) → correct (detections x thresholds)."""
    n_obj, n_det = iou.shape
    correct = np.zeros((n_det, len(thresholds)), dtype=bool)
    if n_obj == 0:
        return correct
    for i, t in enumerate(thresholds):
        free = np.ones(n_obj, dtype=bool)
        for j in range(n_det):
            offered = np.where(free, iou[:, j], 0.0)
            best = int(np.argmax(offered))  # the first of equal IoUs
            if offered[best] >= t:
                correct[j, i] = True
                free[best] = False
    return correct


def interpolated_ap(recall: FloatArray, precision: FloatArray) -> float:
    """Rule 3's ``compute_ap``: 101-point linear interpolation of the envelope, trapezoid sum."""
    last = recall[-1] if len(recall) else 1.0  # precision falls to 0 at the last recall
    mrec = np.concatenate(([0.0], recall, [last], [1.0]))
    mpre = np.concatenate(([1.0], precision, [0.0], [0.0]))
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    x = np.linspace(0, 1, 101)
    y = np.interp(x, mrec, mpre)
    return float(np.add.reduce(np.diff(x) * (y[1:] + y[:-1]) / 2.0))  # numpy's trapezoid


def coco_step_ap(recall: FloatArray, precision: FloatArray) -> float:
    """COCO's 101-point AP of the same curve (envelope sampled at the first rank reaching each
    recall threshold, 0 past the last): for explaining the difference only."""
    if not len(recall):
        return 0.0
    env = np.flip(np.maximum.accumulate(np.flip(precision)))
    idx = np.searchsorted(recall, np.linspace(0, 1, 101), side="left")
    q = np.where(idx < len(env), env[np.minimum(idx, len(env) - 1)], 0.0)
    return float(np.mean(q))


def _smooth(y: FloatArray, f: float = 0.1) -> FloatArray:
    nf = round(len(y) * f * 2) // 2 + 1
    pad = np.ones(nf // 2)
    yp = np.concatenate((pad * y[0], y, pad * y[-1]))
    return np.convolve(yp, np.ones(nf) / nf, mode="valid")


def ap_per_class(
    tp: BoolArray,
    conf: FloatArray,
    pred_cls: IntArray,
    target_cls: IntArray,
    coco_interpolation: bool = False,
) -> UltralyticsMetrics:
    """Rules 3 and 4 over every image's ``tp`` (N, 10), ``conf``, ``pred_cls`` and every
    object's ``target_cls`` (``coco_interpolation``: COCO's step rule instead, to explain)."""
    order = np.argsort(-conf)
    tp, conf, pred_cls = tp[order], conf[order], pred_cls[order]
    classes, counts = np.unique(target_cls, return_counts=True)
    x = np.linspace(0, 1, 1000)
    ap = np.zeros((len(classes), tp.shape[1]))
    p_curve, r_curve = np.zeros((len(classes), 1000)), np.zeros((len(classes), 1000))
    ap_rule = coco_step_ap if coco_interpolation else interpolated_ap
    for ci, c in enumerate(classes):
        sel = pred_cls == c
        if not np.any(sel):
            continue
        tpc = tp[sel].cumsum(0)
        fpc = (1 - tp[sel]).cumsum(0)
        recall = tpc / (counts[ci] + EPS)
        precision = tpc / (tpc + fpc)
        r_curve[ci] = np.interp(-x, -conf[sel], recall[:, 0], left=0)
        p_curve[ci] = np.interp(-x, -conf[sel], precision[:, 0], left=1)
        for j in range(tp.shape[1]):
            ap[ci, j] = ap_rule(recall[:, j], precision[:, j])
    if not len(classes):
        return UltralyticsMetrics(0.0, 0.0, 0.0, 0.0, ap, classes.astype(np.int64))
    f1 = 2 * p_curve * r_curve / (p_curve + r_curve + EPS)
    best = int(_smooth(f1.mean(0), 0.1).argmax())
    return UltralyticsMetrics(
        float(p_curve[:, best].mean()),
        float(r_curve[:, best].mean()),
        float(ap[:, 0].mean()),
        float(ap.mean()),
        ap,
        classes.astype(np.int64),
    )


@dataclass(frozen=True)
class Boxes:
    """Columns of boxes: ``image`` row, ``label``, ``box`` xyxy pixels, (detections) ``score``;
    for pose, ``keypoints`` (N, K, 3: x, y pixels and visibility / confidence) and (ground
    truth) the ``area`` OKS scales by."""

    image: IntArray
    label: IntArray
    box: FloatArray
    score: FloatArray | None = None
    keypoints: FloatArray | None = None
    area: FloatArray | None = None


def oks(gt: FloatArray, area: FloatArray, det: FloatArray, sigmas: FloatArray) -> FloatArray:
    """The pose validator's ``kpt_iou``: objects (M, K, 3) x detections (N, K, 3) → (M, N);
    ``exp(-d² / ((2σ)² (area + 1e-7) 2))`` averaged over the object's labelled keypoints
    (visibility != 0; none: 0)."""
    d = (gt[:, None, :, 0] - det[None, :, :, 0]) ** 2 + (
        gt[:, None, :, 1] - det[None, :, :, 1]
    ) ** 2
    labelled = gt[..., 2] != 0
    e = d / ((2 * sigmas) ** 2 * (area[:, None, None] + 1e-7) * 2)
    total = (np.exp(-e) * labelled[:, None]).sum(-1)
    return np.asarray(total / (labelled.sum(-1)[:, None] + 1e-7), dtype=np.float64)


def kept(dets: Boxes, conf: float, max_det: int, per_class_cap: bool = False) -> IntArray:
    """Rule 1: the rows kept, image by image (highest confidence first); ``per_class_cap``:
    at most ``max_det`` per image and class instead (COCO's ``maxDets``, to explain)."""
    assert dets.score is not None
    rows = np.flatnonzero(dets.score > conf)
    order = rows[np.lexsort((-dets.score[rows], dets.image[rows]))]
    keys = dets.image[order] * (int(dets.label.max(initial=0)) + 1)
    if per_class_cap:
        keys = keys + dets.label[order]
    if not len(order):
        return order
    start = np.r_[0, np.flatnonzero(np.diff(keys) != 0) + 1]
    firsts = np.repeat(start, np.diff(np.r_[start, len(order)]))
    if per_class_cap:  # rows of one image and class are not adjacent: rank within the key
        srt = np.lexsort((-dets.score[order], keys))
        ks = keys[srt]
        st = np.r_[0, np.flatnonzero(np.diff(ks) != 0) + 1]
        rank = np.empty(len(order), dtype=np.int64)
        rank[srt] = np.arange(len(order)) - np.repeat(st, np.diff(np.r_[st, len(order)]))
        return np.asarray(order[rank < max_det], dtype=np.int64)
    return np.asarray(order[np.arange(len(order)) - firsts < max_det], dtype=np.int64)


def evaluate(
    gt: Boxes,
    dets: Boxes,
    n_images: int,
    conf: float = 0.001,
    max_det: int = 300,
    per_class_cap: bool = False,
    coco_interpolation: bool = False,
    sigmas: FloatArray | None = None,
) -> UltralyticsMetrics:
    """The validator's metrics of ``dets`` against ``gt`` over ``n_images`` images: by box IoU,
    or with ``sigmas`` by OKS (``gt.area``, the keypoints of both)."""
    assert dets.score is not None
    keep = kept(dets, conf, max_det, per_class_cap)
    img, lab, box, score = dets.image[keep], dets.label[keep], dets.box[keep], dets.score[keep]
    kps = None if dets.keypoints is None else dets.keypoints[keep]
    tps, confs, classes = [], [], []
    g_order = np.argsort(gt.image, kind="stable")
    g_start = np.searchsorted(gt.image[g_order], np.arange(n_images + 1))
    d_start = np.searchsorted(img, np.arange(n_images + 1))
    for i in range(n_images):
        d = slice(d_start[i], d_start[i + 1])
        if d.start == d.stop:
            continue
        g = g_order[g_start[i] : g_start[i + 1]]
        if sigmas is not None and kps is not None:
            assert gt.keypoints is not None and gt.area is not None
            sim = oks(gt.keypoints[g], gt.area[g], kps[d], sigmas)
        else:
            sim = box_iou(gt.box[g], box[d])
        iou = sim * (gt.label[g][:, None] == lab[d][None, :])
        tps.append(match(iou))
        confs.append(score[d])
        classes.append(lab[d])
    tp = np.concatenate(tps) if tps else np.zeros((0, len(IOU_THRESHOLDS)), dtype=bool)
    cf = np.concatenate(confs) if confs else np.zeros(0)
    pc = np.concatenate(classes) if classes else np.zeros(0, dtype=np.int64)
    return ap_per_class(tp, cf, pc, gt.label, coco_interpolation)
