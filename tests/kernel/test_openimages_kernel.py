"""The compiled Open Images matching (``vocviewer/kernel/_greedy.c`` ``openimages_match``)
against the numpy path: every array of ``OpenImagesResult`` (why, matched object, overlap, the
ranking, AP, the tied classes) equal, dtype included, with the kernel and with
``VOCVIEWER_KERNEL=0``, on generated folders with every trap of the challenge (group-of boxes
absorbing several detections, tied scores mixing TPs and FPs, scores <= 0 and <= -10, empty,
inverted, NaN and infinite boxes, images without annotations, the 10,000 cap)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kernel.switch import numpy_path
from tests.kernel.test_match_kernel import assert_same
from tests.parity.openimages_data import predictions, write_openimages, write_predictions
from vocviewer import kernel
from vocviewer.families.openimages.evaluate import MAX_PER_IMAGE_CLASS, Why, evaluate_openimages
from vocviewer.families.openimages.reader import read_openimages
from vocviewer.families.openimages.results_reader import read_openimages_results

pytestmark = pytest.mark.skipif(
    kernel.load("_greedy") is None, reason="the _greedy kernel is not built here"
)


def both(folder, pred):
    """The evaluation on the kernel, then on the numpy path (each reading the files)."""
    ds = read_openimages(folder)
    rs = read_openimages_results(ds, [pred])
    got = evaluate_openimages(ds, rs)
    with numpy_path():
        want = evaluate_openimages(ds, rs)
    return got, want


@pytest.mark.parametrize("seed", range(5))
def test_openimages_both_paths(tmp_path, seed):
    boxes = write_openimages(tmp_path / "oi", seed=seed, n_images=60)
    rows = predictions(boxes, seed=seed + 1)
    first = next(iter(boxes))
    rows += [
        (first, "/m/dog", 0.6, 0.1, float("nan"), 0.1, 0.3),
        (first, "/m/dog", 0.6, float("-inf"), float("inf"), 0.0, 1.0),
        (first, "/m/dog", 0.6, 0.0, float("inf"), 0.0, 0.5),
    ]
    got, want = both(tmp_path / "oi", write_predictions(tmp_path / "pred.csv", rows))
    assert_same(got, want)
    kinds = set(got.why.tolist())
    assert {Why.TP, Why.FP, Why.GROUP_TP, Why.ABSORBED} <= kinds
    assert got.tied  # ties that mix TPs and FPs: the order of numpy's own sort matters


def test_openimages_cap_both_paths(tmp_path):
    """10,005 detections of one class on one image: the lowest five are over the cap."""
    boxes = write_openimages(tmp_path / "oi", seed=7, n_images=12)
    image, objs = next((i, o) for i, o in boxes.items() if o)
    mid, x0, x1, y0, y1, _ = objs[0]
    rng = np.random.default_rng(0)
    n = MAX_PER_IMAGE_CLASS + 5
    rows = [
        (image, mid, round(float(s), 3), x0, x1 + float(j), y0, y1)
        for s, j in zip(rng.random(n), rng.uniform(-0.01, 0.01, n), strict=True)
    ]
    got, want = both(tmp_path / "oi", write_predictions(tmp_path / "pred.csv", rows))
    assert_same(got, want)
    assert int(np.count_nonzero(got.why == Why.OVER_CAP)) == 5
