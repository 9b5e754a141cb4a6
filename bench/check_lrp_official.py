"""Optimal LRP (``evaluation.analyses.lrp``) against the authors' own implementation.

The official code is the pycocotools fork in github kemaloksuz/LRP-Error (``pycocotools/``):
give its checkout with ``--lrp-src``. It is copied to a scratch folder and built there with this
interpreter (Cython and a C compiler needed; the fork's ``setup.py`` lists ``maskApi.c`` twice,
which newer setuptools link twice: the copy drops the duplicate; its ``_mask.pyx`` uses numpy
1's ``NPY_OWNDATA``: the copy uses numpy 2's name, as pycocotools itself did). The official ``COCOeval`` then
runs in a subprocess on each case (coco-mini with generated detections, generated data), and the
per-category oLRP, its components and thresholds (area all, 100 detections) are compared with
ours from the same evidence the window and ``vocviewer analyze`` read. Boxes on every case;
with coco-mini also masks (``segm``: the official LRP reads the mask IoU of each true positive)
and keypoints (OKS), the results generated as the parity tests generate them (``tests.parity``,
pycocotools needed). Prints the maximum absolute difference per quantity; exits 1 if any
exceeds 1e-9 or a NaN / missing class differs.

    python bench/check_lrp_official.py --lrp-src ~/src/LRP-Error [--coco-mini DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vocviewer.evaluation.analyses.lrp import optimal_lrp  # noqa: E402
from vocviewer.families.beyond_ap import evidence_for  # noqa: E402
from vocviewer.families.registry import open_dataset, open_results  # noqa: E402

OFFICIAL = """
import json, sys, contextlib, io
import numpy as np
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval
with contextlib.redirect_stdout(io.StringIO()):
    gt = COCO(sys.argv[1]); dt = gt.loadRes(sys.argv[2])
    E = COCOeval(gt, dt, sys.argv[3]); E.evaluate(); E.accumulate(); E.summarize()
names = [c['name'] for c in gt.loadCats(E.params.catIds)]
out = {k: E.eval[k][:, 0, -1].tolist() for k in
       ('olrp', 'olrp_loc', 'olrp_fp', 'olrp_fn', 'lrp_opt_thr')}
out['names'] = names
first = 10 if sys.argv[3] == 'keypoints' else 12  # moLRP and its components in stats
out['stats'] = E.stats[first:first + 4].tolist()
print(json.dumps(out))
"""
KEYS = {
    "olrp": "olrp",
    "olrp_loc": "loc",
    "olrp_fp": "fp",
    "olrp_fn": "fn",
    "lrp_opt_thr": "threshold",
}


def build(src: Path, scratch: Path) -> Path:
    """The fork's ``pycocotools`` built in ``scratch``; returns the folder to put on the path."""
    dst = scratch / "pycocotools"
    shutil.copytree(src / "pycocotools", dst)
    setup = dst / "setup.py"
    setup.write_text(setup.read_text().replace("sources=['./common/maskApi.c', ", "sources=["))
    pyx = dst / "pycocotools" / "_mask.pyx"  # numpy 2 renamed the flag (as pycocotools did)
    pyx.write_text(pyx.read_text().replace("np.NPY_OWNDATA", "np.NPY_ARRAY_OWNDATA"))
    (dst / "pycocotools" / "_mask.c").unlink(missing_ok=True)
    (scratch / "common").symlink_to(dst / "common")
    cmd = [sys.executable, "setup.py", "build_ext", "--inplace"]
    subprocess.run(cmd, cwd=dst, check=True, capture_output=True)
    return dst


def official(path: Path, gt: Path, dt: Path, task: str) -> dict[str, Any]:
    env = {"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-c", OFFICIAL, str(gt), str(dt), task],
        env=env,
        capture_output=True,
        text=True,
    )
    if run.returncode:
        raise SystemExit(f"the official code failed:\n{run.stderr}")
    return dict(json.loads(run.stdout.splitlines()[-1]))


def generated_gt(rng: np.random.Generator, n_images: int, n_cats: int) -> dict[str, Any]:
    images = [
        {"id": i + 1, "width": 640, "height": 480, "file_name": f"{i}.jpg"} for i in range(n_images)
    ]
    cats = [{"id": 3 * k + 1, "name": f"c{k}"} for k in range(n_cats)]
    anns = []
    for img in images:
        for _ in range(int(rng.integers(0, 6))):
            w, h = rng.uniform(4, 200, 2)
            x, y = rng.uniform(0, 640 - w), rng.uniform(0, 480 - h)
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": img["id"],
                    "category_id": cats[int(rng.integers(n_cats))]["id"],
                    "bbox": [x, y, w, h],
                    "area": float(w * h),
                    "iscrowd": int(rng.random() < 0.05),
                }
            )
    return {"images": images, "categories": cats, "annotations": anns}


def generated_dt(rng: np.random.Generator, gt: dict[str, Any]) -> list[dict[str, Any]]:
    """Jittered copies of the objects (some twice, some of another category) and background
    boxes, with scores that tie now and then."""
    cats = [c["id"] for c in gt["categories"]]
    out = []
    for a in gt["annotations"]:
        for _ in range(int(rng.integers(0, 3))):
            x, y, w, h = a["bbox"]
            j = rng.normal(0, 0.12, 4) * [w, h, w, h]
            cat = a["category_id"] if rng.random() < 0.85 else int(rng.choice(cats))
            score = round(float(rng.random()), 2)
            box = [x + j[0], y + j[1], max(w + j[2], 1.0), max(h + j[3], 1.0)]
            out.append({"image_id": a["image_id"], "category_id": cat, "bbox": box, "score": score})
    for img in gt["images"]:
        for _ in range(int(rng.integers(0, 4))):
            w, h = rng.uniform(4, 150, 2)
            box = [float(rng.uniform(0, 600)), float(rng.uniform(0, 400)), float(w), float(h)]
            cat = int(rng.choice(cats))
            out.append(
                {
                    "image_id": img["id"],
                    "category_id": cat,
                    "bbox": box,
                    "score": float(rng.random()),
                }
            )
    return out


def ours(gt: Path, dt: Path) -> tuple[dict[str, dict[str, float]], list[float]]:
    """Per class name our oLRP, components and threshold; moLRP and its mean components."""
    ds = open_dataset(gt)
    ev = evidence_for(ds, open_results(ds, [dt]))
    res = optimal_lrp(ev.evaluations("det"), ev.views("det")[0].iou)
    per = {c.name: {k: getattr(c, k) for k in KEYS.values()} for c in res.per_class.values()}
    return per, list(res.means().values())


def compare(off: dict[str, Any], mine: dict[str, dict[str, float]]) -> dict[str, float]:
    worst = dict.fromkeys(KEYS.values(), 0.0)
    for i, name in enumerate(off["names"]):
        if off["olrp"][i] == -1:  # no objects: left out by both
            assert name not in mine, name
            continue
        for key, attr in KEYS.items():
            a, b = off[key][i], mine[name][attr]
            if math.isnan(a) or math.isnan(b):
                assert math.isnan(a) and math.isnan(b), (name, key, a, b)
                continue
            worst[attr] = max(worst[attr], abs(a - b))
    return worst


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--lrp-src", type=Path, required=True, help="kemaloksuz/LRP-Error checkout")
    p.add_argument("--coco-mini", type=Path, default=ROOT.parent / "shared" / "data" / "coco-mini")
    p.add_argument("--seeds", type=int, default=3, help="generated cases")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        path = build(args.lrp_src, scratch / "build")
        cases: list[tuple[str, Path, list[dict[str, Any]], str]] = []
        mini = args.coco_mini / "annotations" / "instances_val2017.json"
        if mini.is_file():
            from tests.parity.test_coco_parity import gen_keypoints, gen_segm

            rng = np.random.default_rng(0)
            g = json.loads(mini.read_text())
            cases.append(("coco-mini bbox", mini, generated_dt(rng, g), "bbox"))
            cases.append(("coco-mini segm", mini, gen_segm(g), "segm"))
            kp = mini.with_name("person_keypoints_val2017.json")
            cases.append(
                ("coco-mini keypoints", kp, gen_keypoints(json.loads(kp.read_text())), "keypoints")
            )
        for seed in range(args.seeds):
            rng = np.random.default_rng(100 + seed)
            g = generated_gt(rng, 60, 7)
            gpath = scratch / f"gt{seed}.json"
            gpath.write_text(json.dumps(g))
            cases.append((f"generated seed {seed}", gpath, generated_dt(rng, g), "bbox"))
        bad = False
        for name, gt, dets, task in cases:
            dt = scratch / "dt.json"
            dt.write_text(json.dumps(dets))
            off = official(path, gt, dt, task)
            mine, means = ours(gt, dt)
            worst = compare(off, mine)
            mo = means[0]
            worst["means"] = max(abs(a - b) for a, b in zip(means, off["stats"], strict=True))
            print(
                f"{name}: {len(mine)} classes, moLRP {mo:.6f} (official {off['stats'][0]:.6f}); max |diff| "
                + ", ".join(f"{k} {v:.2e}" for k, v in worst.items())
            )
            bad |= any(v > 1e-9 for v in worst.values())
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
