"""The box-only synthetic COCO workload other speed scripts build on (``bench_tide.py``,
``bench_coco_scale.py``, ``bench_gui_open.py`` / ``bench_grid.py``), and a process's own peak
memory.

A val2017-sized set: 5,000 images, ~36,800 GT boxes with COCO's size mix (~41 % small, ~34 %
medium, ~25 % large) and a few crowd regions, 100 detections per image (jittered true boxes with
high scores, background boxes with low scores). It has no polygons, so it under-measures reading
a real annotation file: the side-by-side speed comparison with every peer is ``bench_peers.py``,
on the shared realistic generator.
"""

from __future__ import annotations

import resource
from typing import Any

import numpy as np


def make_workload(n_img: int, seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    images = [
        {"id": int(i), "width": 640, "height": 480, "file_name": f"{i:012d}.jpg"}
        for i in rng.choice(600_000, n_img, replace=False)
    ]
    cats = [{"id": c, "name": f"c{c}"} for c in range(1, 91) if c % 9 != 0][:80]
    cat_ids = np.array([c["id"] for c in cats])
    cat_p = rng.dirichlet(np.full(80, 0.3))
    anns, dets = [], []
    for im in images:
        n = int(rng.poisson(7.36))
        side = np.exp(
            rng.choice(
                [rng.uniform(1.5, 3.46), rng.uniform(3.47, 4.56), rng.uniform(4.57, 6.0)],
                p=[0.41, 0.34, 0.25],
                size=n,
            )
        )
        wh = side[:, None] * np.exp(rng.normal(0, 0.3, (n, 2)))
        wh = np.minimum(wh, [639, 479])
        xy = rng.uniform(0, 1, (n, 2)) * ([640, 480] - wh)
        cs = rng.choice(cat_ids, n, p=cat_p)
        for b, c in zip(np.hstack((xy, wh)).round(2), cs, strict=True):
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": int(c),
                    "bbox": b.tolist(),
                    "area": float(b[2] * b[3] * 0.7),
                    "iscrowd": int(rng.random() < 0.01),
                }
            )
            for _ in range(rng.integers(0, 3)):
                j = b + rng.normal(0, 0.08, 4) * [b[2], b[3], b[2], b[3]]
                j[2:] = np.maximum(j[2:], 1)
                dets.append(
                    {
                        "image_id": im["id"],
                        "category_id": int(c) if rng.random() > 0.1 else int(rng.choice(cat_ids)),
                        "bbox": j.round(2).tolist(),
                        "score": round(float(rng.beta(5, 2)), 3),
                    }
                )
        n_bg = max(0, 100 - sum(1 for d in dets[-20:] if d["image_id"] == im["id"]))
        wh = np.exp(rng.uniform(2, 5.5, (n_bg, 2)))
        wh = np.minimum(wh, [639, 479])
        xy = rng.uniform(0, 1, (n_bg, 2)) * ([640, 480] - wh)
        for b, c, s in zip(
            np.hstack((xy, wh)).round(2),
            rng.choice(cat_ids, n_bg, p=cat_p),
            rng.beta(1, 6, n_bg),
            strict=True,
        ):
            dets.append(
                {
                    "image_id": im["id"],
                    "category_id": int(c),
                    "bbox": b.tolist(),
                    "score": round(float(s), 3),
                }
            )
    return {"images": images, "categories": cats, "annotations": anns}, dets


def own_peak_mb() -> float:
    """This process's own peak resident memory (MB): ``VmHWM`` (Linux), reset by ``exec``,
    unlike ``ru_maxrss``, which a child started by ``subprocess`` inherits from its parent."""
    try:
        with open("/proc/self/status") as fh:
            hwm = [line.split()[1] for line in fh if line.startswith("VmHWM:")]
    except OSError:
        hwm = []
    if hwm:
        return int(hwm[0]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # elsewhere: an upper bound
