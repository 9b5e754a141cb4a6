"""ILSVRC CLS-LOC rules (``eval_clsloc.m``) on hand-worked cases and against a plain loop."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vocviewer.core.errors import FormatError
from vocviewer.families.ilsvrc.clsloc_evaluate import evaluate_ilsvrc_clsloc, format_clsloc
from vocviewer.families.ilsvrc.clsloc_reader import read_ilsvrc_clsloc, read_ilsvrc_clsloc_results
from vocviewer.families.ilsvrc.columns import ClslocGuesses, IlsvrcClslocInfo

WNIDS = ["n001", "n002", "n003", "n004"]
BOX = (1, 1, 100, 100)


def write_fixture(root, images, preds, blacklist=(), *, gt_file=True, mapping="meta_clsloc.txt"):
    """``images``: ``(label, [(label, x1, y1, x2, y2), ...])`` per image (labels are IDs 1..4);
    ``preds``: per image a list of ``(label, x1, y1, x2, y2)`` guesses."""
    gt, data = root / "val_xml", root / "devkit" / "data"
    gt.mkdir(parents=True)
    data.mkdir(parents=True)
    (data / mapping).write_text("".join(f"{k + 1} {w} name {k + 1}\n" for k, w in enumerate(WNIDS)))
    for i, (_, objs) in enumerate(images):
        body = "".join(
            f"<object><name>{WNIDS[c - 1]}</name><bndbox><xmin>{a}</xmin><ymin>{b}</ymin>"
            f"<xmax>{x}</xmax><ymax>{y}</ymax></bndbox></object>"
            for c, a, b, x, y in objs
        )
        name = f"ILSVRC2012_val_{i + 1:08d}"
        (gt / f"{name}.xml").write_text(
            f"<annotation><filename>{name}</filename>{body}</annotation>"
        )
    if gt_file:
        (data / "ILSVRC2014_clsloc_validation_ground_truth.txt").write_text(
            "".join(f"{label}\n" for label, _ in images)
        )
    (data / "ILSVRC2014_clsloc_validation_blacklist.txt").write_text(
        "".join(f"{i}\n" for i in blacklist)
    )
    pred = root / "pred.txt"
    pred.write_text("".join(" ".join(str(v) for g in p for v in g) + "\n" for p in preds))
    return gt, root / "devkit", pred


def evaluate(root, images, preds, blacklist=(), **kw):
    gt, devkit, pred = write_fixture(root, images, preds, blacklist, **kw)
    ds = read_ilsvrc_clsloc(gt, devkit)
    return evaluate_ilsvrc_clsloc(ds, read_ilsvrc_clsloc_results(ds, pred))


def iou_plus_one(a, b):
    """``compute_overlap.m``: +1 sizes; -1 when the boxes do not intersect."""
    iw = min(a[2], b[2]) - max(a[0], b[0]) + 1
    ih = min(a[3], b[3]) - max(a[1], b[1]) + 1
    if iw <= 0 or ih <= 0:
        return -1.0
    ua = (a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - iw * ih
    return iw * ih / ua


def reference(images, preds, blacklist=()):
    """Plain loop from the rules of ``eval_clsloc.m`` (single GT label per image)."""
    n = len(images)
    black = set(blacklist)
    cls, loc = [], []
    for k in range(1, 6):
        c = e = 0
        for i, ((gt, objs), guesses) in enumerate(zip(images, preds, strict=True)):
            first_k = guesses[:k]
            c += all(g[0] != gt for g in first_k)
            if i + 1 in black:
                continue
            ok = False
            for g in first_k:
                if g[0] == gt and any(
                    o[0] == gt and iou_plus_one(g[1:], o[1:]) >= 0.5 for o in objs
                ):
                    ok = True
            e += not ok
        cls.append(c / n)
        loc.append(e / (n - len(blacklist)) if n - len(blacklist) else math.nan)
    return cls, loc


def hand_case():
    images = [
        (1, [(1, *BOX)]),  # right only at guess 3
        (2, [(2, *BOX)]),  # right label at guess 1, box far away
        (3, [(3, *BOX)]),  # blacklisted (row 3)
        (4, [(4, *BOX)]),  # one guess, IoU exactly 0.5 with the +1 rule
    ]
    preds = [
        [(2, *BOX), (3, *BOX), (1, *BOX)],
        [(2, 200, 200, 300, 300)],
        [(1, *BOX)],
        [(4, 1, 1, 100, 200)],
    ]
    return images, preds, (3,)


def test_hand_worked_case(tmp_path):
    images, preds, black = hand_case()
    r = evaluate(tmp_path, images, preds, black)
    # cls (all 4 images, blacklist not applied): k=1,2 wrong = img1 (right at 3) + img3 → 2/4;
    # k>=3 wrong = img3 only → 1/4.
    assert r.cls_error.tolist() == [0.5, 0.5, 0.25, 0.25, 0.25]
    # loc over 4 - 1 images: img4 right (inter 100*100, union 100*100 + 100*200 - 100*100 =
    # 20000 → exactly 0.5, passes >= 0.5; without +1 it is 99*99/(99*199) < 0.5);
    # img2 always wrong (IoU -1); img1 right from k=3: k=1,2 → 2/3, k>=3 → 1/3.
    assert r.loc_error.tolist() == [2 / 3, 2 / 3, 1 / 3, 1 / 3, 1 / 3]
    assert r.cls_first.tolist() == [3, 1, 0, 1]
    assert r.loc_first.tolist() == [3, 0, -1, 1]
    assert (r.n_images, r.n_blacklist, r.notes) == (4, 1, ())
    assert reference(images, preds, black) == (r.cls_error.tolist(), r.loc_error.tolist())


def test_iou_just_below_half_and_box_of_other_label(tmp_path):
    # GT 1 with a label-2 box exactly on the guess (ignored: other label) and a label-1 box with
    # IoU 10000/20100 < 0.5 → wrong; a second label-1 box far away changes nothing.
    images = [(1, [(2, 1, 1, 100, 201), (1, *BOX), (1, 300, 300, 310, 310)])]
    r = evaluate(tmp_path, images, [[(1, 1, 1, 100, 201)]])
    assert r.cls_error.tolist() == [0.0] * 5
    assert r.loc_error.tolist() == [1.0] * 5


def test_some_box_among_several_is_enough(tmp_path):
    images = [(1, [(1, 300, 300, 310, 310), (1, *BOX)])]
    r = evaluate(tmp_path, images, [[(1, *BOX)]])
    assert r.loc_error.tolist() == [0.0] * 5


def test_blacklist_quirks_and_fix(tmp_path):
    images = [(1, [(1, *BOX)])] * 4
    preds = [[(1, *BOX)], [(2, *BOX)], [(2, *BOX)], [(2, *BOX)]]
    # entries 2, 2 (duplicate) and 9 (no such row): length(blacklist) = 3 → denominator 4 - 3 = 1;
    # evaluated: rows 1 (right), 3, 4 (wrong) → 2/1.
    gt, devkit, pred = write_fixture(tmp_path, images, preds, (2, 2, 9))
    ds = read_ilsvrc_clsloc(gt, devkit)
    res = read_ilsvrc_clsloc_results(ds, pred)
    r = evaluate_ilsvrc_clsloc(ds, res)
    assert r.loc_error.tolist() == [2.0] * 5
    assert any("denominator" in n for n in r.notes)
    fixed = evaluate_ilsvrc_clsloc(ds, res, official_denominator=False)
    assert fixed.loc_error.tolist() == [2 / 3] * 5  # 4 - 1 distinct blacklisted row
    assert r.cls_error.tolist() == [0.75] * 5


def test_missing_box_of_label_is_noted(tmp_path):
    r = evaluate(tmp_path, [(1, [(2, *BOX)])], [[(1, *BOX)]])
    assert r.loc_error.tolist() == [1.0] * 5
    assert any("official code fails" in n for n in r.notes)


def test_entity_label_accepts_any_box(tmp_path):
    # compute_overlap.m: a GT label of 1001 ("entity") compares with objects of every label.
    gt, devkit, pred = write_fixture(tmp_path, [(1, [(2, *BOX)])], [[(1001, *BOX)]])
    (devkit / "data" / "ILSVRC2014_clsloc_validation_ground_truth.txt").write_text("1001\n")
    ds = read_ilsvrc_clsloc(gt, devkit)
    r = evaluate_ilsvrc_clsloc(ds, read_ilsvrc_clsloc_results(ds, pred))
    assert (r.cls_error.tolist(), r.loc_error.tolist()) == ([0.0] * 5, [0.0] * 5)


def test_labels_from_xml_and_labels_file_only(tmp_path):
    images, preds, black = hand_case()
    r = evaluate(tmp_path, images, preds, black, gt_file=False)
    assert r.loc_error.tolist() == [2 / 3, 2 / 3, 1 / 3, 1 / 3, 1 / 3]
    assert any("labels taken from the XML" in n for n in r.notes)
    labels = tmp_path / "labels.txt"
    labels.write_text("1\n2\n3\n4\n")
    ds = read_ilsvrc_clsloc(labels, tmp_path / "devkit")
    r2 = evaluate_ilsvrc_clsloc(ds, read_ilsvrc_clsloc_results(ds, tmp_path / "pred.txt"))
    assert r2.cls_error.tolist() == [0.5, 0.5, 0.25, 0.25, 0.25]
    assert np.isnan(r2.loc_error).all()


def test_extra_guesses_ignored_and_commas(tmp_path):
    images = [(1, [(1, *BOX)])]
    six = [(2, *BOX)] * 5 + [(1, *BOX)]
    r = evaluate(tmp_path, images, [six])
    assert r.cls_error.tolist() == [1.0] * 5
    (tmp_path / "pred.txt").write_text("2,1,1,100,100,1,1,1,100,100\n\n")
    ds = read_ilsvrc_clsloc(tmp_path / "val_xml", tmp_path / "devkit")
    r = evaluate_ilsvrc_clsloc(ds, read_ilsvrc_clsloc_results(ds, tmp_path / "pred.txt"))
    assert r.cls_error.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


def test_bad_lines(tmp_path):
    gt, devkit, pred = write_fixture(tmp_path, [(1, [(1, *BOX)])] * 2, [[(1, *BOX)], [(1, *BOX)]])
    ds = read_ilsvrc_clsloc(gt, devkit)
    pred.write_text("1 1 1 100 100\n1 1 1 100\n")
    res = read_ilsvrc_clsloc_results(ds, pred)
    assert res.problems[0].line == 2 and "groups" in res.problems[0].message
    assert res.data(ClslocGuesses).label[1].tolist() == [0] * 5
    pred.write_text("1 1 1 100 100\n")
    with pytest.raises(FormatError, match="1 line"):
        read_ilsvrc_clsloc_results(ds, pred)
    (devkit / "data" / "ILSVRC2014_clsloc_validation_ground_truth.txt").write_text("1\n1 2\n")
    with pytest.raises(FormatError, match=r"ground_truth.txt:2"):
        read_ilsvrc_clsloc(gt, devkit)


def test_mapping_in_other_order_and_mat_needs_scipy(tmp_path):
    gt, devkit, _ = write_fixture(tmp_path, [(1, [(1, *BOX)])], [[(1, *BOX)]], mapping="x.txt")
    (devkit / "data" / "map_clsloc.txt").write_text("n001 1 a\nn002 2 b\n")
    assert read_ilsvrc_clsloc(gt, devkit).classes == ("a", "b")
    (devkit / "data" / "map_clsloc.txt").unlink()
    (devkit / "data" / "meta_clsloc.mat").write_bytes(b"")
    try:
        import scipy  # noqa: F401
    except ImportError:
        with pytest.raises(FormatError, match="scipy"):
            read_ilsvrc_clsloc(gt, devkit)


def test_printout_matches_demo_layout(tmp_path):
    images, preds, black = hand_case()
    gt, devkit, pred = write_fixture(tmp_path, images, preds, black)
    ds = read_ilsvrc_clsloc(gt, devkit)
    r = evaluate_ilsvrc_clsloc(ds, read_ilsvrc_clsloc_results(ds, pred))
    text = format_clsloc(r, ds.data(IlsvrcClslocInfo), "pred.txt", str(gt))
    lines = text.splitlines()
    assert lines[0] == "CLASSIFICATION WITH LOCALIZATION TASK"
    assert lines[5] == "# guesses vs clsloc error vs cls-only error"
    assert lines[6] == "    1.0000    0.6667    0.5000"
    assert lines[10] == "    5.0000    0.3333    0.2500"
    perfect = evaluate(tmp_path / "p", [(1, [(1, *BOX)])], [[(1, *BOX)]])
    out = format_clsloc(perfect, ds.data(IlsvrcClslocInfo), "p", "g").splitlines()
    assert out[6] == "     1     0     0"  # MATLAB disp of an all-integer matrix


def random_case(seed):
    """Small random images and guesses; half the guesses are jittered copies of a GT box, so
    IoUs fall on both sides of 0.5 (integer coordinates make exact 0.5 ties likely)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))

    def box():
        x, y = (int(v) for v in rng.integers(1, 12, size=2))
        return (x, y, x + int(rng.integers(0, 12)), y + int(rng.integers(0, 12)))

    def guess(objs):
        if rng.random() < 0.5:
            label, *b = objs[int(rng.integers(len(objs)))]
            return (label, *(v + int(rng.integers(-3, 4)) for v in b))
        return (int(rng.integers(1, 5)), *box())

    images = []
    for _ in range(n):
        gt = int(rng.integers(1, 5))
        objs = [(gt, *box())] + [
            (int(rng.integers(1, 5)), *box()) for _ in range(rng.integers(0, 3))
        ]
        images.append((gt, objs))
    preds = [[guess(objs) for _ in range(rng.integers(0, 8))] for _, objs in images]
    black = tuple(
        sorted({int(v) for v in rng.choice(np.arange(1, n + 1), size=rng.integers(0, n))})
    )
    return images, preds, black


@pytest.mark.parametrize("seed", range(60))
def test_matches_plain_loop_on_random_cases(tmp_path, seed):
    images, preds, black = random_case(seed)
    r = evaluate(tmp_path, images, preds, black)
    cls, loc = reference(images, preds, black)
    assert r.cls_error.tolist() == cls
    np.testing.assert_array_equal(r.loc_error, np.array(loc))
