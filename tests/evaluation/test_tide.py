"""TIDE's error breakdown: hand-worked cases and parity with the real ``tidecv`` 1.0.1.

``tidecv`` is run on the same COCO JSON files (``datasets.COCO`` / ``datasets.COCOResult``,
``TIDE().evaluate(..., mode=TIDE.BOX)``, ``get_all_errors()``, and per class its ``fix_errors``
objects); every number must be bit-identical and every detection's verdict the same. The parity
tests skip when tidecv is not installed. Shims (test only): ``cv2``, ``matplotlib``, ``pandas`` and ``seaborn`` are stub
modules while ``tidecv`` is imported — it uses them only to draw, and ``cv2`` would point Qt at
its own plugins (``QT_QPA_PLATFORM_PLUGIN_PATH``) in this process — and ``plotting.Plotter`` (built
by ``TIDE()``, which styles seaborn and creates a data folder in the home directory) is a no-op.
No numpy alias is needed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import io
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.evaluation.tide import KIND_NAMES
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.tide import coco_tide

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / ".." / "shared" / "data" / "coco-mini" / "annotations"
TOL = 0.0  # bit-identical: the same float operations in the same order as tidecv
STUBS = ("cv2", "matplotlib", "matplotlib.pyplot", "matplotlib.lines", "pandas", "seaborn")


def _stub(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__getattr__ = lambda attr: 0  # type: ignore[method-assign]
    return mod


@pytest.fixture(scope="module")
def tidecv() -> Iterator[Any]:
    """The real ``tidecv``, imported with the drawing libraries stubbed (see module docstring)."""
    saved = {n: sys.modules.get(n) for n in STUBS}
    sys.modules.update({n: _stub(n) for n in STUBS})
    try:
        try:
            mod = importlib.import_module("tidecv")
        except ImportError:
            pytest.skip("tidecv is not installed (it is in the [test] extra)")
        mod.quantify.P.Plotter = lambda *a, **k: None
        yield mod
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m


def run_tidecv(tidecv: Any, gt_path: Path, res_path: Path) -> tuple[Any, dict[str, Any], str]:
    gt = tidecv.datasets.COCO(str(gt_path))
    preds = tidecv.datasets.COCOResult(str(res_path))
    t = tidecv.TIDE()
    t.evaluate(gt, preds, mode=tidecv.TIDE.BOX)
    errors = t.get_all_errors()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        t.summarize()
    name = preds.name
    out = {"ap": t.runs[name].ap, "main": errors["main"][name], "special": errors["special"][name]}
    return t.runs[name], out, printed.getvalue()


def ours(gt_path: Path, res_path: Path) -> Any:
    ds = read_coco(gt_path, masks=False)
    return coco_tide(ds, read_coco_results(ds, res_path))


def assert_parity(tidecv: Any, gt_path: Path, res_path: Path) -> float:
    """Our numbers and per-detection verdicts equal tidecv's; returns the largest difference."""
    run, ref, printed = run_tidecv(tidecv, gt_path, res_path)
    res = ours(gt_path, res_path)
    diffs = [abs(res.ap - ref["ap"])]
    diffs += [abs(res.main[k] - v) for k, v in ref["main"].items()]
    diffs += [abs(res.special[k] - v) for k, v in ref["special"].items()]
    assert set(res.main) == set(ref["main"]) and set(res.special) == set(ref["special"])
    assert max(diffs) <= TOL, (res.to_json(), ref)
    for k, v in {**res.main, **res.special}.items():  # the printed table, 2 decimals
        assert f"{v:6.2f}" in printed, (k, v, printed)
    # verdicts: tidecv's prediction _id is the entry's index in the results file
    ev = res.evidence
    kinds = {n: c for c, n in KIND_NAMES.items()}
    seen = np.zeros(len(ev.kind), dtype=bool)
    for err in run.errors:
        if hasattr(err, "pred"):
            i = err.pred["_id"]
            assert KIND_NAMES[int(ev.kind[i])] == err.short_name, (i, err.short_name)
            assert bool(ev.ignored[i]) == (err.pred["used"] is None)
            fixable = err.short_name in ("Cls", "Loc") and err.fixed[1] is not None
            assert bool(ev.fixable[i]) == fixable, i
            seen[i] = True
    for p in run.preds.annotations:
        if p.get("used") is True:
            assert ev.kind[p["_id"]] == kinds["TP"]
            seen[p["_id"]] = True
    assert np.array_equal(seen, ev.kind >= 0)
    assert res.counts()["Miss"] == len(run.error_dict[tidecv.MissedError])
    worst = max(max(diffs), per_class_parity(tidecv, run, res, gt_path))
    assert worst <= TOL
    return worst


def per_class_parity(tidecv: Any, run: Any, res: Any, gt_path: Path) -> float:
    """Per-class AP of the baseline and of every fix equal ``tidecv``'s ``fix_errors`` objects
    (tidecv reports only their means); the same classes enter the means."""
    cat_ids = read_coco(gt_path, masks=False).data(CocoAnnotations).category_id.tolist()
    fixed = {"AP": run.ap_data}
    for err in tidecv.TIDE._error_types:
        fixed[err.short_name] = run.fix_errors(lambda e, t=err: isinstance(e, t))
    fixed["FalsePos"] = run.fix_errors(transform=tidecv.FalsePositiveError.fix)
    fixed["FalseNeg"] = run.fix_errors(false_neg_dict=run.false_negatives)
    worst = 0.0
    for name, data in fixed.items():
        ref = {c: o.get_ap() for c, o in data.objs.items() if not o.is_empty()}
        ap = res.class_ap if name == "AP" else res.class_fixed_ap[name]
        counted = res.class_counted[name]
        assert {cat_ids[k] for k in np.flatnonzero(counted)} == set(ref), name
        worst = max([worst] + [abs(ap[cat_ids.index(c)] - v) for c, v in ref.items()])
    return worst


# ---------------------------------------------------------------- synthetic COCO files


def write_case(
    tmp: Path, gts: list[tuple[Any, ...]], dets: list[tuple[Any, ...]], n_images: int = 1
) -> tuple[Path, Path]:
    """``gts``: (image, category, [x, y, w, h], iscrowd); ``dets``: (image, category, box,
    score). Categories 1-3, images 1..n_images of 200 x 200."""
    anns = []
    for i, (img, cat, (x, y, w, h), crowd) in enumerate(gts):
        poly = [[x, y, x + w, y, x + w, y + h, x, y + h]]
        anns.append(
            {
                "id": i + 1,
                "image_id": img,
                "category_id": cat,
                "bbox": [x, y, w, h],
                "area": w * h,
                "iscrowd": crowd,
                "segmentation": poly,
            }
        )
    gt = {
        "images": [
            {"id": i, "file_name": f"{i}.jpg", "width": 200, "height": 200}
            for i in range(1, n_images + 1)
        ],
        "annotations": anns,
        "categories": [{"id": c, "name": f"c{c}"} for c in (1, 2, 3)],
    }
    res = [{"image_id": i, "category_id": c, "bbox": b, "score": s} for i, c, b, s in dets]
    gt_path, res_path = tmp / "gt.json", tmp / "res.json"
    gt_path.write_text(json.dumps(gt))
    res_path.write_text(json.dumps(res))
    return gt_path, res_path


A = [20, 20, 100, 100]
B = [130, 130, 50, 50]
E = [5, 150, 40, 40]
CASES: dict[str, tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], str]] = {
    # name: (ground truth, detections, the verdict of detection 1); a later hit of the error's
    # class (on E) makes the error cost AP
    "Dupe": (
        [(1, 1, A, 0), (1, 1, E, 0)],
        [(1, 1, A, 0.9), (1, 1, [22, 22, 100, 100], 0.8), (1, 1, E, 0.5)],
        "Dupe",
    ),
    "Cls": (
        [(1, 1, A, 0), (1, 2, B, 0), (1, 2, E, 0)],
        [(1, 2, B, 0.9), (1, 2, [21, 21, 100, 100], 0.8), (1, 2, E, 0.5)],
        "Cls",
    ),
    "Loc": ([(1, 1, A, 0), (1, 1, B, 0)], [(1, 1, B, 0.9), (1, 1, [70, 20, 100, 100], 0.8)], "Loc"),
    "Both": (
        [(1, 1, A, 0), (1, 2, B, 0), (1, 2, E, 0)],
        [(1, 2, B, 0.9), (1, 2, [70, 20, 100, 100], 0.8), (1, 2, E, 0.5)],
        "Both",
    ),
    "Bkg": (
        [(1, 1, A, 0), (1, 1, E, 0)],
        [(1, 1, A, 0.7), (1, 1, [150, 5, 40, 40], 0.8), (1, 1, E, 0.5)],
        "Bkg",
    ),
    "Miss": ([(1, 1, A, 0), (1, 1, B, 0)], [(1, 1, A, 0.9), (1, 1, [150, 5, 40, 40], 0.1)], "Bkg"),
    "crowd": (
        [(1, 1, A, 0), (1, 1, [0, 130, 120, 60], 1)],
        [(1, 1, A, 0.6), (1, 1, [10, 140, 50, 40], 0.8)],
        "Bkg",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_error_type_alone(tmp_path: Path, name: str) -> None:
    gts, dets, second = CASES[name]
    res = ours(*write_case(tmp_path, gts, dets))
    assert KIND_NAMES[int(res.evidence.kind[1])] == second
    nonzero = {k for k, v in res.main.items() if v > 0}
    expected = {"Miss": {"Miss"}, "crowd": set(), "Both": {"Both", "Miss"}}.get(name, {name})
    assert nonzero == expected
    assert bool(res.evidence.ignored[1]) == (name == "crowd")


def test_fixing_localisation_gives_the_hand_worked_ap(tmp_path: Path) -> None:
    """Two objects, a hit (0.9) and a poorly placed box on the other (0.8): recall 0.5 at
    precision 1 fills 51 of the 101 recall levels; the fixed box completes the curve."""
    res = ours(*write_case(tmp_path, *CASES["Loc"][:2]))
    assert res.ap == pytest.approx(5100 / 101, abs=1e-12)
    assert res.main["Loc"] == pytest.approx(100 - 5100 / 101, abs=1e-12)
    assert res.special["FalsePos"] == pytest.approx(0.0, abs=1e-12)
    assert res.special["FalseNeg"] == pytest.approx(100 - 5100 / 101, abs=1e-12)
    assert res.evidence.fixable[-1]
    assert res.to_json()["main"].keys() == {"Cls", "Loc", "Both", "Dupe", "Bkg", "Miss"}
    assert res.to_json()["special"].keys() == {"FalsePos", "FalseNeg"}


def test_only_the_best_claimant_is_fixed(tmp_path: Path) -> None:
    """A Cls error (0.9) and a Loc error (0.8) aim at the same missed object: fixing Cls turns
    the first into a hit; the Loc error is removed when Loc is fixed; no Miss is left."""
    gts = [(1, 1, A, 0)]
    dets = [(1, 2, [21, 21, 100, 100], 0.9), (1, 1, [70, 20, 100, 100], 0.8)]
    res = ours(*write_case(tmp_path, gts, dets))
    ev = res.evidence
    assert [KIND_NAMES[int(k)] for k in ev.kind] == ["Cls", "Loc"]
    assert ev.fixable.tolist() == [True, False]
    assert ev.gt.tolist() == [0, 0] and not ev.gt_missed.any()
    assert res.main["Cls"] == pytest.approx(100.0) and res.main["Miss"] == 0.0


def test_per_class_breakdown(tmp_path: Path) -> None:
    gts = [(1, 1, A, 0), (1, 2, B, 0)]
    dets = [(1, 1, A, 0.9), (1, 2, [150, 150, 50, 50], 0.8), (1, 3, [0, 0, 5, 5], 0.7)]
    res = ours(*write_case(tmp_path, gts, dets))
    assert res.class_ap.tolist() == [100.0, 0.0, 0.0]
    assert res.class_delta("Loc").tolist() == [0.0, 100.0, 0.0]
    # c3 has only a background box: fixing Bkg empties it, so it leaves the mean
    assert res.class_counted["Bkg"].tolist() == [True, True, False]
    assert res.main["Bkg"] == pytest.approx(50 - 100 / 3)
    assert set(res.to_json(per_class=True)["per_class"]) == {"c1", "c2", "c3"}


# ---------------------------------------------------------------- parity with tidecv


def test_parity_on_every_synthetic_case(tidecv: Any, tmp_path: Path) -> None:
    for name, (gts, dets, _) in CASES.items():
        folder = tmp_path / name
        folder.mkdir()
        assert_parity(tidecv, *write_case(folder, gts, dets))


def test_parity_on_a_mixed_synthetic_set(tidecv: Any, tmp_path: Path) -> None:
    """All cases in one file (one image each), an image without GT, one without detections,
    more than 100 detections in an image, and tied scores."""
    gts: list[tuple[Any, ...]] = []
    dets: list[tuple[Any, ...]] = []
    for i, (g, d, _) in enumerate(CASES.values()):
        gts += [(i + 1, *x[1:]) for x in g]
        dets += [(i + 1, *x[1:3], 0.5 if j else x[3]) for j, x in enumerate(d)]
    n = len(CASES)
    gts.append((n + 2, 3, A, 0))
    rng = np.random.default_rng(3)
    for _ in range(130):
        x, y = (float(v) for v in rng.uniform(0, 150, 2))
        dets.append((n + 1, int(rng.integers(1, 4)), [x, y, 30.0, 30.0], round(rng.random(), 1)))
        dets.append((1, 1, [x, y, 30.0, 30.0], round(rng.random(), 1)))
    assert_parity(tidecv, *write_case(tmp_path, gts, dets, n_images=n + 2))


def gen_results(gt: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """Jittered, shifted, relabelled, duplicated and dropped GT, boxes inside crowds, random
    background boxes and one image over 100 detections; scores rounded to 2 decimals (ties)."""
    rng = np.random.default_rng(seed)
    cats = [c["id"] for c in gt["categories"]]
    out = []

    def add(a: dict[str, Any], box: list[float], cat: int) -> None:
        out.append(
            {
                "image_id": a["image_id"],
                "category_id": cat,
                "bbox": [round(float(v), 2) for v in box],
                "score": round(float(rng.random()), 2),
            }
        )

    for a in gt["annotations"]:
        x, y, w, h = a["bbox"]
        if a["iscrowd"]:
            for _ in range(2):
                add(
                    a,
                    [x + w * rng.uniform(0, 0.5), y + h * rng.uniform(0, 0.5), w / 3, h / 3],
                    a["category_id"],
                )
            continue
        r = rng.random()
        if r < 0.15:
            continue  # missed
        other = int(rng.choice([c for c in cats if c != a["category_id"]]))
        shift = rng.uniform(0.4, 0.8) * w
        jit = rng.normal(0, 0.05, 4) * [w, h, w, h]
        box = [x + jit[0], y + jit[1], max(0.5, w + jit[2]), max(0.5, h + jit[3])]
        if r < 0.3:
            add(a, [x + shift, y, w, h], a["category_id"])  # poorly localised
        elif r < 0.4:
            add(a, box, other)  # wrong class
        elif r < 0.45:
            add(a, [x + shift, y, w, h], other)  # both
        else:
            add(a, box, a["category_id"])
            if rng.random() < 0.25:
                add(a, [x - jit[0], y - jit[1], w, h], a["category_id"])  # duplicate
    for k, im in enumerate(gt["images"]):
        for _ in range(130 if k == 0 else int(rng.integers(0, 10))):
            w, h = float(rng.uniform(5, 150)), float(rng.uniform(5, 150))
            box = [
                float(rng.uniform(0, im["width"] - w)),
                float(rng.uniform(0, im["height"] - h)),
                w,
                h,
            ]
            add({"image_id": im["id"]}, box, int(rng.choice(cats)))
    return out


@pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")
@pytest.mark.parametrize("seed", [1, 2])
def test_parity_on_coco_mini(tidecv: Any, tmp_path: Path, seed: int) -> None:
    gt_path = MINI / "instances_val2017.json"
    gt = json.loads(gt_path.read_text())
    res_path = tmp_path / f"results_{seed}.json"
    res_path.write_text(json.dumps(gen_results(gt, seed)))
    res = ours(gt_path, res_path)
    assert all(v > 0 for v in res.main.values()), res.main  # every error type costs AP
    assert all(v > 0 for v in res.counts().values())
    assert res.evidence.ignored.any()
    assert assert_parity(tidecv, gt_path, res_path) <= TOL


@pytest.mark.parametrize("seed", range(6))
def test_parity_on_grid_scenes(tidecv: Any, tmp_path: Path, seed: int) -> None:
    """Boxes on a 5-pixel grid: IoU exactly 0.5 and 0.1, IoU ties between objects, score ties,
    crowds, images without objects or without detections."""
    rng = np.random.default_rng(seed)
    n_img = 40

    def box() -> list[int]:
        x, y = (int(v) * 5 for v in rng.integers(0, 8, 2))
        return [x, y, *(int(v) * 5 for v in rng.integers(1, 7, 2))]

    gts = [
        (i, int(rng.integers(1, 4)), box(), int(rng.random() < 0.1))
        for i in range(1, n_img + 1)
        for _ in range(int(rng.integers(0, 5)))
    ]
    dets = [
        (i, int(rng.integers(1, 4)), box(), int(rng.integers(1, 6)) / 5)
        for i in range(1, n_img + 1)
        for _ in range(int(rng.integers(0, 8)))
    ]
    for i, c, b, _ in gts[: 2 * len(gts) // 3]:  # hits, near-hits and duplicates
        for _ in range(int(rng.integers(1, 3))):
            shift = 5 * int(rng.integers(0, 2))
            dets.append((i, c if rng.random() < 0.8 else 1, [b[0] + shift, *b[1:]], 0.6))
    assert assert_parity(tidecv, *write_case(tmp_path, gts, dets, n_images=n_img)) <= TOL


def test_no_detections(tmp_path: Path) -> None:
    gt_path, res_path = write_case(tmp_path, [(1, 1, A, 0), (1, 2, B, 0)], [])
    ds = read_coco(gt_path, masks=False)  # an empty list: read only with keep_going (not official)
    res = coco_tide(ds, read_coco_results(ds, res_path, keep_going=True))
    assert res.ap == 0.0 and res.main["Miss"] == 0.0 and res.counts()["Miss"] == 2


def test_parity_on_non_finite_boxes(tidecv: Any, tmp_path: Path) -> None:
    """NaN / inf coordinates (kept by the results rule, refused by today's COCO reader, so the
    boxes are put into the read results directly): pycocotools' IoU of such boxes, the
    NaN-spoils-every-test typing (→ Both) and no RuntimeWarning, as in tidecv."""
    nan, inf = float("nan"), float("inf")
    boxes = [
        [nan, 20, 100, 100],
        [20, 20, nan, 100],
        A,
        [inf, 20, 10, 10],
        [5, 150, inf, 40],
        B,
        [-inf, 0, inf, 50],
    ]
    gts = [(1, 1, A, 0), (1, 1, B, 0), (1, 2, E, 0)]
    dets = [(1, 2 if k == 4 else 1, b, 0.95 - 0.1 * k) for k, b in enumerate(boxes)]
    gt_path, res_path = write_case(tmp_path, gts, [(*d[:2], [1, 1, 1, 1], d[3]) for d in dets])
    ds = read_coco(gt_path, masks=False)
    rs = read_coco_results(ds, res_path)
    coco = dataclasses.replace(rs.data(CocoResults), bbox=np.array(boxes, dtype=float))
    res = coco_tide(ds, rs.with_data(coco))
    assert [KIND_NAMES[int(k)] for k in res.evidence.kind] == [
        "TP",
        "Both",
        "Dupe",
        "Bkg",
        "Bkg",
        "TP",
        "Bkg",
    ]
    write_case(tmp_path, gts, dets)  # the same file with the NaN / Infinity tokens
    _, ref, _ = run_tidecv(tidecv, gt_path, res_path)
    assert (res.ap, res.main, res.special) == (ref["ap"], ref["main"], ref["special"])
