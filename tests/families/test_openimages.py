"""Open Images challenge protocol on hand-made cases, one trap each; every expected number is
derived in the comments from the rules (PROTOCOLS.md §13), never from running the code.

Hierarchy used throughout: Animal > {Dog, Cat}, Car, Empty (never annotated). Boxes are written
``XMin, XMax, YMin, YMax`` (normalised); ``B`` is the box [0, .5] x [0, .5].
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vocviewer.families.openimages.columns import OpenImagesGroundTruth
from vocviewer.families.openimages.evaluate import Why, evaluate_openimages
from vocviewer.families.openimages.reader import read_openimages
from vocviewer.families.openimages.results_reader import read_openimages_results

CLASSES = (("/m/animal", "Animal"), ("/m/dog", "Dog"), ("/m/cat", "Cat"), ("/m/car", "Car"))
CLASSES += (("/m/empty", "Empty"),)
HIERARCHY = {
    "LabelName": "/m/root",
    "Subcategory": [
        {
            "LabelName": "/m/animal",
            "Subcategory": [{"LabelName": "/m/dog"}, {"LabelName": "/m/cat"}],
        },
        {"LabelName": "/m/car", "Part": [{"LabelName": "/m/dog"}]},
        {"LabelName": "/m/empty"},
    ],
}
B = (0.0, 0.5, 0.0, 0.5)
BOX_HEADER = "ImageID,Source,LabelName,Confidence,XMin,XMax,YMin,YMax,IsOccluded,IsTruncated,IsGroupOf,IsDepiction,IsInside"


def write_folder(tmp: Path, boxes: list[tuple], labels: list[tuple] = ()) -> Path:
    """``boxes``: (image, mid, (xmin, xmax, ymin, ymax), group); ``labels``: (image, mid, conf)."""
    root = tmp / "oi"
    root.mkdir()
    (root / "class-descriptions-boxable.csv").write_text("".join(f"{m},{n}\n" for m, n in CLASSES))
    (root / "bbox_labels_600_hierarchy.json").write_text(json.dumps(HIERARCHY))
    lines = [BOX_HEADER] + [
        f"{i},xclick,{m},1,{b[0]},{b[1]},{b[2]},{b[3]},0,0,{g},0,0" for i, m, b, g in boxes
    ]
    (root / "validation-annotations-bbox.csv").write_text("\n".join(lines) + "\n")
    lab = ["ImageID,Source,LabelName,Confidence"] + [f"{i},human,{m},{c}" for i, m, c in labels]
    (root / "validation-annotations-human-imagelabels-boxable.csv").write_text(
        "\n".join(lab) + "\n"
    )
    return root


def evaluate(tmp: Path, boxes: list[tuple], labels: list[tuple], dets: list[tuple]):
    """``dets``: (image, mid, score, (xmin, xmax, ymin, ymax))."""
    root = write_folder(tmp, boxes, labels)
    rows = ["ImageID,LabelName,Score,XMin,XMax,YMin,YMax"]
    rows += [f"{i},{m},{s},{b[0]},{b[1]},{b[2]},{b[3]}" for i, m, s, b in dets]
    (tmp / "pred.csv").write_text("\n".join(rows) + "\n")
    ds = read_openimages(root)
    res = read_openimages_results(ds, [tmp / "pred.csv"])
    return ds, res, evaluate_openimages(ds, res)


def ap_of(ds, result, name: str) -> float:
    return float(result.ap[ds.classes.index(name)])


def test_boxes_count_for_their_ancestors_detections_do_not(tmp_path: Path) -> None:
    # img1 has one Dog box. Expanded up, it is also an Animal box: Animal has 1 positive and is
    # verified on img1. The Animal detection on it is a TP -> Animal AP 1. The Dog detection
    # elsewhere on the image is a Dog FP and is not expanded to Animal; Dog (1 positive, only an
    # FP) has AP 0. Cat, Car and Empty have no positives (NaN), so mAP = (1 + 0) / 2 = 0.5.
    ds, _, r = evaluate(
        tmp_path,
        [("img1", "/m/dog", B, 0)],
        [],
        [("img1", "/m/animal", 0.9, B), ("img1", "/m/dog", 0.8, (0.6, 0.9, 0.6, 0.9))],
    )
    assert ap_of(ds, r, "Animal") == 1.0 and ap_of(ds, r, "Dog") == 0.0
    assert r.npos.tolist() == [1, 1, 0, 0, 0]
    assert math.isnan(ap_of(ds, r, "Cat")) and r.mean_ap == 0.5


def test_a_group_of_box_absorbs_several_detections_into_one_tp(tmp_path: Path) -> None:
    # img1: a Car group-of box G = the whole image, an ordinary Car box C = [.1,.3]^2.
    # Ranked by score: d1 (.9, on C) IoU 1 -> TP. d2 (.8) and d3 (.6) lie in G (IoA 1), touch
    # no ordinary box -> absorbed. d4 (.7, on C again) has IoU 1 with C, but C is taken and there
    # is no fallback -> not a TP -> it lies inside G -> absorbed too (not a false positive).
    # G adds one TP at its top absorbed score .8. Entries: .9 TP, .8 TP; positives 1 + 1 = 2
    # -> precision 1, 1 / recall .5, 1 -> AP 1.
    c = (0.1, 0.3, 0.1, 0.3)
    ds, _, r = evaluate(
        tmp_path,
        [("img1", "/m/car", (0.0, 1.0, 0.0, 1.0), 1), ("img1", "/m/car", c, 0)],
        [],
        [
            ("img1", "/m/car", 0.9, c),
            ("img1", "/m/car", 0.8, (0.5, 0.7, 0.5, 0.7)),
            ("img1", "/m/car", 0.6, (0.6, 0.8, 0.6, 0.8)),
            ("img1", "/m/car", 0.7, c),
        ],
    )
    assert ap_of(ds, r, "Car") == 1.0 and int(r.npos[3]) == 2
    assert [Why(int(w)) for w in r.why] == [Why.TP, Why.GROUP_TP, Why.ABSORBED, Why.ABSORBED]
    group_row = int(np.flatnonzero(ds.data(OpenImagesGroundTruth).group_of)[0])
    assert r.matched[1:].tolist() == [group_row] * 3


def test_a_group_whose_detections_score_at_most_zero_adds_no_tp(tmp_path: Path) -> None:
    # The only detection inside the group-of box scores -0.5: the group's score stays 0, which
    # is not above 0, so no entry is added; 1 positive, no entry -> AP 0 (not NaN).
    ds, _, r = evaluate(
        tmp_path,
        [("img1", "/m/car", (0.0, 1.0, 0.0, 1.0), 1)],
        [],
        [("img1", "/m/car", -0.5, (0.2, 0.4, 0.2, 0.4))],
    )
    assert ap_of(ds, r, "Car") == 0.0 and Why(int(r.why[0])) == Why.ABSORBED_LOW


def test_a_class_not_verified_on_the_image_is_not_evaluated(tmp_path: Path) -> None:
    # img2 holds only a Dog box and no image label: Cat is not verified there, so the Cat
    # detection (.95) is ignored. img3's Cat box is found by a .5 detection -> Cat AP 1 (with
    # the ignored one counted as an FP first it would be 0.5).
    ds, _, r = evaluate(
        tmp_path,
        [("img2", "/m/dog", B, 0), ("img3", "/m/cat", B, 0)],
        [],
        [("img2", "/m/cat", 0.95, B), ("img3", "/m/cat", 0.5, B)],
    )
    assert ap_of(ds, r, "Cat") == 1.0
    assert Why(int(r.why[0])) == Why.NOT_VERIFIED and Why(int(r.why[1])) == Why.TP


def test_negative_labels_expand_down_positive_labels_up(tmp_path: Path) -> None:
    # img4: Animal verified absent (Confidence 0) -> Dog and Cat verified absent there too, so
    # the Dog detection (.9) on img4 is evaluated: an FP. img5's Dog box is found at .8.
    # Dog entries: .9 FP, .8 TP; 1 positive -> precision 0, .5 / recall 0, 1 -> AP .5.
    # img6: Dog verified present with no box -> Animal verified too (expanded up): the Animal
    # detection there is an FP. Animal's one positive (img5's Dog box expanded) is found by
    # the .7 Animal detection: entries .7 TP, .6 FP -> AP 1.
    ds, _, r = evaluate(
        tmp_path,
        [("img5", "/m/dog", B, 0)],
        [("img4", "/m/animal", 0), ("img6", "/m/dog", 1)],
        [
            ("img4", "/m/dog", 0.9, B),
            ("img5", "/m/dog", 0.8, B),
            ("img5", "/m/animal", 0.7, B),
            ("img6", "/m/animal", 0.6, B),
        ],
    )
    assert ap_of(ds, r, "Dog") == 0.5 and ap_of(ds, r, "Animal") == 1.0
    assert [Why(int(w)) for w in r.why] == [Why.FP, Why.TP, Why.TP, Why.FP]


def test_tied_scores_are_ranked_as_the_challenge_ranks_them(tmp_path: Path) -> None:
    # img7 has a Car box found by a .5 detection; img8 has Car verified absent and a .5 Car
    # detection (an FP). The per-class entries concatenate in image order: [TP .5, FP .5]; the
    # challenge ranks them by np.argsort(scores)[::-1]. If that puts the FP (entry 1) first:
    # precision 0, .5 / recall 0, 1 -> AP .5; else TP first -> AP 1. The note names Car.
    ds, _, r = evaluate(
        tmp_path,
        [("img7", "/m/car", B, 0)],
        [("img8", "/m/car", 0)],
        [("img8", "/m/car", 0.5, B), ("img7", "/m/car", 0.5, B)],
    )
    fp_first = int(np.argsort(np.array([0.5, 0.5]))[::-1][0]) == 1
    assert ap_of(ds, r, "Car") == (0.5 if fp_first else 1.0)
    assert r.tied == (ds.classes.index("Car"),)


def test_a_class_without_positives_is_nan_and_left_out(tmp_path: Path) -> None:
    # Empty is verified absent on img1 and detected there: an FP of a class with 0 positives
    # -> AP NaN, left out. Dog: one box, one TP -> 1; Animal (expanded, not detected) -> 0.
    # mAP = (1 + 0) / 2 = 0.5.
    ds, _, r = evaluate(
        tmp_path,
        [("img1", "/m/dog", B, 0)],
        [("img1", "/m/empty", 0)],
        [("img1", "/m/empty", 0.9, B), ("img1", "/m/dog", 0.8, B)],
    )
    assert math.isnan(ap_of(ds, r, "Empty")) and r.mean_ap == 0.5


def test_invalid_boxes_and_low_scores_are_dropped(tmp_path: Path) -> None:
    # XMin == XMax, XMin > XMax and a score of -12 (not above -10) are dropped before matching:
    # the .4 detection alone finds the Dog box -> AP 1.
    ds, _, r = evaluate(
        tmp_path,
        [("img1", "/m/dog", B, 0)],
        [],
        [
            ("img1", "/m/dog", 0.9, (0.2, 0.2, 0.0, 0.5)),
            ("img1", "/m/dog", 0.8, (0.4, 0.1, 0.0, 0.5)),
            ("img1", "/m/dog", -12.0, B),
            ("img1", "/m/dog", 0.4, B),
        ],
    )
    assert ap_of(ds, r, "Dog") == 1.0
    assert [Why(int(w)) for w in r.why] == [Why.INVALID_BOX, Why.INVALID_BOX, Why.LOW_SCORE, Why.TP]


def test_the_challenge_submission_layout_reads_the_same(tmp_path: Path) -> None:
    # ``LabelName Score XMin YMin XMax YMax``: the order differs from the rows' XMin, XMax.
    root = write_folder(tmp_path, [("img1", "/m/dog", (0.1, 0.4, 0.2, 0.6), 0)])
    sub = tmp_path / "sub.csv"
    sub.write_text("ImageID,PredictionString\nimg1,/m/dog 0.9 0.1 0.2 0.4 0.6 /m/cat 0.3 0 0 1 1\n")
    ds = read_openimages(root)
    res = read_openimages_results(ds, [sub])
    assert res.detections.box[0].tolist() == [0.1, 0.2, 0.4, 0.6]  # xyxy
    assert evaluate_openimages(ds, res).ap[1] == 1.0


def test_eval_prints_the_official_metric_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vocviewer.cli import main

    ds, _, _ = evaluate(tmp_path, [("img1", "/m/dog", B, 0)], [], [("img1", "/m/dog", 0.9, B)])
    assert main(["eval", str(ds.root), "--results", str(tmp_path / "pred.csv")]) == 0
    out = capsys.readouterr()
    lines = out.out.splitlines()
    said = out.err.splitlines()[0]  # what was read, before anything else
    assert "Open Images, 1 images, 1 boxes (0 group-of)" in said
    assert "1 predictions" in said and "normalised to [0, 1]" in said
    # Dog 1 and Animal 0 (its expanded box is not detected): mAP .5
    assert lines[0] == "OpenImagesDetectionChallenge_Precision/mAP@0.5IOU,0.5"
    assert lines[2] == "OpenImagesDetectionChallenge_PerformanceByCategory/AP@0.5IOU//m/dog,1.0"
    assert lines[5] == "OpenImagesDetectionChallenge_PerformanceByCategory/AP@0.5IOU//m/empty,nan"


def test_only_the_first_10000_per_image_and_class_are_kept(tmp_path: Path) -> None:
    # 10,001 Dog detections on img1: the one on the Dog box scores lowest, the others lie far
    # from it. The challenge keeps the 10,000 best of an image and class, so the TP is dropped:
    # 10,000 FPs, 1 positive -> AP 0 (it would be 1 / 10,001 x ... > 0 with the TP kept).
    far = (0.6, 0.9, 0.6, 0.9)
    dets = [("img1", "/m/dog", 0.00001, B)]
    dets += [("img1", "/m/dog", round(0.5 + i * 1e-5, 6), far) for i in range(10_000)]
    ds, _, r = evaluate(tmp_path, [("img1", "/m/dog", B, 0)], [], dets)
    assert ap_of(ds, r, "Dog") == 0.0 and Why(int(r.why[0])) == Why.OVER_CAP
    assert len(r.ranked[ds.classes.index("Dog")]) == 10_000
