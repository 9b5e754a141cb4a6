"""Boundary AP (``--task boundary``) against the official boundary-iou-api.

The official code (github bowenc0221/boundary-iou-api; not on the package index) is run from a
checkout given with ``--api``, in a subprocess (``tests/parity/boundary_reference.py``: its own
``COCO`` / ``COCOeval(iouType="boundary")`` and LVIS ``LVISEval(iou_type="boundary")``; it needs
opencv and pycocotools). Cases: generated COCO masks (crowd regions, score ties, results with
and without ``bbox``, dilation ratios 0.005 / 0.02 / 0.05), coco-mini with jittered masks, a
generated LVIS file with crowd flags. Prints each case's maximum absolute difference over the
precision and recall arrays and the summary, and both run times; exits 1 above 1e-9.

    python bench/check_boundary_official.py --api ~/src/boundary-iou-api [--coco-mini DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.parity import test_boundary_parity as t  # noqa: E402
from tests.parity.test_coco_parity import gen_segm  # noqa: E402
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco  # noqa: E402
from vocviewer.families.coco.reader import read_coco  # noqa: E402
from vocviewer.families.coco.results_reader import read_coco_results  # noqa: E402
from vocviewer.families.lvis.evaluate import evaluate_lvis  # noqa: E402
from vocviewer.families.lvis.reader import read_lvis, read_lvis_results  # noqa: E402


def _coco(gt: Path, res: Path, ratio: float, tmp: Path) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    ref = t.reference(gt, res, ratio, "official", tmp)
    t1 = time.perf_counter()
    ds = read_coco(gt, masks=True)
    params = CocoParams.for_task("boundary", dilation_ratio=ratio)
    ours = evaluate_coco(ds, read_coco_results(ds, res, task="segm"), params)
    t2 = time.perf_counter()
    diffs = [np.abs(ours.precision - ref["precision"]).max()]
    diffs += [np.abs(ours.recall - ref["recall"]).max()]
    diffs += [np.abs(np.array(list(ours.stats().values())) - ref["stats"]).max()]
    return float(max(diffs)), t1 - t0, t2 - t1


def _lvis(tmp: Path) -> tuple[float, float, float]:
    import subprocess

    ann, res = t._lvis_files(tmp, 7, crowd=True)
    out = tmp / "lvis.npz"
    script = str(ROOT / "tests" / "parity" / "boundary_reference.py")
    t0 = time.perf_counter()
    args = [sys.executable, script, str(ann), str(res), "0.02", str(out), str(t.API), "--lvis"]
    subprocess.run(args, check=True, capture_output=True)
    t1 = time.perf_counter()
    ds = read_lvis(ann, masks=True)
    ours = evaluate_lvis(ds, read_lvis_results(ds, res, task="segm"), "boundary")
    t2 = time.perf_counter()
    with np.load(out) as z:
        diffs = [np.abs(ours.precision - z["precision"]).max()]
        diffs += [np.abs(ours.recall - z["recall"]).max()]
        diffs += [np.abs(np.array(list(ours.summary().values())) - z["stats"]).max()]
    return float(max(diffs)), t1 - t0, t2 - t1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--api", type=Path, required=True, help="a boundary-iou-api checkout")
    default_mini = ROOT.parent / "shared" / "data" / "coco-mini"
    ap.add_argument("--coco-mini", type=Path, default=default_mini)
    args = ap.parse_args()
    t.API = str(args.api)
    worst = 0.0
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        cases = []
        for seed, bbox, ratio in [(0, False, 0.02), (1, True, 0.02), (2, False, 0.05)]:
            (tmp / f"g{seed}").mkdir()
            gt, res = t._write(tmp / f"g{seed}", *t.generate(seed, bbox))
            cases.append((f"generated seed {seed} ratio {ratio}", gt, res, ratio))
        (tmp / "g3").mkdir()
        cases.append(
            ("generated seed 3 ratio 0.005", *t._write(tmp / "g3", *t.generate(3, False)), 0.005)
        )
        ann = args.coco_mini / "annotations" / "instances_val2017.json"
        if ann.is_file():
            res = tmp / "mini.json"
            res.write_text(json.dumps(gen_segm(json.loads(ann.read_text()))))
            cases.append(("coco-mini (jittered masks)", ann, res, 0.02))
        for name, gt, res, ratio in cases:
            diff, official, ours = _coco(gt, res, ratio, tmp)
            worst = max(worst, diff)
            print(
                f"COCO {name}: max |diff| {diff:.3g}  (official {official:.2f} s, ours {ours:.2f} s)"
            )
        (tmp / "lvis").mkdir()
        diff, official, ours = _lvis(tmp / "lvis")
        worst = max(worst, diff)
        print(
            f"LVIS generated, crowd flags: max |diff| {diff:.3g}  (official {official:.2f} s, ours {ours:.2f} s)"
        )
    return 1 if worst > 1e-9 else 0


if __name__ == "__main__":
    raise SystemExit(main())
