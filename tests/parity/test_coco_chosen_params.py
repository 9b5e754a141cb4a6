"""``--max-dets`` / ``--area-ranges`` / ``--iou-thresholds``: pycocotools run with the same
``Params`` gives the same 12 summary numbers, printed lines and precision / recall arrays, on
coco-mini and on generated data; the numbers are marked NOT OFFICIAL unless the values are COCO's.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pycocotools")
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

import vocviewer
from tests.parity.test_coco_parity import MINI, gen_bbox, needs_mini
from vocviewer.cli import main
from vocviewer.core.errors import FormatError
from vocviewer.families.coco.chosen_params import chosen_params, param_notes
from vocviewer.families.coco.evaluate import evaluate_coco, summary_lines
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

#: (option values, the pycocotools Params they set)
CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"max_dets": "1,10,300"}, {"maxDets": [1, 10, 300]}),  # no 100: the first AP reads -1
    ({"max_dets": [5, 20, 50, 100]}, {"maxDets": [5, 20, 50, 100]}),
    (
        {"area_ranges": "all=0:1e10,small=0:400,large=400:1e10"},
        {
            "areaRng": [[0, 1e10], [0, 400], [400, 1e10]],
            "areaRngLbl": ["all", "small", "large"],
        },
    ),
    ({"area_ranges": {"all": (0, 1e10), "tiny": (0, 64)}}, None),  # labels summarize() lacks
    ({"iou_thresholds": "0.3,0.5,0.7"}, {"iouThrs": np.array([0.3, 0.5, 0.7])}),
    ({"iou_thresholds": "0.6:0.9:0.1"}, {"iouThrs": np.linspace(0.6, 0.9, 4)}),  # no .5 / .75
    (
        {"max_dets": "2,3,4", "iou_thresholds": [0.5, 0.75], "area_ranges": "all=0:1e10"},
        {"maxDets": [2, 3, 4], "iouThrs": np.array([0.5, 0.75])},
    ),
]


def _reference(gt_path: Path, dt: list[dict[str, Any]], params: dict[str, Any]) -> COCOeval:
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO(str(gt_path))
        e = COCOeval(gt, gt.loadRes(dt), "bbox")
        for k, v in params.items():
            setattr(e.params, k, v)
        e.evaluate()
        e.accumulate()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            e.summarize()
    e.printed = out.getvalue().splitlines()  # type: ignore[attr-defined]
    return e


def _pycoco_params(options: dict[str, Any]) -> dict[str, Any]:
    p = chosen_params("bbox", options)
    return {
        "maxDets": list(p.max_dets),
        "areaRng": [list(a) for a in p.area_ranges],
        "areaRngLbl": list(p.area_names),
        "iouThrs": p.iou_thresholds,
    }


def _check(gt_path: Path, dt: list[dict[str, Any]], options: dict[str, Any], tmp: Path) -> None:
    res_path = tmp / "res.json"
    res_path.write_text(json.dumps(dt))
    ds = read_coco(gt_path)
    ours = evaluate_coco(ds, read_coco_results(ds, res_path), chosen_params("bbox", options))
    ref = _reference(gt_path, dt, _pycoco_params(options))
    np.testing.assert_array_equal(ours.precision, ref.eval["precision"])
    np.testing.assert_array_equal(ours.recall, ref.eval["recall"])
    np.testing.assert_array_equal(ours.scores, ref.eval["scores"])
    assert list(ours.stats().values()) == list(ref.stats)
    assert summary_lines(ours) == ref.printed
    # the API and the CLI print the same numbers, marked NOT OFFICIAL
    api = vocviewer.evaluate(gt_path, res_path, protocol="coco", **options)
    assert list(api.summary.values()) == list(ref.stats)
    assert not api.official
    cli = {k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in options.items()}
    if all(isinstance(v, str) for v in cli.values()):
        flags = [x for k, v in cli.items() for x in (f"--{k.replace('_', '-')}", v)]
        out = tmp / "out.json"
        assert (
            main(["eval", str(gt_path), "--results", str(res_path), *flags, "--json", str(out)])
            == 0
        )
        payload = json.loads(out.read_text())
        assert list(payload["summary"].values()) == list(ref.stats)
        assert payload["official"] is False


@needs_mini
@pytest.mark.parametrize(("options", "_set"), CASES)
def test_coco_mini_chosen_params_equal_pycocotools(
    options: dict[str, Any], _set: Any, tmp_path: Path
) -> None:
    gt_path = MINI / "instances_val2017.json"
    _check(gt_path, gen_bbox(json.loads(gt_path.read_text()), seed=3), options, tmp_path)


def _generated(seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    images = [{"id": i + 1, "width": 300, "height": 300, "file_name": f"{i}.jpg"} for i in range(6)]
    cats = [{"id": c, "name": f"c{c}"} for c in (1, 2, 3)]
    anns, dets = [], []
    for im in images:
        for _ in range(rng.integers(1, 12)):
            w, h = rng.uniform(4, 120, 2)
            x, y = rng.uniform(0, 150, 2)
            c = int(rng.integers(1, 4))
            crowd = int(rng.random() < 0.1)
            box = [float(x), float(y), float(w), float(h)]
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": c,
                    "bbox": box,
                    "area": float(w * h),
                    "iscrowd": crowd,
                }
            )
            for _ in range(rng.integers(0, 4)):
                j = rng.normal(0, 0.15, 4) * [w, h, w, h]
                dets.append(
                    {
                        "image_id": im["id"],
                        "category_id": c,
                        "score": float(rng.random()),
                        "bbox": [
                            float(x + j[0]),
                            float(y + j[1]),
                            float(w + abs(j[2])),
                            float(h + abs(j[3])),
                        ],
                    }
                )
    return {"images": images, "categories": cats, "annotations": anns}, dets


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("options", "_set"), CASES)
def test_generated_chosen_params_equal_pycocotools(
    options: dict[str, Any], _set: Any, seed: int, tmp_path: Path
) -> None:
    gt, dt = _generated(seed)
    (tmp_path / "gt").mkdir()
    gt_path = tmp_path / "gt" / "gt.json"
    gt_path.write_text(json.dumps(gt))
    _check(gt_path, dt, options, tmp_path)


def test_protocol_values_are_official_and_others_are_noted() -> None:
    same = chosen_params("bbox", {"max_dets": "1,10,100", "iou_thresholds": "0.5:0.95:0.05"})
    assert param_notes(same) == ()
    notes = param_notes(chosen_params("bbox", {"max_dets": "1,10,300"}))
    assert notes == ("NOT OFFICIAL: maxDets 1,10,300; the protocol uses 1,10,100",)


@pytest.mark.parametrize(
    "options",
    [{"max_dets": "1,10"}, {"max_dets": "a"}, {"area_ranges": "all=0"}, {"iou_thresholds": "2"}],
)
def test_bad_values_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(FormatError, match="--"):
        chosen_params("bbox", options)


@needs_mini
def test_analyze_takes_the_params_and_says_not_official(tmp_path: Path) -> None:
    gt_path = MINI / "instances_val2017.json"
    dt = tmp_path / "dt.json"
    dt.write_text(json.dumps(gen_bbox(json.loads(gt_path.read_text()), seed=3)))
    out = tmp_path / "a.json"
    flags = ["--iou-thresholds", "0.5,0.75", "--bootstrap", "5"]
    assert main(["analyze", str(gt_path), "--results", str(dt), *flags, "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    ref = _reference(
        gt_path, json.loads(dt.read_text()), _pycoco_params({"iou_thresholds": "0.5,0.75"})
    )
    assert payload["official"] is False
    assert payload["sets"]["dt.json"]["mAP"] == ref.stats[0]
    assert payload["sets"]["dt.json"]["AP50"] == ref.stats[1]


def test_api_refuses_them_for_a_family_that_does_not_take_them(demo: Any) -> None:
    files = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    with pytest.raises(FormatError, match="--max-dets is not an option of VOC"):
        vocviewer.evaluate(demo.year_dir, files, max_dets="1,10,300")
