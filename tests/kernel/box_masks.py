"""``write_box_mask_results``: a COCO segm results file made from a ground-truth file, one mask
per object (its box, shifted by a few pixels), encoded by pycocotools, for tests that evaluate
mask results read in the different ways the readers keep them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def write_box_mask_results(
    gt_path: Path, path: Path, *, seed: int, shift: int = 5, second_category: bool = False
) -> None:
    """Write to ``path`` one mask result per object of ``gt_path``: its box (pixels, x y w h)
    moved by up to ``shift`` pixels each way, scored in [0.5, 1); with ``second_category`` each
    mask also appears once more under the file's first category (a false positive there)."""
    from pycocotools import mask as pm

    doc = json.loads(gt_path.read_text())
    size = {im["id"]: (im["height"], im["width"]) for im in doc["images"]}
    first = doc["categories"][0]["id"]
    rng = np.random.default_rng(seed)
    entries = []
    for ann in doc["annotations"]:
        h, w = size[ann["image_id"]]
        x, y, bw, bh = (int(v) for v in ann["bbox"])
        m = np.zeros((h, w), dtype=np.uint8, order="F")
        dx, dy = rng.integers(-shift, shift + 1, 2)
        m[max(y + dy, 0) : max(y + dy + bh, 1), max(x + dx, 0) : max(x + dx + bw, 1)] = 1
        seg = {"size": [h, w], "counts": pm.encode(m)["counts"].decode()}
        for cat in (ann["category_id"], first) if second_category else (ann["category_id"],):
            score = 0.5 + float(rng.random()) / 2
            entries.append(
                {"image_id": ann["image_id"], "category_id": cat, "score": score}
                | {"segmentation": seg}
            )
    path.write_text(json.dumps(entries))
