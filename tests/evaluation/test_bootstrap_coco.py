"""The COCO bootstrap against vocviewer's own ``COCOeval`` (itself equal to pycocotools):
the full data gives summary AP / AP50 to 1e-12, and a replicate equals evaluating the explicitly
resampled dataset (every drawn copy of an image a new image with its annotations and detections).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.evaluation.test_tide import gen_results
from vocviewer.evaluation.bootstrap import BootstrapCancelled, replicate_images
from vocviewer.families.coco.bootstrap import coco_bbox_evidence, coco_bootstrap
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

GT = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini"
GT = GT / "annotations" / "instances_val2017.json"
pytestmark = pytest.mark.skipif(not GT.is_file(), reason="coco-mini not available")


def evaluate(gt_path: Path, res_path: Path) -> tuple[Any, Any, Any]:
    ds = read_coco(gt_path, None, masks=False)
    rs = read_coco_results(ds, res_path, task="bbox")
    return ds, rs, evaluate_coco(ds, rs, CocoParams.for_task("bbox"))


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[Any], Path]:
    gt = json.loads(GT.read_text())
    rng = np.random.default_rng(5)
    res = gen_results(gt, 5)
    for r in res:  # distinct scores: copies of an image rank next to each other
        r["score"] = float(rng.random())
    path = tmp_path_factory.mktemp("bc") / "res.json"
    path.write_text(json.dumps(res))
    return gt, res, path


def test_full_data_is_the_official_summary(case: Any) -> None:
    _, _, res_path = case
    ds, _, ev = evaluate(GT, res_path)
    boot = coco_bootstrap([coco_bbox_evidence(ds, ev, "a")], 3, seed=0)
    stats = ev.stats()
    assert abs(boot.ap.point_map[0] - stats["AP"]) <= 1e-12
    assert abs(boot.ap50.point_map[0] - stats["AP50"]) <= 1e-12
    per_class = np.array([c.ap for c in ev.categories])
    assert np.allclose(boot.ap.point_ap[0], per_class, rtol=0, atol=1e-12, equal_nan=True)


def test_replicate_equals_evaluating_the_resampled_dataset(case: Any, tmp_path: Path) -> None:
    gt, res, res_path = case
    ds, _, ev = evaluate(GT, res_path)
    boot = coco_bootstrap([coco_bbox_evidence(ds, ev, "a")], 3, seed=11, chunk=2)
    ids = [im["id"] for im in gt["images"]]
    assert ids == [int(i) for i in ds.data(CocoAnnotations).image_id]  # units are the JSON's images
    for r in range(3):
        drawn = replicate_images(11, r, len(ids))
        images, anns, dets = [], [], []
        for j, u in enumerate(drawn):
            new = j + 1
            images.append({**gt["images"][u], "id": new})
            anns += [
                {**a, "image_id": new, "id": len(anns) + k + 1}
                for k, a in enumerate(a for a in gt["annotations"] if a["image_id"] == ids[u])
            ]
            dets += [{**d, "image_id": new} for d in res if d["image_id"] == ids[u]]
        g, d = tmp_path / f"gt{r}.json", tmp_path / f"res{r}.json"
        g.write_text(json.dumps({**gt, "images": images, "annotations": anns}))
        d.write_text(json.dumps(dets))
        stats = evaluate(g, d)[2].stats()
        assert abs(boot.ap.map[0, r] - stats["AP"]) <= 1e-12
        assert abs(boot.ap50.map[0, r] - stats["AP50"]) <= 1e-12


def test_seed_interval_and_cancel(case: Any) -> None:
    _, _, res_path = case
    ds, _, ev = evaluate(GT, res_path)
    es = coco_bbox_evidence(ds, ev, "a")
    a = coco_bootstrap([es, es], 40, seed=3, chunk=7)
    b = coco_bootstrap([es, es], 40, seed=3, chunk=40)
    assert np.array_equal(a.ap.map, b.ap.map) and np.array_equal(
        a.ap50.ap, b.ap50.ap, equal_nan=True
    )
    i = a.ap.interval("a")
    assert i.low <= i.point <= i.high and i.low < i.high
    assert a.ap.paired("a", "a").difference.high == 0.0
    seen: list[int] = []
    with pytest.raises(BootstrapCancelled):
        coco_bootstrap(
            [es],
            40,
            chunk=10,
            progress=lambda d, n: seen.append(d),
            cancelled=lambda: len(seen) >= 2,
        )
    assert seen == [10, 20]
