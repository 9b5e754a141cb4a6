"""Bad-input matrix, COCO part (issue 10, cases 3, 4, 5, 6, 8, 10b) through the real CLI:
``vocviewer eval instances.json --results r.json``. Each case asserts the exit code and a message
naming the file and the JSON path; the oversized declarations also stay under 1 GB peak memory
(in a child process, for ``eval`` and for loading + drawing the way the window does)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.bad_input.peak_memory import peak_kb
from tests.formats import test_coco_validation as validation
from vocviewer.cli import main

NAN = float("nan")
ROOT = Path(__file__).resolve().parents[2]

# the validation tests' two-image file (a polygon and a crowd RLE), with image file names
GT: dict[str, Any] = copy.deepcopy(validation.GT)
for _image, _name in zip(GT["images"], ("a.png", "b.png"), strict=True):
    _image["file_name"] = _name
DET = {"image_id": 9, "category_id": 5, "bbox": [1, 2, 10, 5], "score": 0.9}


def _ann(edit: Any) -> Any:
    return lambda g: edit(g["annotations"][0])


def _rle(edit: Any) -> Any:
    return lambda g: edit(g["annotations"][1]["segmentation"])


#: (case id, edit of the annotation file, results entries, task, exit code, JSON path, text)
CASES = [
    (
        "3-rle-size-100000",
        _rle(lambda s: s.update(size=[100000, 100000], counts=[0, 10**10])),
        [DET],
        "segm",
        0,
        "annotations[1].segmentation.size",
        "over the 178,956,970-pixel limit",
    ),
    (
        "3-image-100000",
        lambda g: g["images"][1].update(width=100000, height=100000),
        [DET],
        "segm",
        0,
        "images[1]",
        "over the 178,956,970-pixel limit",
    ),
    (
        "4-annotation-nan",
        _ann(lambda a: a.update(bbox=[1, NAN, 10, 5])),
        [DET],
        "bbox",
        0,
        "annotations[0].bbox[1]",
        "expected a finite number, got NaN",
    ),
    (
        "4-annotation-inf-area",
        _ann(lambda a: a.update(area=float("inf"))),
        [DET],
        "bbox",
        0,
        "annotations[0].area",
        "expected a finite number, got Infinity",
    ),
    (
        "4-result-inf",
        None,
        [DET, {**DET, "bbox": [-float("inf"), 0, float("inf"), 1]}],
        "bbox",
        0,
        "[1].bbox",
        "1 result(s) with a NaN or infinite value",
    ),
    (
        "4-result-nan-score",
        None,
        [{**DET, "score": NAN}, DET],
        "bbox",
        0,
        "[0].score",
        "1 result(s) with a NaN or infinite value",
    ),
    (
        "5-width-abc",
        lambda g: g["images"][0].update(width="abc"),
        [DET],
        "bbox",
        0,
        "images[0].width",
        'expected a positive integer, got "abc"',
    ),
    (
        "5-image_id-list",
        _ann(lambda a: a.update(image_id=[1])),
        [DET],
        "bbox",
        0,
        "annotations[0].image_id",
        "expected an integer image id, got [1]",
    ),
    (
        "5-category_id-dict",
        _ann(lambda a: a.update(category_id={})),
        [DET],
        "bbox",
        0,
        "annotations[0].category_id",
        "expected an integer id, got {}",
    ),
    (
        "5-no-categories",
        lambda g: g.pop("categories"),
        [DET],
        "bbox",
        1,
        "categories",
        "missing: the annotations need a list of {id, name}",
    ),
    (
        "5-id-2**70",
        _ann(lambda a: a.update(id=2**70)),
        [DET],
        "bbox",
        0,
        "annotations[0].id",
        "within 64 bits, got 1180591620717411303424",
    ),
    (
        "5-image-id-2**70",
        lambda g: g["images"][0].update(id=2**70),
        [DET],
        "bbox",
        1,
        "images[0].id",
        "within 64 bits",
    ),
    (
        "5-keypoints-text",
        _ann(lambda a: a.update(keypoints=["a", 1, 2])),
        [DET],
        "bbox",
        0,
        "annotations[0].keypoints[0]",
        'expected a number, got "a"',
    ),
    (
        "5-rle-size-text",
        _rle(lambda s: s.update(size=["a", "b"])),
        [DET],
        "segm",
        0,
        "annotations[1].segmentation.size",
        'got ["a", "b"]',
    ),
    (
        "5-results-rle-size-nested",
        None,
        [
            {
                "image_id": 9,
                "category_id": 5,
                "score": 0.9,
                "segmentation": {"size": [[1], [2]], "counts": "abc"},
            }
        ],
        "segm",
        1,
        "[0].segmentation.size",
        "got [[1], [2]]",
    ),
    (
        "8-rle-negative-run",
        _rle(lambda s: s.update(counts=[0, -4, 30, 4, 1170])),
        [DET],
        "segm",
        0,
        "annotations[1].segmentation.counts",
        "negative run length -4",
    ),
    (
        "8-rle-runs-short",
        _rle(lambda s: s.update(counts=[0, 4, 26])),
        [DET],
        "segm",
        0,
        "annotations[1].segmentation.counts",
        "runs sum to 30, not 30 x 40",
    ),
    (
        "8-rle-string-short",
        _rle(lambda s: s.update(counts="04")),
        [DET],
        "segm",
        0,
        "annotations[1].segmentation.counts",
        "runs sum to 4, not",
    ),
    (
        "8-score-string",
        None,
        [DET, {**DET, "score": "0.5"}],
        "bbox",
        1,
        "[1].score",
        'expected a number, got "0.5"',
    ),
]


def _files(tmp: Path, edit: Any, dets: list[Any]) -> tuple[Path, Path]:
    gt = copy.deepcopy(GT)
    if edit is not None:
        edit(gt)
    ann, res = tmp / "instances.json", tmp / "r.json"
    ann.write_text(json.dumps(gt))
    res.write_text(json.dumps(dets))
    return ann, res


@pytest.mark.parametrize(
    ("edit", "dets", "task", "code", "where", "text"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_coco_bad_input(
    edit: Any,
    dets: list[Any],
    task: str,
    code: int,
    where: str,
    text: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ann, res = _files(tmp_path, edit, dets)
    assert main(["eval", str(ann), "--results", str(res), "--task", task]) == code
    err = capsys.readouterr().err
    named = res if where.startswith("[") else ann
    kind = "error" if code else "warning"
    assert f"vocviewer: {kind}: {named} ({where}): " in err and text in err, err
    assert "Traceback" not in err


def test_coco_deep_nesting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Case 5: JSON nested 100,000 deep."""
    ann, res = _files(tmp_path, None, [DET])
    ann.write_text('{"images": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert main(["eval", str(ann), "--results", str(res)]) == 1
    assert (
        f"vocviewer: error: {ann}: not readable JSON: nested too deeply" in capsys.readouterr().err
    )


@pytest.mark.parametrize("which", ["annotations", "results"])
@pytest.mark.timeout(20)
def test_coco_fifo(which: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Case 6: a FIFO as annotation or results JSON gives a message at once, no hang."""
    ann, res = _files(tmp_path, None, [DET])
    fifo = ann if which == "annotations" else res
    fifo.unlink()
    os.mkfifo(fifo)
    assert main(["eval", str(ann), "--results", str(res)]) == 1
    err = capsys.readouterr().err
    assert f"vocviewer: error: {fifo}: expected a regular file, found a FIFO (named pipe)" in err


def test_coco_keypoint_results_with_bbox(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Case 10b: keypoint results carrying a bbox (mmpose, detectron2) are evaluated (loadRes'
    bbox branch; the numbers are checked against pycocotools in tests/formats)."""
    kp = [float(v) for i in range(17) for v in (5 + i, 6 + i, 2)]
    gt = {
        "images": GT["images"],
        "categories": [{"id": 1, "name": "person"}],
        "annotations": [
            {
                "id": 1,
                "image_id": 9,
                "category_id": 1,
                "bbox": [5, 6, 20, 20],
                "area": 300,
                "iscrowd": 0,
                "keypoints": kp,
                "num_keypoints": 17,
            }
        ],
    }
    ann, res = tmp_path / "person_keypoints.json", tmp_path / "r.json"
    ann.write_text(json.dumps(gt))
    res.write_text(
        json.dumps(
            [
                {
                    "image_id": 9,
                    "category_id": 1,
                    "keypoints": kp,
                    "score": 0.9,
                    "bbox": [5, 6, 20, 20],
                }
            ]
        )
    )
    assert main(["eval", str(ann), "--results", str(res), "--task", "keypoints"]) == 0
    out = capsys.readouterr().out
    assert "Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets= 20 ] = 1.000" in out


KP17 = [float(v) for i in range(17) for v in (5 + i, 6 + i, 2)]
PERSON = {
    "id": 1,
    "image_id": 9,
    "category_id": 5,
    "bbox": [5, 6, 20, 20],
    "area": 300,
    "iscrowd": 0,
    "keypoints": KP17,
    "num_keypoints": 17,
}


@pytest.mark.parametrize(
    ("gt_kp", "dt_kp", "named", "text"),
    [
        (False, [1.0, 2.0, 1.0] * 17, "ann", "compares COCO's 17 keypoints; this file has none"),
        (True, [1.0, 2.0, 1.0] * 2, "res", "compares COCO's 17 keypoints; this file has 2 per"),
        (True, None, "res ([0])", "missing 'keypoints'"),
    ],
)
def test_coco_keypoint_counts_other_than_17(
    gt_kp: bool,
    dt_kp: Any,
    named: str,
    text: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """OKS needs COCO's 17 keypoints: other counts are a message, not a numpy error."""
    ann, res = _files(tmp_path, (lambda g: g.update(annotations=[PERSON])) if gt_kp else None, [])
    res.write_text(json.dumps([{**DET, "keypoints": dt_kp} if dt_kp else DET]))
    assert main(["eval", str(ann), "--results", str(res), "--task", "keypoints"]) == 1
    err = capsys.readouterr().err
    where = named.replace("ann", str(ann)).replace("res", str(res))
    assert f"vocviewer: error: {where}: " in err and text in err, err


# --- case 3: peak memory of the oversized declarations ----------------------------------------
_WINDOW_LOAD = """
import sys
from pathlib import Path
from vocviewer.gui.panes.image.layers import decode_view
from vocviewer.gui.models.tasks import read_dataset
ds = read_dataset(Path(sys.argv[1]))
for i in range(len(ds.images)):
    decode_view(ds.images.path[i], ds, i)
print(len(ds.problems))
"""


@pytest.mark.parametrize("case", ["3-rle-size-100000", "3-image-100000"])
def test_coco_oversized_declarations_stay_under_1gb(case: str, tmp_path: Path) -> None:
    from PIL import Image

    edit = next(c[1] for c in CASES if c[0] == case)
    ann, res = _files(tmp_path, edit, [DET])
    images = tmp_path / "images"
    images.mkdir()
    for name in ("a.png", "b.png"):
        Image.new("RGB", (40, 30), (90, 120, 150)).save(images / name)
    gt = json.loads(ann.read_text())  # the window: images beside the annotation file
    ann2 = tmp_path / "annotations" / "instances_images.json"
    ann2.parent.mkdir()
    ann2.write_text(json.dumps(gt))
    runs = [
        peak_kb(["vocviewer", "eval", str(ann), "--results", str(res), "--task", task])
        for task in ("segm", "bbox")
    ]
    kb, out = peak_kb(["-c", _WINDOW_LOAD, str(ann2)])
    assert all(k < 1 << 20 for k, _ in runs), runs
    assert "over the 178,956,970-pixel limit" in runs[0][1], runs[0][1]
    assert kb < 1 << 20 and out.split()[0] == "1", (kb, out)
