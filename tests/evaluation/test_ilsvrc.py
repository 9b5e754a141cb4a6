"""ILSVRC DET rules on hand-made cases and against a plain loop from PROTOCOLS.md §7."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vocviewer.families.ilsvrc.evaluate import evaluate_ilsvrc_det, object_thresholds
from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results

WNIDS = ["n001", "n002", "n003", "n004"]


def write_fixture(root, images, preds, blacklist=()):
    """``images``: list of object lists ``(wnid_index, x1, y1, x2, y2)``; image ids 1..n."""
    gt, data = root / "gt", root / "devkit" / "data"
    gt.mkdir(parents=True)
    (data / "det_lists").mkdir(parents=True)
    (data / "meta_det.txt").write_text(
        "".join(f"{k + 1} {w} name {k + 1}\n" for k, w in enumerate(WNIDS))
    )
    (data / "det_lists" / "val.txt").write_text(
        "".join(f"img{i} {i + 1}\n" for i in range(len(images)))
    )
    for i, objs in enumerate(images):
        body = "".join(
            f"<object><name>{WNIDS[c]}</name><bndbox><xmin>{a}</xmin><ymin>{b}</ymin>"
            f"<xmax>{x}</xmax><ymax>{y}</ymax></bndbox></object>"
            for c, a, b, x, y in objs
        )
        (gt / f"img{i}.xml").write_text(
            f"<annotation><filename>img{i}</filename>{body}</annotation>"
        )
    (data / "ILSVRC2014_det_validation_blacklist.txt").write_text(
        "".join(f"{i} {WNIDS[c]}\n" for i, c in blacklist)
    )
    pred = root / "pred.txt"
    pred.write_text("".join(" ".join(str(v) for v in p) + "\n" for p in preds))
    return gt, root / "devkit", pred


def evaluate(root, images, preds, blacklist=()):
    gt, devkit, pred = write_fixture(root, images, preds, blacklist)
    ds = read_ilsvrc_det(gt, devkit)
    return evaluate_ilsvrc_det(ds, read_ilsvrc_det_results(ds, pred))


def reference(images, preds, blacklist=()):
    """Plain loop straight from PROTOCOLS.md §7 (preds: (img id, label, score, x1, y1, x2, y2))."""
    black = set(blacklist)
    ngt_max = max((c + 1 for objs in images for c, *_ in objs), default=0)
    recs = []
    for i in range(1, len(images) + 1):
        objs = images[i - 1]
        mine = sorted([p for p in preds if p[0] == i], key=lambda p: -p[2])
        det = [False] * len(objs)
        for p in mine:
            if (i, p[1] - 1) in black:
                recs.append((p[2], p[1], 0, 0))
                continue
            ovmax, kmax = -math.inf, -1
            for k, (c, a, b, x, y) in enumerate(objs):
                if c != p[1] - 1 or det[k]:
                    continue
                w, h = y - b + 1, x - a + 1
                thr = min(0.5, (w * h) / ((w + 10) * (h + 10)))
                iw = min(p[5], x) - max(p[3], a) + 1
                ih = min(p[6], y) - max(p[4], b) + 1
                if iw > 0 and ih > 0:
                    ua = (p[5] - p[3] + 1) * (p[6] - p[4] + 1) + (x - a + 1) * (y - b + 1) - iw * ih
                    ov = iw * ih / ua
                    if ov >= thr and ov > ovmax:
                        ovmax, kmax = ov, k
            if kmax >= 0:
                det[kmax] = True
            recs.append((p[2], p[1], int(kmax >= 0), int(kmax < 0)))
    recs = [recs[k] for k in sorted(range(len(recs)), key=lambda k: -recs[k][0])]
    aps = []
    for c in range(1, ngt_max + 1):
        npos = sum(
            1
            for i, objs in enumerate(images, 1)
            for o in objs
            if o[0] == c - 1 and (i, c - 1) not in black
        )
        tp = np.cumsum([r[2] for r in recs if r[1] == c]).astype(float)
        fp = np.cumsum([r[3] for r in recs if r[1] == c]).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            rec, prec = tp / npos, tp / (fp + tp)
        mrec, mpre = [0.0, *rec, 1.0], [0.0, *prec, 0.0]
        for k in range(len(mpre) - 2, -1, -1):
            mpre[k] = float(np.fmax(mpre[k], mpre[k + 1]))  # MATLAB max skips NaN
        ap = 0.0
        for k in range(1, len(mrec)):
            if mrec[k] != mrec[k - 1]:
                ap += (mrec[k] - mrec[k - 1]) * mpre[k]
        aps.append(ap)
    return aps


def test_small_object_threshold_boundaries():
    # square +1 sides: 24 → 576/1156 < 0.5; 25 → 625/1225 > 0.5 → 0.5
    t = object_thresholds(np.array([[1.0, 1, 24, 24], [1.0, 1, 25, 25], [1.0, 1, 10, 10]]))
    assert t[0] == 576 / 1156 and t[1] == 0.5 and t[2] == 0.25


def test_small_object_looser_threshold_gives_tp(tmp_path):
    # GT 10x10 (thr 0.25), det 20x20 containing it: IoU 100/400 = 0.25 → TP
    r = evaluate(tmp_path, [[(0, 1, 1, 10, 10)]], [(1, 1, 0.9, 1, 1, 20, 20)])
    assert r.verdict.tolist() == [1] and r.ap[0] == 1.0


def test_fallback_to_second_object(tmp_path):
    objs = [(0, 1, 1, 100, 100), (0, 1, 1, 100, 90)]
    preds = [(1, 1, 0.9, 1, 1, 100, 100), (1, 1, 0.8, 1, 1, 100, 100)]
    r = evaluate(tmp_path, [objs], preds)
    assert r.verdict.tolist() == [1, 1] and r.matched_gt.tolist() == [0, 1]


def test_blacklist_skips_and_reduces_positives(tmp_path):
    images = [[(0, 1, 1, 50, 50)], [(0, 1, 1, 50, 50)]]
    preds = [(1, 1, 0.9, 1, 1, 50, 50), (2, 1, 0.8, 1, 1, 50, 50)]
    r = evaluate(tmp_path, images, preds, blacklist=[(1, 0)])
    assert r.verdict.tolist() == [-1, 1] and r.npos[0] == 1
    assert r.ap[0] == pytest.approx(reference(images, preds, [(1, 0)])[0], abs=1e-12)


def test_nan_label_and_labels_above_max_not_reported(tmp_path):
    images = [[(2, 1, 1, 50, 50)]]  # only label 3 has GT
    preds = [(1, 1, 0.9, 1, 1, 5, 5), (1, 3, 0.8, 1, 1, 50, 50), (1, 4, 0.7, 1, 1, 9, 9)]
    r = evaluate(tmp_path, images, preds)
    assert len(r.ap) == 3
    assert math.isnan(r.ap[0]) and r.ap[1] == 0.0 and r.ap[2] == 1.0
    assert math.isnan(r.mean_ap) and math.isnan(r.median_ap)
    assert r.mean_ap_defined == 0.5
    assert r.verdict[2] == -2


def test_unlisted_image_ids_are_reported(tmp_path):
    gt, devkit, pred = write_fixture(tmp_path, [[(0, 1, 1, 5, 5)]], [(7, 1, 0.9, 1, 1, 5, 5)])
    ds = read_ilsvrc_det(gt, devkit)
    rs = read_ilsvrc_det_results(ds, pred)
    assert "not in the eval list" in rs.problems[0].message and len(rs.detections) == 0


def test_empty_submission_gives_zero_ap(tmp_path):
    r = evaluate(tmp_path, [[(0, 1, 1, 5, 5), (1, 1, 1, 9, 9)]], [])
    assert r.ap.tolist() == [0.0, 0.0]


def test_matches_loop_reference_on_random_cases(tmp_path):
    rng = np.random.default_rng(3)
    for case in range(40):
        images = []
        for _ in range(int(rng.integers(1, 6))):
            objs = []
            for _ in range(int(rng.integers(0, 5))):
                a, b = int(rng.integers(1, 60)), int(rng.integers(1, 60))
                objs.append(
                    (
                        int(rng.integers(0, 4)),
                        a,
                        b,
                        a + int(rng.integers(3, 40)),
                        b + int(rng.integers(3, 40)),
                    )
                )
            images.append(objs)
        preds = []
        for _ in range(int(rng.integers(0, 25))):
            i = int(rng.integers(1, len(images) + 1))
            objs = images[i - 1]
            if objs and rng.random() < 0.7:
                c, a, b, x, y = objs[int(rng.integers(len(objs)))]
                j = rng.integers(-4, 5, 4)
                box = (a + j[0], b + j[1], x + j[2], y + j[3])
            else:
                c = int(rng.integers(0, 4))
                box = tuple(int(v) for v in rng.integers(1, 80, 4))
            score = float(rng.choice([0.5, 0.7])) if rng.random() < 0.4 else round(rng.random(), 3)
            preds.append((i, c + 1, score, *(int(v) for v in box)))
        bl = (
            [(int(rng.integers(1, len(images) + 1)), int(rng.integers(0, 4)))]
            if case % 3 == 0
            else []
        )
        got = evaluate(tmp_path / str(case), images, preds, bl)
        ref = reference(images, preds, bl)
        assert len(got.ap) == len(ref)
        np.testing.assert_allclose(got.ap, ref, rtol=0, atol=1e-12)
