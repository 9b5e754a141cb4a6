"""Issue 20 item 15: COCO / LVIS ground truth without a field the official evaluator reads.

Each case deletes one field from one annotation, runs the official code live on the files
(pycocotools' ``COCOeval`` or the ``lvis`` package) to learn whether it fails, and then the real
CLI: where the official code fails, ``vocviewer eval`` stops with the file and the JSON path
(``annotations[3]: missing "area"``), and ``--keep-going`` evaluates and says NOT OFFICIAL (text,
``"official": false`` in --json, stderr); where it does not fail, the numbers stay official.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.parity.lvis_data import lvis_eval, make_lvis, make_results
from vocviewer.cli import main

#: the annotation every case edits (its JSON list position)
K = 3


def _box(rng: np.random.Generator) -> list[float]:
    w, h = float(rng.uniform(8, 30)), float(rng.uniform(8, 20))
    return [round(float(rng.uniform(0, 60 - w)), 1), round(float(rng.uniform(0, 44 - h)), 1), w, h]


def _corners(b: list[float]) -> list[list[float]]:
    x, y, w, h = b
    return [[x, y, x + w, y, x + w, y + h, x, y + h]]


def make_coco(seed: int = 1) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A small instances file (polygons, one crowd, 17 keypoints per object) and results
    (jittered boxes with their corner polygons and the keypoints) for every task."""
    rng = np.random.default_rng(seed)
    images = [{"id": i + 1, "width": 64, "height": 48, "file_name": f"{i}.jpg"} for i in range(4)]
    anns, dets = [], []
    for n in range(12):
        b = _box(rng)
        kp = [v for _ in range(17) for v in (b[0] + b[2] / 2, b[1] + b[3] / 2, 2)]
        anns.append(
            {
                "id": n + 1,
                "image_id": n % 4 + 1,
                "category_id": 1 + n % 2,
                "bbox": b,
                "area": round(b[2] * b[3], 2),
                "iscrowd": int(n == 7),
                "segmentation": _corners(b),
                "keypoints": kp,
                "num_keypoints": 17,
            }
        )
        d = [round(v + float(rng.normal(0, 1)), 2) for v in b]
        dets.append(
            {
                "image_id": n % 4 + 1,
                "category_id": 1 + n % 2,
                "bbox": d,
                "segmentation": _corners(d),
                "keypoints": kp,
                "score": round(float(rng.random()), 3),
            }
        )
    cats = [
        {"id": 1, "name": "person", "keypoints": [f"k{i}" for i in range(17)]},
        {"id": 2, "name": "dog"},
    ]
    return {"images": images, "annotations": anns, "categories": cats}, dets


def _pycocotools(gt: dict[str, Any], dets: list[dict[str, Any]], task: str) -> str | None:
    """The exception pycocotools raises on the documents (``"KeyError"``), or ``None``."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            coco = COCO()
            coco.dataset = copy.deepcopy(gt)
            coco.createIndex()
            ev = COCOeval(coco, coco.loadRes(copy.deepcopy(dets)), task)
            ev.evaluate()
            ev.accumulate()
            ev.summarize()
    except Exception as e:
        return type(e).__name__
    return None


def _lvis(gt: dict[str, Any], dets: list[dict[str, Any]], task: str, tmp: Path) -> str | None:
    ann, res = tmp / "official_gt.json", tmp / "official_res.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(dets))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            lvis_eval(ann, res, task)
    except Exception as e:
        return type(e).__name__
    return None


def _eval(
    ann: Path, res: Path, task: str, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, str]:
    code = main(["eval", str(ann), "--results", str(res), "--task", task, *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


#: (family, task, deleted field, whether the official code fails on it)
CASES = [
    ("coco", "bbox", "id", True),
    ("coco", "bbox", "image_id", True),
    ("coco", "bbox", "category_id", True),
    ("coco", "bbox", "bbox", True),
    ("coco", "bbox", "area", True),
    ("coco", "bbox", "iscrowd", True),
    ("coco", "bbox", "segmentation", False),  # box evaluation never reads it
    ("coco", "segm", "area", True),
    ("coco", "segm", "iscrowd", True),
    ("coco", "segm", "segmentation", True),
    ("coco", "keypoints", "area", True),
    ("coco", "keypoints", "num_keypoints", True),
    ("lvis", "bbox", "id", True),
    ("lvis", "bbox", "category_id", True),
    ("lvis", "bbox", "bbox", True),
    ("lvis", "bbox", "area", True),
    ("lvis", "bbox", "segmentation", False),
    ("lvis", "segm", "segmentation", True),
    ("lvis", "segm", "area", True),
]


@pytest.mark.parametrize(("family", "task", "field", "fails"), CASES)
def test_missing_field_is_refused_where_the_official_code_fails(
    family: str,
    task: str,
    field: str,
    fails: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if family == "coco":
        gt, dets = make_coco()
        if task != "keypoints":
            gt["categories"][0].pop("keypoints")
            for a in gt["annotations"]:
                del a["keypoints"], a["num_keypoints"]
        else:  # people only
            gt["annotations"] = [a for a in gt["annotations"] if a["category_id"] == 1]
            dets = [d for d in dets if d["category_id"] == 1]
        for d in dets:  # each task's results hold what it compares
            for key in {
                "bbox": ("segmentation", "keypoints"),
                "segm": ("bbox", "keypoints"),
                "keypoints": ("segmentation",),
            }[task]:
                d.pop(key, None)
    else:
        gt = make_lvis(5, n_images=10)
        dets = make_results(gt, 5, kind=task, crowded=0)
    del gt["annotations"][K][field]
    official = _pycocotools(gt, dets, task) if family == "coco" else _lvis(gt, dets, task, tmp_path)
    assert (official is not None) == fails, official  # what the official code does, live
    (tmp_path / "annotations").mkdir()
    ann, res = tmp_path / "annotations" / f"{family}_val.json", tmp_path / "results.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(dets))
    if not fails:
        code, out, err = _eval(ann, res, task, capsys, "--json", str(tmp_path / "o.json"))
        assert code == 0 and "NOT OFFICIAL" not in out + err, err
        assert json.loads((tmp_path / "o.json").read_text())["official"] is True
        return
    code, out, err = _eval(ann, res, task, capsys)
    assert code == 1 and not out
    assert f'{ann} (annotations[{K}]): missing "{field}"' in err, err
    assert "pass --keep-going" in err
    code, out, err = _eval(
        ann, res, task, capsys, "--keep-going", "--json", str(tmp_path / "o.json")
    )
    assert code == 0, err
    assert "NOTE: NOT OFFICIAL" in out and f'missing "{field}"' in out
    assert "warning: NOT OFFICIAL" in err
    payload = json.loads((tmp_path / "o.json").read_text())
    assert payload["official"] is False


def test_lvis_never_reads_iscrowd(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """LVIS files carry no ``iscrowd`` (``LVISEval`` never reads it): official, no warning;
    the same file under ``--protocol coco`` (pycocotools reads it) is refused."""
    gt = make_lvis(6, n_images=8)
    dets = make_results(gt, 6, kind="bbox", crowded=0)
    assert not any("iscrowd" in a for a in gt["annotations"][:K])
    assert _lvis(gt, dets, "bbox", tmp_path) is None
    ann, res = tmp_path / "lvis_val.json", tmp_path / "results.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(dets))
    code, out, err = _eval(ann, res, "bbox", capsys)
    assert code == 0 and "iscrowd" not in err and "NOT OFFICIAL" not in out
    code, out, err = _eval(ann, res, "bbox", capsys, "--protocol", "coco")
    assert code == 1 and 'missing "iscrowd"' in err


def test_many_missing_areas_are_one_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file without any ``area`` gives one problem naming the first, not one per row."""
    gt, dets = make_coco()
    for a in gt["annotations"]:
        del a["area"]
    ann, res = tmp_path / "instances.json", tmp_path / "results.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps([{k: v for k, v in d.items() if k != "segmentation"} for d in dets]))
    code, _, err = _eval(ann, res, "bbox", capsys)
    assert code == 1
    assert '(annotations[0]): missing "area" (and in 11 more annotation(s))' in err
    assert "1 problem(s) in the ground truth" in err


@pytest.mark.parametrize("family", ["coco", "lvis"])
def test_analyze_refuses_alike(
    family: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``analyze`` applies the same rule: refused, or NOT OFFICIAL with --keep-going."""
    if family == "coco":
        gt, dets = make_coco()
        dets = [
            {k: v for k, v in d.items() if k not in ("segmentation", "keypoints")} for d in dets
        ]
    else:
        gt = make_lvis(7, n_images=8)
        dets = make_results(gt, 7, kind="bbox", crowded=0)
    del gt["annotations"][K]["area"]
    (tmp_path / "annotations").mkdir()
    ann, res = tmp_path / "annotations" / f"{family}_val.json", tmp_path / "results.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(dets))
    args = ["analyze", str(ann), "--results", str(res), "--bootstrap", "20"]
    assert main(args) == 1
    assert f'(annotations[{K}]): missing "area"' in capsys.readouterr().err
    out = tmp_path / "a.json"
    assert main([*args, "--keep-going", "--json", str(out)]) == 0
    assert "NOT OFFICIAL" in capsys.readouterr().err
    assert json.loads(out.read_text())["official"] is False
