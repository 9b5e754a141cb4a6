"""A plain-loop VisDrone-DET reference written straight from PROTOCOLS.md §6 (test oracle).

Input: a list of images in name order, each ``(gt_rows, det_rows, height, width)`` with rows
``(left, top, w, h, score, category)``. Output: ``(AP[10,10], AR[10,10,4], summary dict)``.
"""

from __future__ import annotations

import math

import numpy as np

THRS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.7999999999999999, 0.85, 0.8999999999999999, 0.95)
CAPS = (1, 10, 100, 500)


def mround(v):
    t = math.trunc(v)
    return int(t + (math.copysign(1, v) if abs(v - t) >= 0.5 else 0))


def drop_in_regions(gt, det, H, W):
    regions = [r for r in gt if r[5] == 0]
    gt = [r for r in gt if r[5] != 0]
    if not regions:
        return gt, det
    mask = np.zeros((H, W))
    for r in regions:
        x, y, w, h = (int(max(1, v)) for v in r[:4])
        mask[y - 1 : min(H, y + h), x - 1 : min(W, x + w)] = 1
    integ = mask.cumsum(0).cumsum(1)

    def ii(r, c):  # 1-based inclusive
        return integ[int(r) - 1, int(c) - 1]

    def keep(row):
        X, Y, w, h = (max(1, mround(v)) for v in row[:4])
        x = max(1, min(W, X))
        y = max(1, min(H, Y))
        y2 = max(1, min(H, y + h))
        x2 = min(W, x + w)
        s = ii(y, x) + ii(y2, x2) - ii(y, x2) - ii(y2, x)
        return s / (h * w) < 0.5

    return [r for r in gt if keep(r)], [r for r in det if keep(r)]


def oa(d, g, ignore):
    iw = min(d[0] + d[2], g[0] + g[2]) - max(d[0], g[0])
    if iw <= 0:
        return 0.0
    ih = min(d[1] + d[3], g[1] + g[3]) - max(d[1], g[1])
    if ih <= 0:
        return 0.0
    t = iw * ih
    u = d[2] * d[3] if ignore else d[2] * d[3] + g[2] * g[3] - t
    return t / u


def eval_res(gt0, dt0, thr):
    """gt0 rows (x,y,w,h,ignoreflag); dt0 rows (x,y,w,h,score) → dt verdicts in sorted order."""
    dord = sorted(range(len(dt0)), key=lambda i: -dt0[i][4])
    dt = [dt0[i] for i in dord]
    gt = [g for g in gt0 if g[4] == 0] + [g for g in gt0 if g[4] == 1]
    m = [-1 if g[4] == 1 else 0 for g in gt]
    out = []
    for d in dt:
        best, bg, bm = thr, -1, 0
        for j, g in enumerate(gt):
            if m[j] == 1:
                continue
            if bm != 0 and m[j] == -1:
                break
            o = oa(d, g, m[j] == -1)
            if o < best:
                continue
            best, bg, bm = o, j, (1 if m[j] == 0 else -1)
        if bm == 1:
            m[bg] = 1
        out.append((d[4], bm))
    return out


def vocap(rec, prec):
    mrec = [0.0, *rec, 1.0]
    mpre = [0.0, *prec, 0.0]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    ap = 0.0
    for i in range(1, len(mrec)):
        if mrec[i] != mrec[i - 1]:
            ap += (mrec[i] - mrec[i - 1]) * mpre[i]
    return ap


def reference(images):
    filtered = [drop_in_regions(list(g), list(d), H, W) for g, d, H, W in images]
    gts = [[(*r[:4], 1 - r[4] if r[4] in (0, 1) else r[4], r[5]) for r in g] for g, _ in filtered]
    dets = [d for _, d in filtered]
    AP = np.zeros((10, 10))
    AR = np.zeros((10, 10, 4))
    eval_class = []
    for c in range(1, 11):
        eval_class += [c for g in gts if any(r[5] == c for r in g)]
        for x, thr in enumerate(THRS):
            for y, cap in enumerate(CAPS):
                ngt = 0
                matches = []
                for g, d in zip(gts, dets, strict=True):
                    g0 = [r[:5] for r in g if r[5] == c]
                    d0 = [r[:5] for r in d[:cap] if r[5] == c]
                    ngt += len(g0)
                    matches += eval_res(g0, d0, thr)
                order = sorted(range(len(matches)), key=lambda i: -matches[i][0])
                tp = np.cumsum([matches[i][1] == 1 for i in order]).astype(float)
                rec = tp / max(1, ngt)
                if len(rec):
                    AR[c - 1, x, y] = max(rec) * 100
            fp = np.cumsum([matches[i][1] == 0 for i in order]).astype(float)
            prec = tp / np.maximum(1, fp + tp)
            AP[c - 1, x] = vocap(list(rec), list(prec)) * 100

    def mean2(m):
        vals = [m[c - 1, k] for k in range(m.shape[1]) for c in eval_class]
        s = 0.0
        for v in vals:
            s += v
        return s / len(vals) if vals else math.nan

    summary = {
        "AP": mean2(AP),
        "AP50": mean2(AP[:, :1]),
        "AP75": mean2(AP[:, 5:6]),
        **{f"AR{cap}": mean2(AR[:, :, y]) for y, cap in enumerate(CAPS)},
    }
    return AP, AR, summary


# --- fixtures on disk and the random comparison ---------------------------------------------


def fmt(v):
    return repr(float(v)) if not float(v).is_integer() else str(int(v))


def write_split(root, images, *, results=True):
    """``images``: list of ``(gt_rows, det_rows, H, W)``; names ``0000.txt``, ``0001.txt``, ...

    Returns ``(split_dir, results_dir)``. Rows are written as 8 fields."""
    from PIL import Image

    split = root / "split"
    res = root / "res"
    (split / "annotations").mkdir(parents=True)
    (split / "images").mkdir()
    res.mkdir()
    for i, (g, d, H, W) in enumerate(images):
        name = f"{i:04d}"
        lines = [",".join(fmt(v) for v in r[:6]) + ",0,0" for r in g]
        (split / "annotations" / f"{name}.txt").write_text("".join(x + "\n" for x in lines))
        if any(r[5] == 0 for r in g):
            Image.new("L", (W, H)).save(split / "images" / f"{name}.jpg")
        if results and d is not None:
            lines = [",".join(fmt(v) for v in r[:6]) + ",-1,-1" for r in d]
            (res / f"{name}.txt").write_text("".join(x + "\n" for x in lines))
    return split, res


def evaluate_dirs(split, res):
    from vocviewer.families.visdrone.evaluate import evaluate_visdrone
    from vocviewer.families.visdrone.reader import read_visdrone, read_visdrone_results

    ds = read_visdrone(split)
    return evaluate_visdrone(ds, read_visdrone_results(ds, [res]))


def random_images(rng, n_images):
    images = []
    for _ in range(n_images):
        H, W = int(rng.integers(20, 60)), int(rng.integers(20, 60))
        base = [
            (
                float(rng.integers(0, W)),
                float(rng.integers(0, H)),
                float(rng.integers(1, 20)),
                float(rng.integers(1, 20)),
            )
            for _ in range(int(rng.integers(0, 8)))
        ]
        g = [(*b, int(rng.random() < 0.8), int(rng.integers(1, 5))) for b in base]
        if rng.random() < 0.2:
            g.append((*base[0][:2], 11.0, 9.0, 1, 11) if base else (1, 1, 5, 5, 1, 11))
        if rng.random() < 0.5:
            x, y = int(rng.integers(1, W)), int(rng.integers(1, H))
            g.append((x, y, int(rng.integers(5, 30)), int(rng.integers(5, 30)), 0, 0))
        d = []
        for _ in range(int(rng.integers(0, 14))):
            cat = int(rng.choice([0, 1, 1, 2, 2, 3, 4, 11]))
            if base and rng.random() < 0.7:
                j = int(rng.integers(len(base)))
                b = base[j]
                cat = g[j][5] if rng.random() < 0.8 else cat
                jit = rng.choice([0.0, 0.5, 1.0, 2.0, 0.25], size=4) * rng.choice([-1, 1], size=4)
                box = tuple(float(v) for v in np.asarray(b) + jit)
                box = (box[0], box[1], max(0.5, box[2]), max(0.5, box[3]))
            else:
                box = (
                    float(rng.integers(0, W)),
                    float(rng.integers(0, H)),
                    float(rng.integers(1, 20)),
                    float(rng.integers(1, 20)),
                )
            score = float(rng.choice([0.1, 0.5, 0.9, 0.3])) if rng.random() < 0.5 else rng.random()
            d.append((*box, score, cat))
        images.append((g, d, H, W))
    return images


def test_matches_plain_loop_reference_on_random_cases(tmp_path, monkeypatch):
    import vocviewer.families.visdrone.evaluate as ev

    # small caps make the cap rule bite on small images; the rules are the same
    monkeypatch.setattr(ev, "VISDRONE_MAX_DETS", (1, 2, 5, 500))
    global CAPS
    saved = CAPS
    CAPS = (1, 2, 5, 500)
    try:
        rng = np.random.default_rng(7)
        for case in range(25):
            images = random_images(rng, int(rng.integers(1, 9)))
            split, res = write_split(tmp_path / str(case), images)
            got = evaluate_dirs(split, res)
            ap, ar, summary = reference(images)
            np.testing.assert_allclose(got.ap, ap, rtol=0, atol=1e-12)
            np.testing.assert_allclose(got.ar, ar, rtol=0, atol=1e-12)
            for k, v in summary.items():
                assert (math.isnan(v) and math.isnan(got.summary[k])) or abs(
                    got.summary[k] - v
                ) <= 1e-12, (case, k)
    finally:
        CAPS = saved
