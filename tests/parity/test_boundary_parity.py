"""Boundary AP (``--task boundary``) against boundary-iou-api's rules: stats, precision, recall and
scores equal to 1e-12, and the printed summary line for line.

References (``boundary_reference.py``, run in a subprocess: cv2 must not load with Qt): always
the real pycocotools ``COCOeval`` with the official ``mask_to_boundary`` on ``cv2.erode`` as its
IoU; and, where ``VOCVIEWER_BOUNDARY_IOU_API`` names a checkout of github
bowenc0221/boundary-iou-api (it is not on the package index), the official ``COCOeval(iouType=
"boundary")`` itself. Data: generated polygons and RLE masks on images of several sizes (500 × 375
rounds its dilation half to even), crowd regions, ``ignore`` flags, results with and without ``bbox``, several
dilation ratios; coco-mini with jittered results (skipped when absent).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pycocotools")
pytest.importorskip("cv2")  # installed with tidecv ([test] extra); imported by the subprocess only
from pycocotools import mask as cmask

from vocviewer.core.mask_boundary import boundaries, dilation
from vocviewer.core.masks import decode, encode
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco, summary_lines
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

HERE = Path(__file__).resolve().parent
MINI = HERE.parents[1] / ".." / "shared" / "data" / "coco-mini" / "annotations"
API = os.environ.get("VOCVIEWER_BOUNDARY_IOU_API")
REFS = [
    "restated",
    pytest.param(
        "official", marks=pytest.mark.skipif(not API, reason="set VOCVIEWER_BOUNDARY_IOU_API")
    ),
]
SIZES = [(375, 500), (480, 640), (97, 61), (200, 300)]  # (height, width)


def _polygon(rng: np.random.Generator, h: int, w: int) -> list[float]:
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    n = int(rng.integers(3, 9))
    ang = np.sort(rng.uniform(0, 2 * np.pi, n))
    r = rng.uniform(3, min(h, w) / 2.5) * rng.uniform(0.5, 1.0, n)
    xs, ys = np.clip(cx + r * np.cos(ang), 0, w), np.clip(cy + r * np.sin(ang), 0, h)
    return [float(v) for xy in zip(xs, ys, strict=True) for v in xy]


def _rle(polys: list[list[float]], h: int, w: int) -> dict[str, Any]:
    r = cmask.merge(cmask.frPyObjects(polys, h, w))
    return {"size": r["size"], "counts": r["counts"].decode()}


def generate(seed: int, with_bbox: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ground truth (polygons, a few crowd RLE regions) on images of ``SIZES`` and results
    jittered / moved / relabelled / invented from it (RLE; ``bbox`` too with ``with_bbox``)."""
    rng = np.random.default_rng(seed)
    images = [
        {"id": i + 1, "height": h, "width": w, "file_name": f"{i}.jpg"}
        for i, (h, w) in enumerate(SIZES)
    ]
    cats = [{"id": c, "name": f"c{c}"} for c in (1, 2, 5)]
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []
    for im in images:
        h, w = im["height"], im["width"]
        for _ in range(int(rng.integers(2, 9))):
            polys = [_polygon(rng, h, w) for _ in range(int(rng.integers(1, 3)))]
            crowd = rng.random() < 0.12
            rle = _rle(polys, h, w)
            area = float(cmask.area(rle))
            if area == 0:
                continue
            cat = int(rng.choice([1, 2, 5]))
            # an ``ignore`` flag: honoured by the fork (pycocotools overwrites it)
            flags = {"ignore": 1} if not crowd and rng.random() < 0.1 else {}
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": cat,
                    "segmentation": rle if crowd else polys,
                    "area": area,
                    "bbox": [float(v) for v in cmask.toBbox(rle)],
                    "iscrowd": int(crowd),
                    **flags,
                }
            )
            for _ in range(int(rng.integers(0, 4))):
                jit = [
                    list(np.asarray(p) + rng.normal(0, rng.choice([0.5, 2, 6]), len(p)))
                    for p in polys
                ]
                c = cat if rng.random() > 0.1 else int(rng.choice([1, 2, 5]))
                dets.append(
                    {"image_id": im["id"], "category_id": c, "segmentation": _rle(jit, h, w)}
                )
        for _ in range(int(rng.integers(0, 4))):  # pure false positives
            dets.append(
                {
                    "image_id": im["id"],
                    "category_id": int(rng.choice([1, 2, 5])),
                    "segmentation": _rle([_polygon(rng, h, w)], h, w),
                }
            )
    for d in dets:
        d["score"] = round(float(rng.random()), 2)  # ties included
        if with_bbox:
            d["bbox"] = [float(v) for v in cmask.toBbox(d["segmentation"])]
    return {"images": images, "categories": cats, "annotations": anns}, dets


def reference(gt: Path, res: Path, ratio: float, which: str, tmp: Path) -> dict[str, Any]:
    out = tmp / f"ref-{which}.npz"
    cmd = [
        sys.executable,
        str(HERE / "boundary_reference.py"),
        str(gt),
        str(res),
        repr(ratio),
        str(out),
    ]
    if which == "official":
        cmd.append(str(API))
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    with np.load(out) as z:
        return {k: z[k] for k in z.files}


def run_both(gt: Path, res: Path, ratio: float, which: str, tmp: Path) -> None:
    ref = reference(gt, res, ratio, which, tmp)
    ds = read_coco(gt, masks=True)
    params = CocoParams.for_task("boundary", dilation_ratio=ratio)
    ours = evaluate_coco(ds, read_coco_results(ds, res, task="segm"), params)
    for name in ("precision", "recall", "scores"):
        assert ref[name].shape == getattr(ours, name).shape, name
        np.testing.assert_allclose(getattr(ours, name), ref[name], rtol=0, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(list(ours.stats().values()), ref["stats"], rtol=0, atol=1e-12)
    assert summary_lines(ours) == list(ref["lines"])
    segm = evaluate_coco(ds, read_coco_results(ds, res, task="segm"), CocoParams.for_task("segm"))
    assert not np.array_equal(segm.precision, ours.precision)  # the boundary changes the numbers


def _write(tmp: Path, gt: dict[str, Any], dets: list[dict[str, Any]]) -> tuple[Path, Path]:
    (tmp / "gt.json").write_text(json.dumps(gt))
    (tmp / "res.json").write_text(json.dumps(dets))
    return tmp / "gt.json", tmp / "res.json"


@pytest.mark.parametrize("which", REFS)
@pytest.mark.parametrize(
    ("seed", "with_bbox", "ratio"),
    [(0, False, 0.02), (1, True, 0.02), (2, False, 0.05), (3, False, 0.005)],
)
def test_generated(seed: int, with_bbox: bool, ratio: float, which: str, tmp_path: Path) -> None:
    gt, res = _write(tmp_path, *generate(seed, with_bbox))
    run_both(gt, res, ratio, which, tmp_path)


@pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")
@pytest.mark.parametrize("which", REFS)
def test_coco_mini(which: str, tmp_path: Path) -> None:
    from tests.parity.test_coco_parity import gen_segm

    ann = MINI / "instances_val2017.json"
    res = tmp_path / "res.json"
    res.write_text(json.dumps(gen_segm(json.loads(ann.read_text()))))
    run_both(ann, res, 0.02, which, tmp_path)


def test_dilation_rounds_half_to_even() -> None:
    # 0.02 · √(375² + 500²) = 0.02 · 625 = 12.5 exactly: round half to even gives 12
    assert dilation(375, 500) == 12
    assert dilation(480, 640) == 16  # 0.02 · 800 = 16
    assert dilation(10, 10) == 1  # 0.28 rounds to 0: at least one pixel


def test_boundary_of_a_square() -> None:
    """A 10 × 10 square well inside a 100 × 100 image at d = 3 (0.02 · 141.4 = 2.83): its outer
    ring of width 3 (100 − 4 · 4 = 84 pixels); at the image's corner, the border counts as background."""
    m = np.zeros((100, 100), dtype=bool)
    m[40:50, 30:40] = True
    m[0:10, 0:10] = True
    c = encode(m)
    counts, _ = boundaries(
        c, np.array([0, len(c)]), np.array([100]), np.array([100]), np.array([0])
    )
    b = decode(counts, 100, 100)
    inner = np.zeros_like(m)
    inner[43:47, 33:37] = True
    inner[3:7, 3:7] = True
    np.testing.assert_array_equal(b, m & ~inner)


# --- LVIS ---------------------------------------------------------------------------------------


def _lvis_files(tmp: Path, seed: int, crowd: bool) -> tuple[Path, Path]:
    """Generated LVIS files (``lvis_data``: federated traps, an image over 300 results); without
    ``crowd`` the ground truth's ``iscrowd`` flags are cleared (the ``lvis`` package ignores them,
    the boundary fork honours them)."""
    from tests.parity.lvis_data import write_lvis

    ann, res = write_lvis(tmp, seed, kind="segm")
    if not crowd:
        gt = json.loads(ann.read_text())
        for a in gt["annotations"]:
            a["iscrowd"] = 0
        ann.write_text(json.dumps(gt))
    return ann, res


@pytest.mark.parametrize(
    ("which", "crowd"),
    [
        ("restated", False),
        pytest.param(
            "official",
            True,
            marks=pytest.mark.skipif(not API, reason="set VOCVIEWER_BOUNDARY_IOU_API"),
        ),
    ],
)
def test_lvis(which: str, crowd: bool, tmp_path: Path) -> None:
    pytest.importorskip("lvis")
    from vocviewer.families.lvis.evaluate import evaluate_lvis
    from vocviewer.families.lvis.reader import read_lvis, read_lvis_results

    ann, res = _lvis_files(tmp_path, 7, crowd)
    out = tmp_path / "ref.npz"
    cmd = [
        sys.executable,
        str(HERE / "boundary_reference.py"),
        str(ann),
        str(res),
        "0.02",
        str(out),
        "--lvis",
    ]
    if which == "official":
        cmd.append(str(API))
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    with np.load(out) as z:
        ref = {k: z[k] for k in z.files}
    ds = read_lvis(ann, masks=True)
    ours = evaluate_lvis(ds, read_lvis_results(ds, res, task="segm"), "boundary")
    np.testing.assert_allclose(ours.precision, ref["precision"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.recall, ref["recall"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(list(ours.summary().values()), ref["stats"], rtol=0, atol=1e-12)


# --- YOLO and the command line ------------------------------------------------------------------


def _cli_json(argv: list[str], out: Path) -> dict[str, Any]:
    from vocviewer.cli import main

    assert main([*argv, "--json", str(out)]) == 0
    return dict(json.loads(out.read_text()))


@pytest.mark.parametrize("which", REFS)
def test_yolo_segment_labels(which: str, tmp_path: Path) -> None:
    """``eval --task boundary`` of a YOLO split equals the reference on its COCO conversion."""
    from tests.parity.test_yolo_parity import converted
    from tests.parity.yolo_data import make_yolo

    case = make_yolo(tmp_path, "segment", seed=5)
    argv = ["eval", str(case.yaml), "--results", str(case.pred_txt), "--task", "boundary"]
    payload = _cli_json(argv, tmp_path / "ours.json")
    ann, res = converted(case.yaml, case.pred_txt, tmp_path, "segm")
    ref = reference(ann, res, 0.02, which, tmp_path)
    got = np.array(list(payload["summary"].values()), dtype=np.float64)
    np.testing.assert_allclose(got, ref["stats"], rtol=0, atol=1e-12)
    assert payload["task"] == "boundary" and payload["dilation_ratio"] == 0.02
    assert payload["official"] is True and payload["summary"]["AP"] > 0.05


def test_cli_coco(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The header line, the summary lines as the reference prints them, ``dilation_ratio`` in the
    JSON; another ratio is NOT OFFICIAL; ``--dilation-ratio`` without ``--task boundary`` is an
    error."""
    from vocviewer.cli import main

    (tmp_path / "data").mkdir()
    gt, res = _write(tmp_path / "data", *generate(4, False))
    argv = ["eval", str(gt), "--results", str(res), "--task", "boundary"]
    payload = _cli_json(argv, tmp_path / "a.json")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Boundary AP (boundary-iou-api): IoU = min(mask IoU, boundary IoU)")
    ref = reference(gt, res, 0.02, "restated", tmp_path)
    assert out[1:13] == list(ref["lines"])
    assert payload["official"] is True and payload["dilation_ratio"] == 0.02
    np.testing.assert_allclose(list(payload["summary"].values()), ref["stats"], atol=1e-12)
    wide = _cli_json([*argv, "--dilation-ratio", "0.05"], tmp_path / "b.json")
    assert wide["official"] is False and wide["dilation_ratio"] == 0.05
    ref = reference(gt, res, 0.05, "restated", tmp_path)
    np.testing.assert_allclose(list(wide["summary"].values()), ref["stats"], atol=1e-12)
    assert (
        "NOTE: NOT OFFICIAL: dilation ratio 0.05; the protocol uses 0.02" in capsys.readouterr().out
    )
    segm = ["eval", str(gt), "--results", str(res), "--task", "segm", "--dilation-ratio", "0.05"]
    assert main(segm) == 1
    err = capsys.readouterr().err
    assert err == "vocviewer: error: --dilation-ratio applies to --task boundary, not segm\n"


def test_cli_lvis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """LVIS ``eval --task boundary``: its summary is ``evaluate_lvis(..., "boundary")``'s."""
    from vocviewer.families.lvis.evaluate import evaluate_lvis
    from vocviewer.families.lvis.reader import read_lvis, read_lvis_results

    ann, res = _lvis_files(tmp_path, 8, True)
    argv = ["eval", str(ann), "--results", str(res), "--task", "boundary"]
    payload = _cli_json(argv, tmp_path / "o.json")
    assert capsys.readouterr().out.startswith("Boundary AP (boundary-iou-api)")
    ds = read_lvis(ann, masks=True)
    ours = evaluate_lvis(ds, read_lvis_results(ds, res, task="segm"), "boundary")
    got = [np.nan if v is None else v for v in payload["summary"].values()]
    np.testing.assert_allclose(got, list(ours.summary().values()), atol=0)
    segm = evaluate_lvis(ds, read_lvis_results(ds, res, task="segm"), "segm")
    assert ours.summary() != segm.summary()
    assert payload["dilation_ratio"] == 0.02


def test_boundary_cache_shared_by_copies(tmp_path: Path) -> None:
    """``Prepared`` copies (``dataclasses.replace``, as the analysis' per-category cuts make)
    share the boundary cache: each copy's pairs equal those of a fresh ``prepare``."""
    import dataclasses

    from vocviewer.families.coco.prepare import prepare, similarities

    gt, res = _write(tmp_path, *generate(5, False))
    ds = read_coco(gt, masks=True)
    rs = read_coco_results(ds, res, task="segm")
    params = CocoParams.for_task("boundary")
    shared = prepare(ds, rs, params)
    pairs = 0
    for k in range(shared.n_categories):  # each cut holds one category's rows only
        gs, ds_ = shared.gt_slice(k), shared.dt_slice(k)
        ng, nd = gs.stop - gs.start, ds_.stop - ds_.start
        cut = dataclasses.replace(
            shared,
            gt_rows=shared.gt_rows[gs],
            gt_group=shared.gt_group[gs],
            gt_crowd=shared.gt_crowd[gs],
            gt_offsets=np.array([0, ng]),
            dt_rows=shared.dt_rows[ds_],
            dt_group=shared.dt_group[ds_],
            dt_offsets=np.array([0, nd]),
        )
        got = similarities(cut, slice(0, ng), slice(0, nd), cut.gt_group, cut.dt_group)
        fresh = prepare(ds, rs, params)
        want = similarities(fresh, gs, ds_, fresh.gt_group[gs], fresh.dt_group[ds_])
        pairs += len(want[2])
        for x, y in zip(got, want, strict=True):
            np.testing.assert_array_equal(x, y)
    assert pairs > 0  # some category had pairs to compare


def test_analyze_boundary(tmp_path: Path) -> None:
    """``analyze --task boundary``: its mAP and per-class AP are ``eval --task boundary``'s."""
    (tmp_path / "data").mkdir()
    gt, res = _write(tmp_path / "data", *generate(6, False))
    payload = _cli_json(
        ["eval", str(gt), "--results", str(res), "--task", "boundary"], tmp_path / "e.json"
    )
    from vocviewer.cli import main

    out = tmp_path / "a.json"
    argv = ["analyze", str(gt), "--results", str(res), "--task", "boundary", "--bootstrap", "20"]
    assert main([*argv, "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    entry = (
        next(iter(got["sets"].values())) if isinstance(got.get("sets"), dict) else got["sets"][0]
    )
    assert entry["mAP"] == payload["summary"]["AP"]
    for name, c in payload["per_class"].items():
        assert entry["per_class"][name]["ap"] == c["ap"]


def test_kernel_equals_numpy() -> None:
    """``_rle.boundary`` and the numpy path give the same counts (random masks, runs wrapping
    columns, full masks, empty ones, several widths)."""
    from vocviewer import kernel
    from vocviewer.core import rle_columns as rc
    from vocviewer.core.mask_boundary import boundary_counts

    k = kernel.load("_rle")
    if k is None:
        pytest.skip("the compiled kernel is not built")
    rng = np.random.default_rng(11)
    for t in range(300):
        h, w = (int(v) for v in rng.integers(1, 60, 2))
        m = rng.random((h, w)) < rng.random()
        if t % 5 == 0:
            m[:] = t % 10 == 0
        c = encode(m)
        d = int(rng.integers(0, 8))
        s, e, _ = rc.foreground_runs(c, np.array([0, len(c)]))
        np.testing.assert_array_equal(k.boundary(c, h, w, d), boundary_counts(s, e, h, w, d))
    assert k.boundary(np.array([3, 4]), 2, 2, 1) is None  # runs not summing to h * w


def test_views_count_what_the_fork_counts(tmp_path: Path) -> None:
    """The window's class views of a boundary evaluation: true positives plus missed objects
    are the positives the fork counts (``ignore`` flags and crowd regions never missed)."""
    from vocviewer.evaluation.result import Verdict
    from vocviewer.families.coco.view import evaluate_coco_views
    from vocviewer.families.views import ClassView, ViewChoice

    gt, res = _write(tmp_path, *generate(3, False))  # five ``ignore`` flags
    ds = read_coco(gt, masks=True)
    rs = read_coco_results(ds, res, task="segm")
    views = [
        v
        for v in evaluate_coco_views(ds, rs, ViewChoice(), task="boundary")
        if isinstance(v, ClassView)
    ]
    ignored = sum(1 for a in json.loads(gt.read_text())["annotations"] if a.get("ignore"))
    assert ignored > 0
    for v in views:
        tp = int(np.count_nonzero(v.evaluation.verdict == Verdict.TP))
        assert tp + len(v.missed) == int(v.raw.npig[0]) == v.evaluation.npos
