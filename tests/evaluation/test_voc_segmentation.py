"""VOC segmentation (PROTOCOLS.md §3): hand-worked cases, a loop reference, the demo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset, make_results
from vocviewer.core.errors import FormatError
from vocviewer.families.voc.segmentation_evaluate import (
    SEG_LABEL_NAMES,
    SegAccumulator,
    confusion_counts,
    create_segmentations_from_detections,
    default_seg_protocol,
    evaluate_voc_seg,
)


def _run(gts, results, **kw):
    ids = list(gts)
    return evaluate_voc_seg(ids, gts.__getitem__, results.__getitem__, image_set="val", **kw)


def reference_confusion(pairs):
    """Plain loops straight from the rules: every pixel with GT < 255 counts in C[g, r]."""
    c = [[0] * 21 for _ in range(21)]
    for gt, res in pairs:
        for g, r in zip(np.ravel(gt).tolist(), np.ravel(res).tolist(), strict=True):
            if g <= 20:
                c[g][r] += 1
    return c


def reference_iou(c):
    out = []
    for j in range(21):
        gtj = sum(c[j])
        resj = sum(c[i][j] for i in range(21))
        denom = gtj + resj - c[j][j]
        out.append(100 * c[j][j] / denom if denom else math.nan)
    return out


def test_hand_worked_two_images():
    # image a: GT [[0, 1], [1, 255]] vs result [[0, 1], [0, 2]]: void pixel ignored
    # image b: GT [[2, 2]] vs result [[2, 1]]
    gts = {"a": np.array([[0, 1], [1, 255]], np.uint8), "b": np.array([[2, 2]], np.uint8)}
    res = {"a": np.array([[0, 1], [0, 2]], np.uint8), "b": np.array([[2, 1]], np.uint8)}
    ev = _run(gts, res)
    c = ev.confusion
    assert c[0, 0] == 1 and c[1, 1] == 1 and c[1, 0] == 1 and c[2, 2] == 1 and c[2, 1] == 1
    assert c.sum() == 5
    # background: tp 1, row 1, col 2 -> 1/2; class 1: tp 1, row 2, col 2 -> 1/3; class 2: 1/2
    assert ev.iou[0] == 100 * 1 / 2 and ev.iou[1] == 100 * 1 / 3 and ev.iou[2] == 100 * 1 / 2
    assert np.isnan(ev.iou[3:]).all()
    assert math.isnan(ev.mean_iou) and math.isnan(ev.mean_accuracy)
    defined, left_out = ev.mean_iou_defined()
    assert defined == pytest.approx((50 + 100 / 3 + 50) / 3, abs=1e-12)
    assert left_out == list(SEG_LABEL_NAMES[3:])
    assert ev.official and ev.image_ids == ("a", "b")
    # conf: row-normalised percent, empty rows 0
    assert ev.conf[1].tolist()[:2] == [50.0, 50.0] and ev.conf[5].sum() == 0
    assert ev.pixel_accuracy == 100 * 3 / 5


def test_all_labels_present_gives_a_defined_mean():
    gt = np.arange(21, dtype=np.uint8).reshape(3, 7)
    ev = _run({"a": gt}, {"a": gt.copy()})
    assert ev.iou.tolist() == [100.0] * 21 and ev.mean_iou == 100.0


def test_results_wrong_only_on_void_pixels_are_perfect():
    gt = np.array([[255, 1, 255], [0, 0, 255]], np.uint8)
    res = np.array([[7, 1, 3], [0, 0, 20]], np.uint8)
    ev = _run({"a": gt}, {"a": res})
    assert ev.iou[0] == 100 and ev.iou[1] == 100 and ev.confusion.sum() == 3


def test_bad_results_are_left_out_and_named_the_rest_evaluated():
    gt = np.zeros((2, 2), np.uint8)
    gts = {"a": gt, "b": gt, "c": gt, "d": gt}
    res = {
        "a": gt.copy(),
        "b": np.full((2, 2), 255, np.uint8),  # void is not allowed in results
        "c": np.full((2, 2), 21, np.uint8),
        "d": np.zeros((3, 2), np.uint8),  # wrong size
    }
    ev = _run(gts, res)
    assert ev.image_ids == ("a",) and ev.confusion.sum() == 4 and not ev.official
    msgs = [str(p) for p in ev.problems]
    assert len(msgs) == 3
    assert "image b" in msgs[0] and "255" in msgs[0]
    assert "image c" in msgs[1] and "21" in msgs[1]
    assert "image d" in msgs[2] and "2x3" in msgs[2] and "2x2" in msgs[2]


def test_missing_result_is_an_error_naming_it():
    def load_result(i):
        raise FormatError(f"/r/{i}.png", "does not exist")

    with pytest.raises(FormatError, match=r"/r/a\.png"):
        evaluate_voc_seg(["a"], lambda i: np.zeros((1, 1), np.uint8), load_result)
    ev = evaluate_voc_seg(["a"], lambda i: np.zeros((1, 1), np.uint8), load_result, strict=False)
    assert not ev.official and "image a" in str(ev.problems[0]) and ev.image_ids == ()


def test_invalid_gt_values_are_reported_not_counted():
    gt = np.array([[0, 21, 254, 255]], np.uint8)
    res = np.zeros((1, 4), np.uint8)
    ev = _run({"a": gt}, {"a": res})
    assert ev.invalid_gt_pixels == 2 and ev.confusion.sum() == 1 and not ev.official
    assert "2 ground-truth pixels" in str(ev.problems[0])


def test_voc2007_per_class_accuracy_and_pixel_accuracy():
    gts = {"a": np.array([[0, 1], [1, 1]], np.uint8)}
    res = {"a": np.array([[0, 1], [0, 2]], np.uint8)}
    ev = _run(gts, res, protocol="voc2007")
    # background 1/1, class 1 1/3, class 2 no GT -> 0
    assert ev.accuracies[0] == 100.0 and ev.accuracies[1] == 100 * 1 / (1e-20 + 3)
    assert ev.accuracies[2] == 0.0 and not np.isnan(ev.accuracies).any()
    assert ev.mean_accuracy == pytest.approx((100 + 100 / 3) / 21, abs=1e-12)
    assert ev.pixel_accuracy == 50.0
    assert default_seg_protocol(2007) == "voc2007" and default_seg_protocol(2012) == "voc2012"
    assert default_seg_protocol(None) == "voc2012"


def test_random_cases_against_the_loop_reference():
    rng = np.random.default_rng(5)
    for _ in range(30):
        pairs = []
        for _k in range(int(rng.integers(1, 4))):
            h, w = (int(v) for v in rng.integers(1, 12, 2))
            gt = rng.choice([*range(int(rng.integers(1, 22))), 255], size=(h, w)).astype(np.uint8)
            res = rng.integers(0, int(rng.integers(1, 22)), size=(h, w)).astype(np.uint8)
            pairs.append((gt, res))
        acc = SegAccumulator()
        for n, (gt, res) in enumerate(pairs):
            acc.add(str(n), gt, res)
        ev = acc.finish(image_set="x", protocol="voc2012")
        c = reference_confusion(pairs)
        assert ev.confusion.tolist() == c
        ref = reference_iou(c)
        np.testing.assert_allclose(ev.iou, ref, rtol=0, atol=1e-12, equal_nan=True)
        ref_mean = sum(ref) / 21
        assert (math.isnan(ev.mean_iou) and math.isnan(ref_mean)) or abs(
            ev.mean_iou - ref_mean
        ) <= 1e-12


def test_confusion_counts_is_one_bincount():
    c, bad = confusion_counts(np.array([[1, 1]]), np.array([[0, 1]]))
    assert c.shape == (21, 21) and c[1, 0] == 1 and c[1, 1] == 1 and bad == 0


def test_segmentations_from_detections():
    ds = make_dataset({"a": []}, {"Main/val": ["a"]})  # 500 x 375
    res = make_results(
        ds,
        dets=[
            ("person", "a", 0.9, (2, 2, 4.5, 3)),  # x2 rounds half away: 5
            ("aeroplane", "a", 0.2, (3, 1, 10, 2)),  # earlier class: overwritten by person
            ("car", "a", 0.05, (-5, 370, 3, 400)),  # clipped to the image
        ],
    )
    out = create_segmentations_from_detections(ds, res, ["a"])
    im = out["a"]
    assert im.shape == (375, 500) and im.dtype == np.uint8
    person, aero, car = 15, 1, 7
    assert im[0, 2:10].tolist() == [aero] * 8 and im[1, 1:5].tolist() == [person] * 4
    assert im[1, 5:10].tolist() == [aero] * 5
    assert im[2, 1:5].tolist() == [person] * 4 and im[3].max() == 0
    assert (im[369:, 0:3] == car).all() and im[368].max() == 0
    only = create_segmentations_from_detections(ds, res, ["a"], confidence=0.2)["a"]
    assert only.max() == person and (only[369:] == 0).all() and only[0, 5] == aero


def test_demo_segmentation(demo):
    from vocviewer.families.voc.reader import read_voc
    from vocviewer.families.voc.segmentation_reader import LabelPngLoader, find_segmentation_results
    from vocviewer.formats.label_png import read_label_png

    ds = read_voc(demo.year_dir)
    ids = [str(ds.images.id[i]) for i in ds.image_sets["Segmentation/val"].tolist()]
    folder = find_segmentation_results(demo.results_dir)
    assert folder.competition == "comp6" and folder.image_set == "val"
    gt_load = LabelPngLoader(demo.year_dir / "SegmentationClass")
    ev = evaluate_voc_seg(ids, gt_load, LabelPngLoader(folder.folder), image_set="val")
    pairs = [(read_label_png(gt_load.path_of(i)), read_label_png(folder.png(i))) for i in ids]
    assert ev.official and len(ev.image_ids) == len(ids) > 0
    c = reference_confusion(pairs)
    assert ev.confusion.tolist() == c
    np.testing.assert_allclose(ev.iou, reference_iou(c), atol=1e-12, equal_nan=True)
