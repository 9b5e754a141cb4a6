"""The compiled matching kernel (``vocviewer/kernel/_match.c``) against the numpy path.

Every array of the evaluation (the Evidence's per-category verdicts, matches, ranks; precision,
recall, scores; and ``match_category``'s per-area matching) must be equal, dtype included,
between the kernel and ``VOCVIEWER_KERNEL=0``: on coco-mini, on the shared realistic generator
(boxes and masks), on LVIS-shaped data and on generated cases with score and IoU ties, crowds,
ignored objects, GT id 0 and areas on the range bounds. (pycocotools parity of the numbers is
tests/parity's, run on whichever path is built.)
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.kernel.switch import numpy_path
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco, match_category
from vocviewer.families.coco.match_kernel import available
from vocviewer.families.coco.prepare import prepare
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / ".." / "shared" / "data" / "coco-mini" / "annotations"
GENERATOR = ROOT / ".." / "shared" / "bench" / "gen_coco_workload.py"
needs_kernel = pytest.mark.skipif(not available(), reason="the _match kernel is not built")
pytestmark = needs_kernel


def assert_same(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` equal everywhere: arrays by value and dtype, dataclasses field by field."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype, f"{where}: {a.dtype} != {b.dtype}"
        assert a.shape == b.shape, f"{where}: {a.shape} != {b.shape}"
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, tuple | list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    else:
        assert a == b or (a != a and b != b), f"{where}: {a!r} != {b!r}"


def both_paths(run: Callable[[], Any]) -> tuple[Any, Any]:
    """``run()`` on the kernel, then on the numpy path."""
    kernel = run()
    with numpy_path():
        reference = run()
    return kernel, reference


def check_coco(ann: Path, res: Path, task: str, **params: Any) -> None:
    """``evaluate_coco`` and every category's ``match_category``: kernel == numpy path."""
    ds = read_coco(ann, masks=task == "segm")
    rs = read_coco_results(ds, res, task=task)
    p = CocoParams.for_task(task, **params)
    kernel, reference = both_paths(lambda: evaluate_coco(ds, rs, p))
    assert_same(kernel, reference, "evaluate_coco")
    prep = prepare(ds, rs, p)

    def all_matches() -> list[Any]:
        return [match_category(prep, k) for k in range(prep.n_categories)]

    kernel, reference = both_paths(all_matches)
    assert_same(kernel, reference, "match_category")


# --- real and realistic data ---------------------------------------------------------------


def mini_boxes(tmp_path: Path) -> tuple[Path, Path]:
    """coco-mini's annotation file and a box results file generated from it (in ``tmp_path``)."""
    from tests.parity.test_coco_parity import gen_bbox

    ann = MINI / "instances_val2017.json"
    res = tmp_path / "dt.json"
    res.write_text(json.dumps(gen_bbox(json.loads(ann.read_text()))))
    return ann, res


def mini_boxes_prepared(tmp_path: Path) -> Any:
    """``prepare`` of ``mini_boxes``' files under the default box parameters."""
    ann, res = mini_boxes(tmp_path)
    ds = read_coco(ann, masks=False)
    return prepare(ds, read_coco_results(ds, res), CocoParams())


@pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")
@pytest.mark.parametrize("use_cats", [True, False])
def test_coco_mini_boxes(use_cats: bool, tmp_path: Path) -> None:
    check_coco(*mini_boxes(tmp_path), "bbox", use_cats=use_cats)


@pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")
def test_object_rows_are_the_slice_positions_rows(tmp_path: Path) -> None:
    """``object_rows``: the kernel writes each match's object row (``prep.gt_rows`` at the
    slice position it gives without, -1 for none); every other output unchanged."""
    from vocviewer.families.coco.match_kernel import kernel_categories

    prep = mini_boxes_prepared(tmp_path)
    n = prep.n_categories
    rows, positions = (kernel_categories(prep, 0, n, object_rows=o) for o in (True, False))
    assert rows is not None and positions is not None
    hits = 0
    for k, (r, s) in enumerate(zip(rows, positions, strict=True)):
        assert r.object_rows and not s.object_rows
        assert r.match0.dtype == s.match0.dtype == np.int32
        at = np.append(prep.gt_rows[prep.gt_slice(k)], -1)
        assert np.array_equal(r.match0, at[s.match0])
        assert_same(r.verdict0, s.verdict0)
        assert_same(r.curves, s.curves)
        hits += int((s.match0 >= 0).sum())
    assert hits > 0


@pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")
@pytest.mark.parametrize("max_dets", [(1, 10, 100), (100, 1, 10)])
def test_curves_alone_without_the_evidence(max_dets: tuple[int, ...], tmp_path: Path) -> None:
    """``evidence=False`` (the drop-in's): ``match0`` and ``verdict0`` empty, every other
    output the same as with them (and as the numpy path's curves)."""
    from tests.parity.test_coco_parity import gen_bbox
    from vocviewer.families.coco.match_kernel import kernel_categories

    ann = MINI / "instances_val2017.json"
    res = tmp_path / "dt.json"
    res.write_text(json.dumps(gen_bbox(json.loads(ann.read_text()))))
    ds = read_coco(ann, masks=False)
    prep = prepare(ds, read_coco_results(ds, res), CocoParams(max_dets=max_dets))
    n = prep.n_categories
    with_, alone = (kernel_categories(prep, 0, n, evidence=e) for e in (True, False))
    assert with_ is not None and alone is not None and len(alone) == n
    for k, (w, a) in enumerate(zip(with_, alone, strict=True)):
        assert a.match0.shape == a.verdict0.shape == (0, 0)
        assert w.match0.shape == w.verdict0.shape == (10, len(w.curves.order))
        assert_same(a.curves, w.curves, f"category {k}")
        assert_same(a.npig, w.npig, f"category {k}")
        with numpy_path():
            assert_same(a.curves, match_category(prep, k).curves, f"category {k}")


@pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")
def test_coco_mini_keypoints(tmp_path: Path) -> None:
    pytest.importorskip("pycocotools")
    from tests.parity.test_coco_parity import gen_keypoints

    ann = MINI / "person_keypoints_val2017.json"
    res = tmp_path / "kp.json"
    res.write_text(json.dumps(gen_keypoints(json.loads(ann.read_text()))))
    check_coco(ann, res, "keypoints")


def _generate(out: Path, *extra: str) -> None:
    if not GENERATOR.is_file():
        pytest.skip("the shared workload generator is not available")
    args = [sys.executable, str(GENERATOR), "--images", "60", "--out", str(out), *extra]
    subprocess.run(args, check=True, capture_output=True)


def test_generated_workload_boxes(tmp_path: Path) -> None:
    _generate(tmp_path, "--score-decimals", "2")  # ties across images and within them
    check_coco(tmp_path / "instances_gt.json", tmp_path / "detections_bbox.json", "bbox")


def test_generated_workload_masks(tmp_path: Path) -> None:
    _generate(tmp_path, "--segm", "--dets-per-image", "30")
    res = next(p for p in tmp_path.glob("detections_*.json") if "segm" in p.name)
    check_coco(tmp_path / "instances_gt.json", res, "segm")


@pytest.mark.parametrize("kind", ["bbox", "segm"])
def test_lvis(kind: str, tmp_path: Path) -> None:
    pytest.importorskip("pycocotools")
    from tests.parity.lvis_data import write_lvis
    from vocviewer.families.lvis.evaluate import evaluate_lvis
    from vocviewer.families.lvis.reader import read_lvis, read_lvis_results

    ann, res = write_lvis(tmp_path, 3, kind=kind, ignore=True, crowded=2)
    ds = read_lvis(ann, masks=kind == "segm")
    rs = read_lvis_results(ds, res, task=kind)
    kernel, reference = both_paths(lambda: evaluate_lvis(ds, rs, kind))
    assert_same(kernel, reference, "evaluate_lvis")


def test_numpy_path_when_turned_off() -> None:
    """``VOCVIEWER_KERNEL=0`` really takes the numpy path (what the comparisons rely on)."""
    with numpy_path():
        assert not available()
    assert available()


# --- generated edge cases --------------------------------------------------------------------

COORD = st.sampled_from([0.0, 10.0, 10.5, 20.0, 40.0])
SIZE = st.sampled_from([0.0, 5.0, 10.0, 20.0, 32.0, 96.0, 31.9])
#: areas on and next to the range bounds (32², 96²), and none given (w * h)
AREA = st.sampled_from([None, 0.0, 1024.0, 1023.999, 9216.0, 9216.001, 1e10])
SCORE = st.sampled_from([0.1, 0.5, 0.5, 0.9, 1.0])


@st.composite
def scenes(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Ground truth and detections on 3 images x 2 categories: boxes on a coarse grid (IoU
    ties), crowds, GT id 0, detections copying GT boxes, tied scores."""
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []
    first_id = draw(st.sampled_from([0, 1]))
    for img in (1, 2, 7):
        for cat in (1, 3):
            for _ in range(draw(st.integers(0, 4))):
                box = [draw(COORD), draw(COORD), draw(SIZE), draw(SIZE)]
                a: dict[str, Any] = {
                    "id": first_id + len(anns),
                    "image_id": img,
                    "category_id": cat,
                    "bbox": box,
                    "iscrowd": int(draw(st.integers(0, 5)) == 0),
                }
                area = draw(AREA)
                if area is not None:
                    a["area"] = area
                anns.append(a)
        for _ in range(draw(st.integers(0, 7))):
            cat = draw(st.sampled_from([1, 3]))
            same = [a["bbox"] for a in anns if a["image_id"] == img]
            if same and draw(st.booleans()):
                x, y, w, h = draw(st.sampled_from(same))
                box = [x + draw(st.sampled_from([0.0, 0.5, 2.0])), y, w, h]
            else:
                box = [draw(COORD), draw(COORD), draw(SIZE), draw(SIZE)]
            dets.append({"image_id": img, "category_id": cat, "bbox": box, "score": draw(SCORE)})
    if not dets:  # (pycocotools' loadRes cannot read an empty list)
        dets.append({"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.5})
    return anns, dets


def _write(folder: Path, anns: list[dict[str, Any]], dets: list[dict[str, Any]]) -> None:
    for a in anns:
        x, y, w, h = a["bbox"]
        a.setdefault("area", w * h)
        a["segmentation"] = [[x, y, x, y + h, x + w, y + h, x + w, y]]
    gt = {
        "images": [
            {"id": i, "width": 640, "height": 480, "file_name": f"{i}.jpg"} for i in (1, 2, 7)
        ],
        "categories": [{"id": 1, "name": "a"}, {"id": 3, "name": "b"}],
        "annotations": anns,
    }
    (folder / "gt.json").write_text(json.dumps(gt))
    (folder / "dt.json").write_text(json.dumps(dets))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scene=scenes(),
    max_dets=st.sampled_from([(1, 10, 100), (1, 2, 3), (2,)]),
    use_cats=st.booleans(),
    fix_id0=st.booleans(),
)
def test_generated_cases(
    scene: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    max_dets: tuple[int, ...],
    use_cats: bool,
    fix_id0: bool,
) -> None:
    anns, dets = scene
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write(folder, anns, dets)
        check_coco(
            folder / "gt.json",
            folder / "dt.json",
            "bbox",
            use_cats=use_cats,
            max_dets=max_dets,
            fix_id0=fix_id0,
        )


def test_many_images_tied_scores(tmp_path: Path) -> None:
    """A category on more images (groups: runs of the rank sort) than the kernel merges (it
    sorts by radix then): tied scores across images, -0.0 and 0.0, infinite and NaN ones keep
    the numpy path's order and curves."""
    rng = np.random.default_rng(5)
    scores = [0.1, 0.5, 0.9, 1.0, 0.0, -0.0, float("inf"), float("nan")]
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []
    for img in range(1, 701):
        for _ in range(int(rng.integers(1, 3))):
            x, y = (float(v) for v in rng.integers(0, 200, 2))
            anns.append({"id": len(anns) + 1, "image_id": img, "category_id": 1})
            anns[-1]["bbox"] = [x, y, 40.0, float(rng.choice([20, 40, 120]))]
        for _ in range(int(rng.integers(1, 5))):
            x, y, w, h = anns[int(rng.integers(0, len(anns)))]["bbox"]
            box = [x + float(rng.choice([0, 4, 30])), y, w, h]
            score = scores[int(rng.integers(0, len(scores)))]
            dets.append({"image_id": img, "category_id": 1, "bbox": box, "score": score})
    for a in anns:
        x, y, w, h = a["bbox"]
        a["area"], a["segmentation"] = w * h, [[x, y, x, y + h, x + w, y + h, x + w, y]]
    images = [{"id": i, "width": 640, "height": 480} for i in range(1, 701)]
    gt = {"images": images, "categories": [{"id": 1, "name": "a"}], "annotations": anns}
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    (tmp_path / "dt.json").write_text(json.dumps(dets))
    check_coco(tmp_path / "gt.json", tmp_path / "dt.json", "bbox", max_dets=(1, 2, 100))


def test_non_finite_values(tmp_path: Path) -> None:
    """NaN widths (a NaN IoU passes every comparison in evaluateImg's loop), NaN and infinite
    scores (ranked last / first), -0.0 tied with 0.0, an infinite GT area."""
    nan, inf = float("nan"), float("inf")
    anns = [
        {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 20, 20]},
        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [5, 0, 20, 20], "area": inf},
        {"id": 3, "image_id": 1, "category_id": 1, "bbox": [0, 5, 20, 20], "iscrowd": 1},
        {"id": 4, "image_id": 2, "category_id": 3, "bbox": [0, 0, 32, 32]},
    ]
    boxes = [[0, 0, nan, 20], [0, 0, 20, 20], [5, 0, 20, nan], [0, 5, 20, 20], [0, 0, 32, 32]]
    scores = [0.5, nan, 0.0, -0.0, inf, 0.5, 0.0]
    dets = [
        {"image_id": img, "category_id": cat, "bbox": box, "score": score}
        for img, cat in ((1, 1), (2, 3), (2, 1))
        for box, score in zip(boxes, scores, strict=False)
    ]
    _write(tmp_path, anns, dets)
    for use_cats in (True, False):
        check_coco(tmp_path / "gt.json", tmp_path / "dt.json", "bbox", use_cats=use_cats)
