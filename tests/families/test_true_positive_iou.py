"""A true positive carries its similarity with the object it matched (``best_iou``): box IoU for
boxes, mask IoU for masks, OKS for keypoints — each the number pycocotools' ``COCOeval``
computes for that pair (``ious[imgId, catId][d, g]``), on coco-mini with generated results. LRP
reads them for all three (as LRP-Error does: ``bench/check_lrp_official.py``)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import vocviewer
from tests.parity.test_coco_parity import MINI, gen_bbox, gen_keypoints, gen_segm, needs_mini
from vocviewer.evaluation.result import Verdict
from vocviewer.families.beyond_ap import evidence_for
from vocviewer.families.coco.columns import CocoAnnotations
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

pytest.importorskip("pycocotools")
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

CASES = {
    "bbox": ("instances_val2017.json", gen_bbox),
    "segm": ("instances_val2017.json", gen_segm),
    "keypoints": ("person_keypoints_val2017.json", gen_keypoints),
}


def _reference(gt: Path, dt: Path, task: str) -> tuple[COCOeval, dict[tuple[int, int], Any]]:
    """pycocotools' evaluation and, per (image, category), its detections' ids in the order of
    the rows of ``ious``."""
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO(str(gt))
        e = COCOeval(coco, coco.loadRes(str(dt)), task)
        e.evaluate()
    order = {}
    for key in e.ious:
        dts = e._dts[key]
        inds = np.argsort([-d["score"] for d in dts], kind="mergesort")
        order[key] = [dts[i]["id"] for i in inds[: e.params.maxDets[-1]]]
    return e, order


@needs_mini
@pytest.mark.parametrize("task", sorted(CASES))
def test_true_positives_carry_pycocotools_similarity(task: str, tmp_path: Path) -> None:
    name, gen = CASES[task]
    gt = MINI / name
    dt = tmp_path / f"{task}.json"
    dt.write_text(json.dumps(gen(json.loads(gt.read_text()))))
    ds = read_coco(gt, masks=task == "segm")
    rs = read_coco_results(ds, dt, task=task)
    evidence = evidence_for(ds, rs)
    e, order = _reference(gt, dt, task)
    coco = ds.data(CocoAnnotations)
    det, checked = rs.detections, 0
    for ev in evidence.evaluations("det"):
        tp = np.flatnonzero(ev.verdict == Verdict.TP)
        for r in tp.tolist():
            row, obj = int(ev.order[r]), int(ev.best_gt[r])
            key = (int(coco.image_id[det.image_index[row]]), int(coco.category_id[ev.class_index]))
            g_ids = [g["id"] for g in e._gts[key]]
            want = e.ious[key][
                order[key].index(int(det.line[row])), g_ids.index(int(coco.ann_id[obj]))
            ]
            assert ev.best_iou[r] == pytest.approx(want, abs=1e-12), (task, key, row)
            checked += 1
        assert np.all(np.isnan(ev.best_iou[ev.verdict != Verdict.TP]))
    assert checked > 50
    lrp = vocviewer.beyond_ap(ds, rs, evidence=evidence)["lrp"].lrp
    assert lrp is not None  # its localisation: the mean 1 - similarity of the TPs it counts
    for ev in evidence.evaluations("det"):
        c = lrp.per_class.get(ev.class_index)
        if c is not None and c.rank >= 0:
            tp = ev.verdict[: c.rank + 1] == Verdict.TP
            assert c.loc == pytest.approx(np.mean(1 - ev.best_iou[: c.rank + 1][tp]), abs=1e-12)


@needs_mini
def test_the_api_reads_mask_results_with_their_masks(tmp_path: Path) -> None:
    """``vocviewer.beyond_ap`` on paths reads a mask results file with its masks (it failed:
    "segm evaluation needs masks") and gives what the evaluation read for ``segm`` gives."""
    name, gen = CASES["segm"]
    gt = MINI / name
    dt = tmp_path / "segm.json"
    dt.write_text(json.dumps(gen(json.loads(gt.read_text()))))
    by_path = vocviewer.beyond_ap(gt, dt).to_dict()
    ds = read_coco(gt, masks=True)
    rs = read_coco_results(ds, dt, task="segm")
    assert by_path == vocviewer.beyond_ap(ds, rs, evidence=evidence_for(ds, rs)).to_dict()
    assert by_path["lrp"]["moLRP"] is not None


@needs_mini
def test_mask_true_positives_keep_the_iou_their_matching_read(tmp_path: Path) -> None:
    """Mask evaluation keeps each TP's IoU from the similarities its matching read
    (``tp_iou0``, on either path), not computed a second time: bit for bit what
    ``task_pair_iou`` computes for the pair (at the first threshold; other thresholds compute
    it)."""
    from vocviewer.families.coco import view as coco_view
    from vocviewer.families.coco.evaluate import CocoParams, iter_evaluate_coco
    from vocviewer.families.views import ClassView, ViewChoice

    name, gen = CASES["segm"]
    gt = MINI / name
    dt = tmp_path / "segm.json"
    dt.write_text(json.dumps(gen(json.loads(gt.read_text()))))
    ds = read_coco(gt, masks=True)
    rs = read_coco_results(ds, dt, task="segm")
    kept = [raw.tp_iou0 for raw in iter_evaluate_coco(ds, rs, CocoParams.for_task("segm"))]
    assert all(k is not None for k in kept)  # (on the kernel and on the numpy path)
    pair_iou = coco_view.task_pair_iou(ds, rs, "segm")
    assert pair_iou is not None
    checked = 0
    for choice in (ViewChoice(), ViewChoice(iou=0.75)):
        for v in coco_view.evaluate_coco_views(ds, rs, choice, task="segm", diagnose=False):
            if not isinstance(v, ClassView):
                continue
            ev = v.evaluation
            hit = np.flatnonzero((ev.verdict == Verdict.TP) & (ev.best_gt >= 0))
            want = np.full(len(ev.order), np.nan)
            want[hit] = pair_iou(ev.order[hit], ev.best_gt[hit])
            assert ev.best_iou.tobytes() == want.tobytes(), (choice.iou, ev.class_index)
            checked += len(hit)
    assert checked > 50
