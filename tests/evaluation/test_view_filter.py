"""``filter_masks`` against a plain-Python loop over every box, on the demo and coco-mini, and the
``ViewFilter`` record's JSON round trip."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_tide import gen_results
from tests.gui.conftest import make_tiny
from vocviewer.core.dataset import Dataset
from vocviewer.core.tags import TagEntry, Tags, Target
from vocviewer.core.view_filter import ViewFilter, filter_from, filter_payload, read_filter
from vocviewer.evaluation.confusion import missed_at
from vocviewer.evaluation.view_filter import JudgedSet, filter_masks
from vocviewer.families.evidence import Evidence
from vocviewer.families.registry import open_dataset
from vocviewer.families.suspects import evaluated_sets

GT = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini" / "annotations"
GT = GT / "instances_val2017.json"

THRESHOLD = 0.5


def judged_of(results: Any, evidence: Evidence, index: int = 0) -> JudgedSet:
    """Per detection row its verdict and kind, as the window's ``ResultEvaluations`` keeps them."""
    n = len(results.detections)
    verdict = np.full(n, -1, np.int8)
    kind = np.full(n, -1, np.int8)
    for view in evidence.views("det"):
        ev = view.evaluation
        verdict[ev.order] = ev.verdict
        if view.false_positives is not None:
            kind[ev.order] = view.false_positives.kind
    return JudgedSet(results.detections, verdict, kind, index)


def missed_of(dataset: Dataset, evidence: Evidence) -> np.ndarray:
    missed = np.zeros(len(dataset.objects), bool)
    for view in evidence.views("det"):
        missed[view.missed[view.missed < len(missed)]] = True
    evals = {v.class_index: v.evaluation for v in evidence.views("det")}
    return missed_at(dataset, evals, missed, THRESHOLD)


def brute(dataset, flt, judged, missed, tags):
    """The module docstring's rule, box by box."""
    one = 1.0 if dataset.plus_one else 0.0
    kinds = {"duplicate": 1, "localization": 2, "similar": 3, "other": 4, "background": 5}
    ids = [str(i) for i in dataset.images.id]

    def inside(v, r):
        return r is None or (r[0] <= v <= r[1])

    def shape_ok(box):
        w, h = box[2] - box[0] + one, box[3] - box[1] + one
        aspect = w / h if h != 0 else (math.copysign(math.inf, w) if w != 0 else math.nan)
        return inside(w * h, flt.area) and inside(aspect, flt.aspect)

    def tagged(target, image):
        if not flt.tags:
            return True
        return any(set(tags.get(t).tags) & set(flt.tags) for t in (target, Target("image", image)))

    o_pass = []
    for n in range(len(dataset.objects)):
        image = ids[dataset.objects.image_index[n]]
        ok = not flt.classes or dataset.classes[dataset.objects.label[n]] in flt.classes
        ok = ok and shape_ok(dataset.objects.box[n])
        pos = int(dataset.objects.order_in_image[n])
        ok = ok and tagged(Target("object", image, pos), image)
        if "missed" in flt.verdicts:
            ok = ok and bool(missed[n])
        o_pass.append(ok)
    det_verdicts = [v for v in flt.verdicts if v != "missed"]
    d_pass = []
    d = judged.detections
    for r in range(len(d)):
        image = ids[d.image_index[r]]
        ok = not flt.classes or dataset.classes[d.label[r]] in flt.classes
        ok = ok and shape_ok(d.box[r]) and inside(d.score[r], flt.score)
        ok = ok and tagged(Target("detection", image, r, judged.index), image)
        v, k = int(judged.verdict[r]), int(judged.fp_kind[r])
        is_fp = v in (2, 3) and (not flt.fp_kinds or k in [kinds[x] for x in flt.fp_kinds])
        if det_verdicts or flt.fp_kinds:
            want = det_verdicts or ["fp"]
            ok = ok and (
                ("tp" in want and v == 1)
                or ("ignored" in want and v == 0)
                or ("fp" in want and is_fp)
            )
        d_pass.append(ok)
    asks_d = flt.score is not None or bool(det_verdicts) or bool(flt.fp_kinds)
    asks_o = "missed" in flt.verdicts
    any_box = asks_d or asks_o or flt.classes or flt.area or flt.aspect or flt.tags
    images = []
    for i, image in enumerate(ids):
        has_o = any(o_pass[n] for n in range(len(o_pass)) if dataset.objects.image_index[n] == i)
        has_d = any(d_pass[r] for r in range(len(d_pass)) if d.image_index[r] == i)
        if asks_d or asks_o:
            keep = (asks_d and has_d) or (asks_o and has_o)
        elif any_box:
            own = bool(flt.tags) and bool(
                set(tags.get(Target("image", image)).tags) & set(flt.tags)
            )
            keep = has_d or has_o or own
        else:
            keep = True
        images.append(keep)
    objects = [o_pass[n] and images[dataset.objects.image_index[n]] for n in range(len(o_pass))]
    dets = [d_pass[r] and images[d.image_index[r]] for r in range(len(d_pass))]
    return images, objects, dets


def some_tags(dataset: Dataset, judged: JudgedSet) -> Tags:
    ids = [str(i) for i in dataset.images.id]
    tags = Tags()
    tags = tags.put(TagEntry(Target("image", ids[1]), ("ambiguous",)))
    n = len(dataset.objects) // 2
    image = ids[dataset.objects.image_index[n]]
    pos = int(dataset.objects.order_in_image[n])
    tags = tags.put(TagEntry(Target("object", image, pos), ("loose box",)))
    r = len(judged.detections) // 3
    image = ids[judged.detections.image_index[r]]
    tags = tags.put(TagEntry(Target("detection", image, r, judged.index), ("missing annotation",)))
    return tags.put(TagEntry(Target("detection", image, r + 1, 7), ("loose box",)))  # other set


FILTERS = [
    ViewFilter(),
    ViewFilter(score=(0.8, math.inf), fp_kinds=("background",)),
    ViewFilter(score=(0.8, math.inf), fp_kinds=("background",), area=(-math.inf, 32.0**2)),
    ViewFilter(verdicts=("fp", "missed")),
    ViewFilter(verdicts=("tp",), fp_kinds=("duplicate", "localization")),
    ViewFilter(verdicts=("ignored",)),
    ViewFilter(verdicts=("missed",), aspect=(2.0, math.inf)),
    ViewFilter(area=(96.0**2, math.inf)),
    ViewFilter(aspect=(0.5, 1.0), score=(0.2, 0.6)),
    ViewFilter(tags=("ambiguous", "loose box", "missing annotation")),
    ViewFilter(tags=("loose box",), verdicts=("fp",)),
]


def _check(dataset: Dataset, judged: JudgedSet, missed: np.ndarray, classes: tuple[str, ...]):
    tags = some_tags(dataset, judged)
    for base in FILTERS:
        for flt in (base, ViewFilter(**{**base.__dict__, "classes": classes})):
            masks = filter_masks(dataset, flt, judged, missed, tags)
            images, objects, dets = brute(dataset, flt, judged, missed, tags)
            assert masks.images.tolist() == images, flt
            assert masks.objects.tolist() == objects, flt
            assert masks.detections.tolist() == dets, flt
            assert masks.counts() == (sum(images), sum(objects), sum(dets))


def test_masks_equal_a_loop_on_the_demo(demo) -> None:
    dataset = open_dataset(demo.year_dir)
    ((_, results, evidence),) = evaluated_sets(dataset, [demo.results_dir], "val")
    judged = judged_of(results, evidence)
    missed = missed_of(dataset, evidence)
    # the filters are not all empty: each keeps something and drops something
    masks = filter_masks(dataset, FILTERS[1], judged, missed, Tags())
    assert 0 < masks.counts()[0] < len(dataset.images) and masks.counts()[2] > 0
    _check(dataset, judged, missed, ("dog", "cat"))


@pytest.mark.skipif(not GT.is_file(), reason="coco-mini not available")
def test_masks_equal_a_loop_on_coco_mini(tmp_path: Path) -> None:
    path = tmp_path / "res.json"
    path.write_text(json.dumps(gen_results(json.loads(GT.read_text()), 3)))
    dataset = open_dataset(GT, images=GT.parents[1] / "val2017")
    ((_, results, evidence),) = evaluated_sets(dataset, [path])
    judged = judged_of(results, evidence, index=0)
    missed = missed_of(dataset, evidence)
    assert int(np.count_nonzero(judged.verdict == 2)) > 0 and missed.any()
    _check(dataset, judged, missed, ("person", "car"))


def test_without_results_no_detection_passes(tmp_path: Path) -> None:
    dataset, _ = make_tiny(tmp_path)
    assert filter_masks(dataset, ViewFilter(score=(0.5, 1.0))).counts() == (0, 0, 0)
    every = filter_masks(dataset, ViewFilter(classes=("dog",)))
    assert every.images.tolist() == [True, False, True] and every.counts()[1] == 2


def test_filter_json_round_trip_and_dropped_values() -> None:
    flt = ViewFilter(
        text="2012",
        flags=("truncated", "difficult"),
        score=(0.8, math.inf),
        classes=("dog",),
        verdicts=("fp", "missed"),
        fp_kinds=("background",),
        area=(-math.inf, 1024),
        aspect=(0.5, 2),
        tags=("loose box",),
        result_set=1,
    )
    payload = json.loads(json.dumps(filter_payload(flt)))
    assert payload["score"] == [0.8, None] and payload["area"] == [None, 1024]
    again, dropped = read_filter(payload, "views[0]")
    assert again == flt and dropped == []
    assert filter_from(payload) == flt  # JSON values are Python values too
    assert filter_from({"classes": "dog", "score": (0.5, 1)}) == ViewFilter(
        classes=("dog",), score=(0.5, 1.0)
    )
    with pytest.raises(ValueError, match="unknown filter field"):
        filter_from({"colour": "red"})
    with pytest.raises(ValueError, match="unknown verdicts"):
        ViewFilter(verdicts=("great",))
    bad = {
        "score": [0.9, 0.1],
        "verdicts": ["nice"],
        "area": "big",
        "result_set": -1,
        "by_score": 1,
    }
    got, dropped = read_filter(bad, "f")
    assert got == ViewFilter()
    assert sorted(w for w, _, _ in dropped) == [
        "f.area",
        "f.by_score",
        "f.result_set",
        "f.score",
        "f.verdicts",
    ]
    assert ViewFilter(score=(None, None)) == ViewFilter()  # an open range is no range
