"""``vocviewer.cocoapi`` against pycocotools: pycocotools' documented usage sequences run through
both, comparing everything they leave behind — ``eval`` arrays, ``stats``, the printed summary,
``evalImgs`` entry by entry (keys, types, dtypes, values), ``ious`` and ``params`` after the run.

Data: generated in ``tmp_path`` (polygons, uncompressed-RLE crowds, a GT id 0, areas on the
32² / 96² bounds, score ties, 5-point keypoints) and coco-mini when present (jittered ground
truth, as in ``test_coco_parity``).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pycocotools")
from pycocotools import coco as ref_coco
from pycocotools import cocoeval as ref_eval
from pycocotools import mask as ref_mask

from vocviewer import cocoapi

#: a usage sequence: (COCO class, COCOeval class) -> the evaluator after the run
Sequence = Callable[[type, type], Any]


def run(sequence: Sequence) -> tuple[Any, str, Any, str]:
    """(pycocotools evaluator, its printed text, ours, our printed text)."""
    with contextlib.redirect_stdout(io.StringIO()) as ref_out:
        ref = sequence(ref_coco.COCO, ref_eval.COCOeval)
    with contextlib.redirect_stdout(io.StringIO()) as our_out:
        ours = sequence(cocoapi.COCO, cocoapi.COCOeval)
    return ref, ref_out.getvalue(), ours, our_out.getvalue()


def _same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), where
        assert a.shape == b.shape and a.dtype == b.dtype, (
            f"{where}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
        )
        np.testing.assert_array_equal(b, a, err_msg=where)  # NaN equals NaN
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert type(a) is type(b), f"{where}: {type(a)} vs {type(b)}"
        assert a == b or (a != a and b != b), f"{where}: {a!r} vs {b!r}"


def summary_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(" Average ")]


def assert_same(sequence: Sequence, *, eval_imgs: bool = True, ious: bool = True) -> Any:
    """Run ``sequence`` both ways and assert equality of everything; returns our evaluator."""
    ref, ref_text, ours, our_text = run(sequence)
    for name in ("precision", "recall", "scores"):
        _same(ref.eval[name], ours.eval[name], name)
    assert ref.eval["counts"] == ours.eval["counts"]
    _same(np.asarray(ref.stats), np.asarray(ours.stats), "stats")
    assert summary_lines(our_text) == summary_lines(ref_text)
    assert summary_lines(ref_text)  # the sequence did summarize
    for name in ("imgIds", "catIds", "maxDets", "areaRng", "areaRngLbl", "useCats", "iouType"):
        _same(getattr(ref.params, name), getattr(ours.params, name), f"params.{name}")
    _same(ref.params.iouThrs, ours.params.iouThrs, "params.iouThrs")
    if eval_imgs:
        assert len(ref.evalImgs) == len(ours.evalImgs)
        for i, (e, f) in enumerate(zip(ref.evalImgs, ours.evalImgs, strict=True)):
            assert (e is None) == (f is None), f"evalImgs[{i}]"
            if e is not None:
                assert list(e) == list(f), f"evalImgs[{i}] keys"
                for key in e:
                    _same(e[key], f[key], f"evalImgs[{i}][{key!r}]")
    if ious:
        assert list(ref.ious) == list(ours.ious)
        for key, value in ref.ious.items():
            _same(value, ours.ious[key], f"ious[{key}]")
    return ours


def fresh(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A deep copy: ``loadRes`` completes the dicts it is given in place."""
    return copy.deepcopy(entries)


# --- generated data ----------------------------------------------------------------------------
CATS = [
    {"id": 1, "name": "person", "supercategory": "p", "keypoints": list("abcde"), "skeleton": []},
    {"id": 2, "name": "dog", "supercategory": "a"},
    {"id": 5, "name": "cat", "supercategory": "a"},
    {"id": 9, "name": "unused", "supercategory": "x"},
]


def _polygon(rng: np.random.Generator, w: int, h: int) -> tuple[list[float], list[float]]:
    """A random convex-ish polygon inside the image and its ``x, y, w, h`` box."""
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    r = rng.uniform(4, min(w, h) * 0.4)
    ang = np.sort(rng.uniform(0, 2 * np.pi, rng.integers(3, 7)))
    xs = np.clip(cx + r * np.cos(ang), 0, w - 1)
    ys = np.clip(cy + r * np.sin(ang), 0, h - 1)
    poly = [round(float(v), 2) for v in np.column_stack((xs, ys)).reshape(-1)]
    box = [float(xs.min()), float(ys.min()), float(np.ptp(xs)), float(np.ptp(ys))]
    return poly, [round(v, 2) for v in box]


def synthetic_gt(seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    images, anns = [], []
    for i in range(14):
        w, h = int(rng.integers(60, 300)), int(rng.integers(60, 300))
        images.append({"id": 100 + 7 * i, "width": w, "height": h, "file_name": f"{i}.jpg"})
        for _ in range(int(rng.integers(0, 7))):
            poly, box = _polygon(rng, w, h)
            cat = int(rng.choice([1, 2, 5]))
            area = [float(box[2] * box[3] * 0.6), 32.0**2, 96.0**2][int(rng.integers(0, 5)) % 3]
            crowd = int(rng.random() < 0.12)
            kp = np.zeros((5, 3))
            kp[:, 0] = rng.uniform(box[0], box[0] + box[2] + 1, 5)
            kp[:, 1] = rng.uniform(box[1], box[1] + box[3] + 1, 5)
            kp[:, 2] = rng.integers(0, 3, 5)
            a = {
                "id": len(anns) + 1,
                "image_id": images[-1]["id"],
                "category_id": cat,
                "bbox": box,
                "area": area,
                "iscrowd": crowd,
                "segmentation": [poly],
                "keypoints": [round(float(v), 2) for v in kp.reshape(-1)],
                "num_keypoints": int(np.count_nonzero(kp[:, 2])),
            }
            if crowd:  # crowds as uncompressed RLE, as in COCO
                with warnings.catch_warnings():  # pycocotools' decode and numpy 2
                    warnings.simplefilter("ignore", DeprecationWarning)
                    m = ref_mask.decode(ref_mask.merge(ref_mask.frPyObjects([poly], h, w)))
                flat = np.r_[0, m.T.reshape(-1), 0]
                change = np.flatnonzero(np.diff(flat)) + 1
                counts = np.diff(np.r_[0, change[:-1] if flat[-2] else change, h * w])
                a["segmentation"] = {"size": [h, w], "counts": [int(c) for c in counts]}
            anns.append(a)
    anns[3]["id"] = 0  # pycocotools' GT id 0 quirk
    return {"images": images, "annotations": anns, "categories": CATS}


def synthetic_results(gt: dict[str, Any], kind: str, seed: int = 1) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    size = {i["id"]: (i["height"], i["width"]) for i in gt["images"]}
    out: list[dict[str, Any]] = []
    for a in gt["annotations"]:
        h, w = size[a["image_id"]]
        for _ in range(int(rng.integers(0, 3))):
            cat = a["category_id"] if rng.random() > 0.15 else int(rng.choice([1, 2, 5]))
            e: dict[str, Any] = {
                "image_id": a["image_id"],
                "category_id": cat,
                "score": round(float(rng.random()), 1),  # ties on purpose
            }
            x, y, bw, bh = a["bbox"]
            j = rng.normal(0, 0.15, 4) * [bw, bh, bw, bh]
            if kind == "bbox":
                e["bbox"] = [round(float(v), 2) for v in (x + j[0], y + j[1], bw + j[2], bh + j[3])]
            elif kind == "segm":
                poly, _ = _polygon(rng, w, h) if rng.random() < 0.2 else (None, None)
                if poly is None:
                    src = a["segmentation"]
                    poly = (
                        list(np.asarray(src[0]) + rng.normal(0, 2, len(src[0])))
                        if isinstance(src, list)
                        else [x, y, x + bw, y, x + bw, y + bh]
                    )
                rle = ref_mask.merge(ref_mask.frPyObjects([list(map(float, poly))], h, w))
                e["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
            else:
                kp = np.array(a["keypoints"], float).reshape(-1, 3)
                kp[:, :2] += rng.normal(0, 3, (5, 2))
                kp[:, 2] = 1
                e["keypoints"] = [round(float(v), 2) for v in kp.reshape(-1)]
            out.append(e)
    return out


def _write(tmp: Path, name: str, data: Any) -> str:
    path = tmp / name
    path.write_text(json.dumps(data))
    return str(path)


def documented(
    gt_file: str, res: Any, iou_type: str, change: Callable[[Any], None] = lambda p: None
):
    """pycocotools' documented sequence (pycocoEvalDemo): COCO, loadRes, COCOeval, params,
    evaluate, accumulate, summarize."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt = coco_cls(gt_file)
        dt = gt.loadRes(fresh(res) if isinstance(res, list) else res)
        ev = eval_cls(gt, dt, iou_type)
        change(ev.params)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
        return ev

    return sequence


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("cocoapi")
    gt = synthetic_gt()
    files = {"gt": _write(tmp, "gt.json", gt), "gt_dict": gt}
    for kind in ("bbox", "segm", "keypoints"):
        res = synthetic_results(gt, kind)
        files[kind] = _write(tmp, f"{kind}.json", res)
        files[kind + "_list"] = res
    return files


@pytest.mark.parametrize("use_cats", [1, 0])
@pytest.mark.parametrize("iou_type", ["bbox", "segm", "keypoints"])
def test_generated_from_file(synth: dict[str, Any], iou_type: str, use_cats: int) -> None:
    def change(p: Any) -> None:
        p.useCats = use_cats
        if iou_type == "keypoints":
            p.kpt_oks_sigmas = np.array([0.3, 0.5, 0.7, 0.9, 1.1]) / 10  # 5 points: custom sigmas

    assert_same(documented(synth["gt"], synth[iou_type], iou_type, change))


def test_segm_of_box_results(synth: dict[str, Any]) -> None:
    """loadRes' bbox branch gives each box a polygon; segm evaluation rasterises it."""
    assert_same(documented(synth["gt"], synth["bbox_list"], "segm"))


@pytest.mark.parametrize(
    "change",
    [
        lambda p: setattr(p, "iouThrs", np.array([0.3, 0.5, 0.55, 0.9])),
        lambda p: setattr(p, "maxDets", [5, 1, 3]),  # unsorted; no 100: AP line is -1
        lambda p: setattr(p, "recThrs", np.linspace(0, 1, 11)),
        lambda p: (
            setattr(p, "areaRng", [[0, 1e10], [0, 40**2], [40**2, 1e10]]),
            setattr(p, "areaRngLbl", ["all", "small", "large"]),
        ),
        lambda p: setattr(p, "imgIds", [128, 100, 121, 100, 999, 191]),  # dupes, unknown id
        lambda p: setattr(p, "catIds", [5, 9, 1]),
        lambda p: (setattr(p, "catIds", [2, 5]), setattr(p, "useCats", 0)),
        lambda p: setattr(p, "imgIds", []),
    ],
    ids=["iouThrs", "maxDets", "recThrs", "areaRng", "imgIds", "catIds", "useCats0-catIds", "none"],
)
def test_changed_params(synth: dict[str, Any], change: Callable[[Any], None]) -> None:
    assert_same(documented(synth["gt"], synth["bbox_list"], "bbox", change))


def test_load_res_from_numpy(synth: dict[str, Any]) -> None:
    rows = [[e["image_id"], *e["bbox"], e["score"], e["category_id"]] for e in synth["bbox_list"]]
    assert_same(documented(synth["gt"], np.array(rows, dtype=np.float64), "bbox"))


def test_params_changed_after_evaluate(synth: dict[str, Any]) -> None:
    """accumulate() reads the params of the moment (a subset of the evaluated ones)."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt = coco_cls(synth["gt"])
        ev = eval_cls(gt, gt.loadRes(fresh(synth["bbox_list"])), "bbox")
        ev.evaluate()
        ev.params.catIds = [5, 1]
        ev.params.imgIds = ev.params.imgIds[3:]
        ev.params.recThrs = np.linspace(0, 1, 21)
        ev.accumulate()
        ev.summarize()
        return ev

    assert_same(sequence)


def test_eval_imgs_merged_by_the_caller(synth: dict[str, Any]) -> None:
    """torchvision's distributed evaluator: evaluate on two halves, merge ``evalImgs``, set
    ``params.imgIds`` and ``_paramsEval``, then accumulate."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt = coco_cls(synth["gt"])
        dt = gt.loadRes(fresh(synth["segm_list"]))
        ids = sorted(gt.getImgIds())
        parts = []
        for half in (ids[::2], ids[1::2]):
            ev = eval_cls(gt, dt, "segm")
            ev.params.imgIds = half
            ev.evaluate()
            a = len(ev.params.areaRng)
            parts.append(np.asarray(ev.evalImgs, dtype=object).reshape(-1, a, len(half)))
        merged = np.concatenate(parts, axis=2)
        ev.params.imgIds = ids[::2] + ids[1::2]
        ev._paramsEval = copy.deepcopy(ev.params)
        ev.evalImgs = list(merged.flatten())
        ev.accumulate()
        ev.summarize()
        return ev

    assert_same(sequence, ious=False)


def test_lookups(synth: dict[str, Any]) -> None:
    gt_file = synth["gt"]
    with contextlib.redirect_stdout(io.StringIO()):
        ref, ours = ref_coco.COCO(gt_file), cocoapi.COCO(gt_file)
    for name in ("anns", "imgs", "cats", "imgToAnns", "catToImgs", "dataset"):
        assert getattr(ref, name) == getattr(ours, name), name
    calls = [
        ("getAnnIds", {}),
        ("getAnnIds", {"imgIds": 107}),
        ("getAnnIds", {"imgIds": [107, 114, 4242], "catIds": [1, 5]}),
        ("getAnnIds", {"catIds": 2, "areaRng": [100, 5000]}),
        ("getAnnIds", {"iscrowd": True}),
        ("getAnnIds", {"imgIds": [100], "iscrowd": False}),
        ("getCatIds", {}),
        ("getCatIds", {"catNms": ["dog", "cat"]}),
        ("getCatIds", {"supNms": "a", "catIds": [5, 9]}),
        ("getImgIds", {}),
        ("getImgIds", {"catIds": [1, 5]}),
        ("getImgIds", {"imgIds": [100, 107, 5], "catIds": 2}),
        ("loadAnns", {"ids": [1, 5, 0]}),
        ("loadAnns", {"ids": 2}),
        ("loadCats", {"ids": [9, 1]}),
        ("loadImgs", {"ids": 107}),
    ]
    for name, kw in calls:
        got, want = getattr(ours, name)(**kw), getattr(ref, name)(**kw)
        assert got == want, (name, kw)
    for a in list(ref.anns.values())[:12]:
        assert ours.annToRLE(copy.deepcopy(a)) == ref.annToRLE(copy.deepcopy(a))
        with warnings.catch_warnings():  # pycocotools' decode and numpy 2
            warnings.simplefilter("ignore", DeprecationWarning)
            want = ref.annToMask(copy.deepcopy(a))
        _same(want, ours.annToMask(copy.deepcopy(a)), "annToMask")
    with contextlib.redirect_stdout(io.StringIO()):
        r1, r2 = (
            ref.loadRes(fresh(synth["keypoints_list"])),
            ours.loadRes(fresh(synth["keypoints_list"])),
        )
        s1, s2 = ref.loadRes(fresh(synth["segm_list"])), ours.loadRes(fresh(synth["segm_list"]))
    for a, b in ((r1, r2), (s1, s2)):
        assert list(a.anns) == list(b.anns)
        for i in a.anns:
            for key, value in a.anns[i].items():
                _same(np.asarray(value), np.asarray(b.anns[i][key]), f"anns[{i}][{key}]")
    with pytest.raises(NotImplementedError):
        ours.showAnns([])


def test_created_without_a_file(synth: dict[str, Any]) -> None:
    """detectron2 / torchvision build the ground truth in memory: ``COCO()``, ``dataset = ...``,
    ``createIndex()``."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt = coco_cls()
        gt.dataset = copy.deepcopy(synth["gt_dict"])
        gt.createIndex()
        ev = eval_cls(gt, gt.loadRes(fresh(synth["keypoints_list"])), "keypoints")
        ev.params.kpt_oks_sigmas = np.full(5, 0.07)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
        return ev

    assert_same(sequence)


# --- coco-mini ---------------------------------------------------------------------------------
MINI = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "coco-mini" / "annotations"
needs_mini = pytest.mark.skipif(not MINI.is_dir(), reason="coco-mini not available")


@needs_mini
@pytest.mark.parametrize("use_cats", [1, 0])
@pytest.mark.parametrize("iou_type", ["bbox", "segm", "keypoints"])
def test_coco_mini(iou_type: str, use_cats: int, tmp_path: Path) -> None:
    from tests.parity.test_coco_parity import gen_bbox, gen_keypoints, gen_segm

    ann = "person_keypoints_val2017.json" if iou_type == "keypoints" else "instances_val2017.json"
    gen = {"bbox": gen_bbox, "segm": gen_segm, "keypoints": gen_keypoints}[iou_type]
    res = _write(tmp_path, "res.json", gen(json.loads((MINI / ann).read_text())))

    def change(p: Any) -> None:
        p.useCats = use_cats
        if iou_type == "keypoints":
            p.kpt_oks_sigmas = p.kpt_oks_sigmas[::-1] * 1.3

    assert_same(documented(str(MINI / ann), res, iou_type, change))


@needs_mini
def test_coco_mini_subset_of_images(tmp_path: Path) -> None:
    from tests.parity.test_coco_parity import gen_bbox

    ann = str(MINI / "instances_val2017.json")
    res = gen_bbox(json.loads(Path(ann).read_text()), seed=5)

    def change(p: Any) -> None:
        p.imgIds = p.imgIds[::3]
        p.maxDets = [1, 10, 20]

    assert_same(documented(ann, res, "bbox", change))


def test_in_memory_results_and_no_results(synth: dict[str, Any]) -> None:
    """torchmetrics builds the results ``COCO`` by hand (``dataset`` + ``createIndex``, mask
    counts as bytes); torchvision passes an empty ``COCO()`` when an epoch found nothing."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt = coco_cls(synth["gt"])
        preds = coco_cls()
        anns = fresh(synth["segm_list"])
        for i, a in enumerate(anns, 1):
            a["segmentation"]["counts"] = a["segmentation"]["counts"].encode()
            a.update(id=i, area=float(ref_mask.area(a["segmentation"])), iscrowd=0)
            a["bbox"] = ref_mask.toBbox(a["segmentation"]).tolist()
        preds.dataset = {"images": gt.dataset["images"], "annotations": anns}
        preds.dataset["categories"] = gt.dataset["categories"]
        preds.createIndex()
        ev = eval_cls(gt, preds, "segm")
        ev.params.iouThrs = np.array([0.5, 0.75])
        ev.params.maxDets = [1, 10, 100]
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
        return ev

    assert_same(sequence)

    def nothing(coco_cls: type, eval_cls: type) -> Any:
        gt = coco_cls(synth["gt"])
        ev = eval_cls(gt, coco_cls(), "bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
        return ev

    assert_same(nothing)


def test_string_ids_are_refused_clearly() -> None:
    """pycocotools accepts any hashable id; the columns need integers: a clear TypeError."""
    gt = cocoapi.COCO()
    gt.dataset = {
        "images": [{"id": "a", "width": 10, "height": 10}],
        "categories": [{"id": 1, "name": "x"}],
        "annotations": [
            {"id": 1, "image_id": "a", "category_id": 1, "bbox": [0, 0, 5, 5], "area": 25}
        ],
    }
    with contextlib.redirect_stdout(io.StringIO()):
        gt.createIndex()
        dt = gt.loadRes([{"image_id": "a", "category_id": 1, "bbox": [0, 0, 5, 5], "score": 1}])
        ev = cocoapi.COCOeval(gt, dt, "bbox")
        with pytest.raises(TypeError, match=r"needs integer ids.*'a'"):
            ev.evaluate()


def test_evaluated_again_after_changes(synth: dict[str, Any]) -> None:
    """One evaluator evaluated per category (torchmetrics' class-wise loop), then the ground
    truth edited and re-indexed: cached columns never outlive ``createIndex()``."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        gt = coco_cls(synth["gt"])
        dt = gt.loadRes(fresh(synth["bbox_list"]))
        ev = eval_cls(gt, dt, "bbox")
        per_class = []
        for cat in (1, 2, 5):
            ev.params.catIds = [cat]
            ev.evaluate()
            ev.accumulate()
            per_class.append(ev.eval["precision"].copy())
        gt.dataset["annotations"] = gt.dataset["annotations"][::2]
        gt.createIndex()
        ev = eval_cls(gt, dt, "bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
        ev.per_class = per_class
        return ev

    ours = assert_same(sequence)
    ref = run(sequence)[0]
    for a, b in zip(ref.per_class, ours.per_class, strict=True):
        _same(a, b, "per-class precision")


def test_cocoeval_over_pycocotools_coco_objects(synth: dict[str, Any]) -> None:
    """Our ``COCOeval`` also takes pycocotools' own ``COCO`` objects (no column cache there)."""

    def sequence(coco_cls: type, eval_cls: type) -> Any:
        return documented(synth["gt"], synth["segm_list"], "segm")(ref_coco.COCO, eval_cls)

    assert_same(sequence)
