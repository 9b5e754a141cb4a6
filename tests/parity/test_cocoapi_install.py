"""``vocviewer.cocoapi.install()``: pycocotools' imports resolve to vocviewer's classes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_install_resolves_pycocotools_here(tmp_path: Path) -> None:
    """After ``install()``, pycocotools' documented imports give vocviewer's classes, and the
    documented sequence runs through them (in a fresh interpreter)."""
    code = """
import json, sys
import vocviewer.cocoapi
vocviewer.cocoapi.install()
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval
import pycocotools.mask as maskUtils
import pycocotools
assert COCO is vocviewer.cocoapi.COCO and COCOeval is vocviewer.cocoapi.COCOeval, COCO
assert maskUtils is vocviewer.cocoapi.mask and pycocotools.coco.COCO is COCO
gt = {"images": [{"id": 1, "width": 50, "height": 40}],
      "categories": [{"id": 3, "name": "x"}],
      "annotations": [{"id": 1, "image_id": 1, "category_id": 3, "bbox": [5, 5, 20, 10],
                       "area": 200.0, "iscrowd": 0}]}
path = sys.argv[1]
json.dump(gt, open(path, "w"))
coco = COCO(path)
ev = COCOeval(coco, coco.loadRes([{"image_id": 1, "category_id": 3, "bbox": [5, 6, 20, 10],
                                    "score": 0.9}]), "bbox")
ev.evaluate(); ev.accumulate(); ev.summarize()
print("AP", ev.stats[0], ev.stats[1], ev.stats[2])
"""
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "gt.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # one box, IoU 180 / 220 = 0.818: a hit at the 7 thresholds .50 to .80, a miss at .85 to
    # .95; precision 1 - eps wherever it hits: AP 0.7, AP50 1, AP75 1 (up to eps)
    ap, ap50, ap75 = (float(v) for v in done.stdout.split()[-3:])
    assert abs(ap - 0.7) < 1e-9 and abs(ap50 - 1) < 1e-9 and abs(ap75 - 1) < 1e-9
