"""Result rows with NaN / infinite / overflowing coordinates: kept, evaluated as false positives,
and no numpy RuntimeWarning on the way (VOC, VisDrone, ILSVRC; the window's diagnosis too).

pytest turns every warning into an error (``filterwarnings = error``); each test also asserts
explicitly that nothing was warned, so it fails even where that setting is relaxed.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np
import pytest

from tests.evaluation.builders import make_dataset, make_results
from tests.evaluation.test_ilsvrc import write_fixture
from tests.evaluation.test_visdrone_reference import write_split
from vocviewer.core.boxes import overlap_pairs
from vocviewer.evaluation.result import Verdict
from vocviewer.families.visdrone.columns import VisDroneDetections

INF, NAN = math.inf, math.nan
#: x1, y1, x2, y2 (VOC, ILSVRC) or left, top, w, h (VisDrone) of the bad row
BAD = {
    "inf-box": (-INF, -INF, INF, INF),
    "nan": (NAN, NAN, NAN, NAN),
    "all-minus-inf": (-INF, -INF, -INF, -INF),
    "all-inf": (INF, INF, INF, INF),
    "one-nan": (1.0, 2.0, NAN, 5.0),
    "1e308-reversed": (1e308, 1e308, -1e308, -1e308),
    "1e308-cover": (-1e308, -1e308, 1e308, 1e308),
    "1e301": (1e300, 1e300, 1e301, 1e301),
}
#: boxes given as numbers the VOC results reader accepts today (``inf`` / huge, no NaN)
READABLE = [k for k, b in BAD.items() if not any(math.isnan(v) for v in b)]


@pytest.mark.parametrize("plus_one", [True, False])
@pytest.mark.parametrize("name", list(BAD))
def test_overlap_of_a_bad_box_is_never_a_match_and_warns_nothing(name, plus_one):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _, ov = overlap_pairs(
            np.array([BAD[name]]), np.array([[1.0, 1, 10, 10]]), plus_one=plus_one
        )
    assert seen == []
    assert not ov[0] >= 0.5  # NaN or below any threshold


def voc_case(box, score=0.97):
    """Two dogs; a TP on each, the bad row on ``a`` (scored highest) and a bad cat row."""
    ds = make_dataset(
        {
            "a": [("dog", (10, 10, 50, 50), False), ("cat", (20, 20, 60, 60), False)],
            "b": [("dog", (1, 1, 30, 30), False)],
        },
        {"Main/val": ["a", "b"]},
    )
    dets = [
        ("dog", "a", 0.9, (10, 10, 50, 50)),
        ("dog", "a", score, box),
        ("dog", "b", 0.5, (1, 1, 30, 30)),
        ("cat", "a", 0.3, box),
    ]
    return ds, make_results(ds, dets)


@pytest.mark.parametrize("score", [0.97, NAN, INF])
@pytest.mark.parametrize("name", list(BAD))
def test_voc_bad_row_is_a_false_positive_with_the_window_diagnosis(name, score):
    from vocviewer.evaluation.analysis import classify_false_positives, explain, missed_objects
    from vocviewer.evaluation.confusion import confusion_matrix, missed_at
    from vocviewer.families.voc import evaluate as voc

    ds, res = voc_case(BAD[name], score)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        evs = {ev.class_index: ev for ev in voc.iter_evaluate_voc_det(ds, res, image_set="val")}
        missed = np.zeros(len(ds.objects), dtype=bool)
        for ev in evs.values():
            fa = classify_false_positives(ds, res, ev)
            missed[missed_objects(ds, ev, ds.images_in_set("val"))] = True
            for rank in range(len(ev)):
                explain(ds, res, ev, rank, analysis=fa)
        missed_at(ds, evs, missed, 0.0)
        confusion_matrix(
            ds, res, evs, missed, score_threshold=0.0, iou_threshold=0.5, plus_one=True
        )
    assert seen == []
    dog = evs[ds.classes.index("dog")]
    det = res.detections
    row = np.flatnonzero((det.label == dog.class_index) & (det.score != 0.9) & (det.score != 0.5))
    bad = int(np.flatnonzero(dog.order == row[0])[0])
    assert dog.verdict[bad] == Verdict.FP
    assert sorted(dog.verdict.tolist()) == [Verdict.TP, Verdict.TP, Verdict.FP]
    assert bad == (2 if math.isnan(score) else 0)  # a NaN score ranks last
    assert dog.ap == pytest.approx(1.0 if math.isnan(score) else 2 / 3, abs=0.05)
    cat = evs[ds.classes.index("cat")]
    assert cat.verdict.tolist() == [Verdict.FP]


@pytest.mark.parametrize("name", READABLE)
def test_voc_bad_line_read_from_a_results_file(tmp_path, demo, name):
    """The same through real files: the demo plus one line on an image holding a car."""
    from vocviewer.families.voc.evaluate import evaluate_voc_det
    from vocviewer.families.voc.reader import read_voc
    from vocviewer.families.voc.results_reader import read_voc_results

    ds = read_voc(demo.year_dir)
    car = ds.classes.index("car")
    rows = np.flatnonzero((ds.objects.label == car) & ~ds.objects.difficult)
    image = next(int(i) for i in ds.objects.image_index[rows] if i in ds.images_in_set("val"))
    src = demo.results_dir / "Main" / "comp4_det_val_car.txt"
    res_dir = tmp_path / "res"
    res_dir.mkdir()
    bad = " ".join(repr(float(v)) for v in BAD[name])
    line = f"{ds.images.id[image]} 0.999 {bad}\n"
    (res_dir / src.name).write_text(src.read_text() + line)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        res = read_voc_results(ds, [res_dir], image_set="val")
        out = evaluate_voc_det(ds, res, image_set="val", classes=[car])
    assert seen == []
    ev = out.classes[0]
    row = len(res.detections) - 1  # the appended line
    assert res.detections.line[row] == len(src.read_text().splitlines()) + 1
    rank = int(np.flatnonzero(ev.order == row)[0])
    assert ev.verdict[rank] == Verdict.FP


def visdrone_case(tmp_path, box):
    """One image with a car, an ignored region, a TP and two bad rows (car, pedestrian); the
    bad rows are put into the read results (the reader's own rule is another matter)."""
    from vocviewer.families.visdrone.reader import read_visdrone, read_visdrone_results

    car = 4
    images = [
        (
            [(0, 0, 20, 20, 1, car), (30, 30, 10, 10, 0, 0)],
            [(0, 0, 20, 20, 0.9, car), (2, 2, 5, 5, 0.95, car), (2, 2, 5, 5, 0.5, 1)],
            60,
            60,
        )
    ]
    split, res_dir = write_split(tmp_path, images)
    ds = read_visdrone(split)
    res = read_visdrone_results(ds, [res_dir])
    vd = res.data(VisDroneDetections)
    ltwh = vd.ltwh.copy()
    ltwh[1:] = box
    with np.errstate(all="ignore"):
        box_xyxy = np.column_stack((ltwh[:, :2], ltwh[:, :2] + ltwh[:, 2:]))
    dets = replace(res.detections, box=box_xyxy)
    return ds, replace(res, detections=dets).with_data(replace(vd, ltwh=ltwh))


@pytest.mark.parametrize("name", list(BAD))
def test_visdrone_bad_row_is_a_false_positive(tmp_path, name):
    from vocviewer.families.registry import benchmark_of
    from vocviewer.families.views import ViewChoice
    from vocviewer.families.visdrone.evaluate import evaluate_visdrone

    ds, res = visdrone_case(tmp_path, BAD[name])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = evaluate_visdrone(ds, res)
        classes = list(benchmark_of(ds).evaluate_views(ds, res, ViewChoice(0.5)))
    assert seen == []
    assert out.det_kept.tolist() == [True, True, True]  # never "inside" the ignored region
    assert out.verdict[:, 0].tolist() == [1, 0, 0]  # TP, then the two bad rows are FPs
    assert classes


@pytest.mark.parametrize("name", READABLE)
def test_ilsvrc_bad_line_is_a_false_positive(tmp_path, name):
    from vocviewer.families.ilsvrc.evaluate import evaluate_ilsvrc_det
    from vocviewer.families.ilsvrc.reader import read_ilsvrc_det, read_ilsvrc_det_results
    from vocviewer.families.registry import benchmark_of
    from vocviewer.families.views import ViewChoice

    box = BAD[name]
    gt, devkit, pred = write_fixture(
        tmp_path, [[(0, 10, 10, 50, 50)]], [(1, 1, 0.9, 10, 10, 50, 50), (1, 1, 0.95, *box)]
    )
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ds = read_ilsvrc_det(gt, devkit)
        res = read_ilsvrc_det_results(ds, pred)
        out = evaluate_ilsvrc_det(ds, res)
        classes = list(benchmark_of(ds).evaluate_views(ds, res, ViewChoice(0.5)))
    assert seen == []
    assert out.verdict.tolist() == [1, 0]
    assert out.ap[0] == pytest.approx(0.5)
    assert classes
