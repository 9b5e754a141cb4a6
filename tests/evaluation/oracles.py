"""Slow, literal loop references of the VOC devkit's evaluation, used only as test oracles.

Written straight from the devkit manual and PROTOCOLS.md §1-2, one detection and one box at a time,
with plain Python floats and lists, sharing no code with ``vocviewer.evaluation``.
"""

from __future__ import annotations

import math

NAN = float("nan")


def matlab_max(values):
    """MATLAB ``max`` of a vector: skips NaN; NaN only if all are NaN; [] for an empty vector."""
    vals = [v for v in values if not math.isnan(v)]
    if not values:
        return None
    return max(vals) if vals else NAN


def vocap(rec, prec):
    mrec = [0.0, *rec, 1.0]
    mpre = [0.0, *prec, 0.0]
    for i in range(len(mpre) - 2, -1, -1):
        m = matlab_max([mpre[i], mpre[i + 1]])
        mpre[i] = m
    ap = 0.0
    for i in range(1, len(mrec)):
        if mrec[i] != mrec[i - 1]:  # NaN != NaN is True, as in MATLAB
            ap = ap + (mrec[i] - mrec[i - 1]) * mpre[i]
    return ap


# MATLAB's 0:0.1:1, built the way MATLAB's colon does: first half up from 0, second half down from 1.
def matlab_colon_0_01_1():
    n = 10
    out = [0.0] * (n + 1)
    for k in range(n // 2 + 1):
        out[k] = 0 + k * 0.1
    for k in range(n // 2 + 1):
        out[n - k] = 1 - k * 0.1
    out[n // 2] = (0 + 1) / 2
    return out


def ap11(rec, prec):
    ap = 0.0
    for t in matlab_colon_0_01_1():
        p = matlab_max([p for r, p in zip(rec, prec, strict=True) if r >= t])
        if p is None:
            p = 0.0
        ap = ap + p / 11
    return ap


def voc_det_class(gt_by_image, dets, image_list, ap_rule="allpoints", thr=0.5):
    """One class of VOCevaldet.

    gt_by_image: {image_id: [(box4, difficult_bool), ...]} in XML order (this class only).
    dets: [(image_id, score, box4)] in results-file order.
    image_list: the set's ids in file order.
    Returns dict(verdicts per rank in 'tp'/'fp'/'ign', ap, rec, prec, order).
    """
    gt = {i: [(list(b), d, [False]) for b, d in gt_by_image.get(i, [])] for i in set(image_list)}
    npos = 0
    for i in image_list:
        for _b, d, _m in gt[i]:
            if not d:
                npos += 1
    # stable descending sort by score (MATLAB sort of -confidence ascending)
    order = sorted(range(len(dets)), key=lambda j: -dets[j][1])
    tp, fp, verdicts = [], [], []
    for j in order:
        img, _score, bb = dets[j]
        ovmax, jmax = -math.inf, None
        for g, (bbgt, _d, _m) in enumerate(gt[img]):
            bi = [
                matlab_max([bb[0], bbgt[0]]),
                matlab_max([bb[1], bbgt[1]]),
                -matlab_max([-bb[2], -bbgt[2]]),
                -matlab_max([-bb[3], -bbgt[3]]),
            ]
            iw = bi[2] - bi[0] + 1
            ih = bi[3] - bi[1] + 1
            if iw > 0 and ih > 0:
                ua = (
                    (bb[2] - bb[0] + 1) * (bb[3] - bb[1] + 1)
                    + (bbgt[2] - bbgt[0] + 1) * (bbgt[3] - bbgt[1] + 1)
                    - iw * ih
                )
                ov = iw * ih / ua if ua != 0 else math.copysign(math.inf, iw * ih)
                if ov > ovmax:
                    ovmax, jmax = ov, g
        if ovmax >= thr:
            _b, diff, matched = gt[img][jmax]
            if diff:
                tp.append(0)
                fp.append(0)
                verdicts.append("ign")
            elif not matched[0]:
                matched[0] = True
                tp.append(1)
                fp.append(0)
                verdicts.append("tp")
            else:
                tp.append(0)
                fp.append(1)
                verdicts.append("dup")
        else:
            tp.append(0)
            fp.append(1)
            verdicts.append("fp")
    return _finish(tp, fp, npos, ap_rule, verdicts, order)


def _finish(tp, fp, npos, ap_rule, verdicts, order):
    ctp, cfp, rec, prec = 0, 0, [], []
    for t, f in zip(tp, fp, strict=True):
        ctp += t
        cfp += f
        rec.append(ctp / npos if npos else (NAN if ctp == 0 else math.inf))
        prec.append(ctp / (ctp + cfp) if ctp + cfp else NAN)
    ap = vocap(rec, prec) if ap_rule == "allpoints" else ap11(rec, prec)
    return {"verdicts": verdicts, "ap": ap, "rec": rec, "prec": prec, "order": order, "npos": npos}


def voc_cls_class(gt_list, results, ap_rule="allpoints"):
    """One class of VOCevalcls. gt_list: [(image_id, label)] in file order;
    results: [(image_id, score)] in file order (last wins)."""
    ids = [i for i, _ in gt_list]
    labels = [lab for _, lab in gt_list]
    score = [-math.inf] * len(ids)
    for img, s in results:
        score[ids.index(img)] = s
    order = sorted(range(len(ids)), key=lambda j: -score[j])
    tp = [1 if labels[j] > 0 else 0 for j in order]
    fp = [1 if labels[j] < 0 else 0 for j in order]
    npos = sum(1 for lab in labels if lab > 0)
    verdicts = ["tp" if t else ("fp" if f else "ign") for t, f in zip(tp, fp, strict=True)]
    return _finish(tp, fp, npos, ap_rule, verdicts, order)
