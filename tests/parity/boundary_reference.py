"""Boundary AP references, run as a script in a subprocess (cv2 must not load in the test process:
it points Qt at its own plugins).

``python boundary_reference.py GT RES RATIO OUT.npz [API] [--lvis]``: with ``API`` (a checkout of github
bowenc0221/boundary-iou-api), its own ``COCO`` / ``COCOeval(iouType="boundary")``; without, the
same rules built on the real pycocotools ``COCOeval`` and ``cv2.erode`` (the official
``mask_to_boundary``: a 1-pixel zero border, ``round(ratio · diagonal)`` iterations of a 3 × 3
erosion; the pair IoU: crowd GT its mask IoU, else min(mask IoU, boundary IoU); ground truth
ignored by its ``ignore`` field or ``iscrowd``). Writes
``stats``, ``precision``, ``recall``, ``scores`` and the printed summary lines.
"""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Any

import cv2
import numpy as np
from pycocotools import mask as cmask
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval


def boundary_rle(rle: dict[str, Any], ratio: float) -> dict[str, Any]:
    """The boundary of one RLE mask, as an RLE, by ``cv2.erode``."""
    m = cmask.decode(rle)
    h, w = m.shape
    d = max(1, round(float(ratio * np.sqrt(h**2 + w**2))))
    padded = cv2.copyMakeBorder(m, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    eroded = cv2.erode(padded, np.ones((3, 3), np.uint8), iterations=d)[1 : h + 1, 1 : w + 1]
    return cmask.encode(np.asfortranarray((m - eroded)[:, :, None]))[0]  # type: ignore[no-any-return]


class BoundaryEval(COCOeval):  # type: ignore[misc]
    """pycocotools' ``COCOeval`` on masks with the Boundary IoU as its similarity."""

    ratio = 0.02

    def _prepare(self) -> None:
        """The fork's ignore rule: an ``ignore`` field or ``iscrowd`` (pycocotools overwrites
        ``ignore`` with ``iscrowd``)."""
        flags = {a["id"]: a.get("ignore", 0) for a in self.cocoGt.dataset["annotations"]}
        super()._prepare()
        for gts in self._gts.values():
            for g in gts:
                g["ignore"] = flags[g["id"]] or g.get("iscrowd", 0)

    def computeIoU(self, img: int, cat: int) -> Any:
        p = self.params
        if p.useCats:
            gt, dt = self._gts[img, cat], self._dts[img, cat]
        else:
            gt = [g for c in p.catIds for g in self._gts[img, c]]
            dt = [d for c in p.catIds for d in self._dts[img, c]]
        if not gt and not dt:
            return []
        order = np.argsort([-d["score"] for d in dt], kind="mergesort")
        dt = [dt[i] for i in order][: p.maxDets[-1]]
        crowd = [int(g["iscrowd"]) for g in gt]
        m = np.array(
            cmask.iou([d["segmentation"] for d in dt], [g["segmentation"] for g in gt], crowd)
        )
        if not gt or not dt:
            return m
        db = [boundary_rle(d["segmentation"], self.ratio) for d in dt]
        gb = [boundary_rle(g["segmentation"], self.ratio) for g in gt]
        b = np.array(cmask.iou(db, gb, crowd))
        plain = np.array(crowd) == 0
        m[:, plain] = np.minimum(m[:, plain], b[:, plain])
        return m


def _lvis_run(gt_path: str, res_path: str, ratio: float, api: str | None) -> dict[str, Any]:
    """LVIS: the fork's ``LVISEval(iou_type="boundary")`` from ``api``; without, the ``lvis``
    package's with the Boundary IoU (the fork's crowd and area-bound rules not restated: data
    without crowd flags or areas on a range's bound)."""
    setattr(np, "float", float)  # noqa: B010  # numpy < 1.24's alias, used by both
    if api:
        sys.path.insert(0, api)
        from boundary_iou.lvis_instance_api.eval import LVISEval

        ev = LVISEval(gt_path, res_path, iou_type="boundary", dilation_ratio=ratio)
    else:
        from lvis import LVISEval as Plain

        class LVISEval(Plain):  # type: ignore[no-redef]
            def compute_iou(self, img: int, cat: int) -> Any:
                gt, dt = self._get_gt_dt(img, cat)
                if not gt and not dt:
                    return []
                dt = [dt[i] for i in np.argsort([-d["score"] for d in dt], kind="mergesort")]
                crowd = [0] * len(gt)
                masks = [d["segmentation"] for d in dt], [g["segmentation"] for g in gt]
                m = np.array(cmask.iou(*masks, crowd))
                if not gt or not dt:
                    return m
                db = [boundary_rle(d["segmentation"], ratio) for d in dt]
                gb = [boundary_rle(g["segmentation"], ratio) for g in gt]
                return np.minimum(m, np.array(cmask.iou(db, gb, crowd)))

        ev = LVISEval(gt_path, res_path, "segm")
    ev.run()
    return {
        "stats": np.array(list(ev.results.values()), dtype=np.float64),
        "precision": ev.eval["precision"],
        "recall": ev.eval["recall"],
    }


def run(gt_path: str, res_path: str, ratio: float, api: str | None) -> dict[str, Any]:
    with contextlib.redirect_stdout(io.StringIO()) as buf:
        if api:
            sys.path.insert(0, api)
            setattr(np, "float", float)  # noqa: B010  # the official code's alias (numpy < 1.24)
            from boundary_iou.coco_instance_api.coco import COCO as BCOCO
            from boundary_iou.coco_instance_api.cocoeval import COCOeval as BCOCOeval

            gt = BCOCO(gt_path, get_boundary=True, dilation_ratio=ratio)
            ev = BCOCOeval(gt, gt.loadRes(res_path), iouType="boundary", dilation_ratio=ratio)
        else:
            gt = COCO(gt_path)
            ev = BoundaryEval(gt, gt.loadRes(res_path), "segm")
            ev.ratio = ratio
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    lines = buf.getvalue().splitlines()[-len(ev.stats) :]
    return {
        "stats": np.asarray(ev.stats),
        "precision": ev.eval["precision"],
        "recall": ev.eval["recall"],
        "scores": ev.eval["scores"],
        "lines": np.array(lines),
    }


if __name__ == "__main__":
    lvis = "--lvis" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--lvis"]
    gt_path, res_path, ratio, out = args[:4]
    api = args[4] if len(args) > 4 else None
    np.savez(out, **(_lvis_run if lvis else run)(gt_path, res_path, float(ratio), api))
