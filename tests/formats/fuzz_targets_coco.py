"""COCO fuzz targets, shared by the in-suite property tests and ``bench/fuzz.py``.

``TARGETS`` is a list of ``(name, make_valid_bytes, read)``: ``make_valid_bytes(rng)`` builds a
small valid file from a ``random.Random``; ``read(path)`` reads a (possibly mutated) file and
returns data or raises ``FormatError`` (results are also evaluated, as ``vocviewer eval`` does). ``mutate(rng, data)`` applies one JSON-level mutation.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

ODD_VALUES: list[Any] = [
    "abc",
    "0.5",
    "",
    True,
    False,
    None,
    [],
    [1],
    [[1], [2]],
    {},
    {"a": 1},
    -1,
    0,
    2**70,
    -(2**64),
    10**400,
    1e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    0.5,
    3.0,
    100000,
]


def make_gt(rng: random.Random) -> dict[str, Any]:
    """A small instances file: images, categories, box / polygon / RLE / keypoint annotations."""
    images = [
        {
            "id": i + 1,
            "width": rng.randint(8, 40),
            "height": rng.randint(8, 40),
            "file_name": f"{i + 1}.jpg",
        }
        for i in range(rng.randint(1, 3))
    ]
    cats = [
        {"id": c, "name": f"c{c}", "keypoints": ["a", "b"], "skeleton": [[1, 2]]}
        for c in rng.sample(range(1, 9), rng.randint(1, 3))
    ]
    anns = []
    for k in range(rng.randint(0, 6)):
        im = rng.choice(images)
        w, h = im["width"], im["height"]
        x, y = rng.uniform(0, w / 2), rng.uniform(0, h / 2)
        bw, bh = rng.uniform(1, w / 2), rng.uniform(1, h / 2)
        a: dict[str, Any] = {
            "id": k + 1,
            "image_id": im["id"],
            "category_id": rng.choice(cats)["id"],
            "bbox": [x, y, bw, bh],
            "area": bw * bh,
            "iscrowd": 0,
        }
        shape = rng.random()
        if shape < 0.5:
            a["segmentation"] = [[x, y, x + bw, y, x + bw, y + bh, x, y + bh]]
        else:
            a["iscrowd"] = 1
            a["segmentation"] = {"size": [h, w], "counts": [3, 5, h * w - 8]}
        if rng.random() < 0.3:
            a["keypoints"] = [x, y, 2, x + 1, y + 1, 1]
            a["num_keypoints"] = 2
        anns.append(a)
    return {"images": images, "categories": cats, "annotations": anns}


def make_results(rng: random.Random, gt: dict[str, Any]) -> list[dict[str, Any]]:
    """Box results for ``gt`` (or RLE / keypoint results, a third of the time each)."""
    kind = rng.choice(["bbox", "segm", "keypoints"])
    out = []
    for _ in range(rng.randint(1, 6)):
        im = rng.choice(gt["images"])
        e: dict[str, Any] = {
            "image_id": im["id"],
            "category_id": rng.choice(gt["categories"])["id"],
            "score": round(rng.random(), 3),
        }
        if kind == "bbox":
            e["bbox"] = [
                rng.uniform(0, 10),
                rng.uniform(0, 10),
                rng.uniform(1, 9),
                rng.uniform(1, 9),
            ]
        elif kind == "segm":
            h, w = im["height"], im["width"]
            e["segmentation"] = {"size": [h, w], "counts": [2, 4, h * w - 6]}
        else:
            e["keypoints"] = [rng.uniform(0, 9), rng.uniform(0, 9), 1] * 2
        out.append(e)
    return out


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def mutate(rng: random.Random, obj: Any) -> Any:
    """One mutation at a random JSON path: a value of another type, a deletion, a huge or
    non-finite number, deep nesting."""
    paths = _paths(obj)[1:]
    if not paths:
        return copy.deepcopy(rng.choice(ODD_VALUES))
    path = rng.choice(paths)
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    op = rng.random()
    if op < 0.2:
        del parent[path[-1]]
    elif op < 0.25:
        parent[path[-1]] = json.loads("[" * 50 + "]" * 50)
    else:
        parent[path[-1]] = copy.deepcopy(rng.choice(ODD_VALUES))
    return obj


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, allow_nan=True).encode()


def _gt_bytes(rng: random.Random) -> bytes:
    return dumps(make_gt(rng))


def _read_gt(path: Path) -> object:
    return read_coco(path, masks=True)


def _results_bytes(rng: random.Random) -> bytes:
    return dumps(make_results(rng, make_gt(random.Random(0))))


def _read_results(path: Path) -> object:
    gt_path = path.with_name(path.name + ".gt.json")
    gt_path.write_bytes(dumps(make_gt(random.Random(0))))
    ds = read_coco(gt_path)
    out = [read_coco_results(ds, path, task="bbox", keep_going=True)]
    for task in ("bbox", "segm", "keypoints"):  # each read, and evaluated as the CLI does
        results = read_coco_results(ds, path, task=task)
        out.append(evaluate_coco(ds, results, CocoParams.for_task(task)))
    return out


TARGETS = [
    ("coco-annotations", _gt_bytes, _read_gt),
    ("coco-results", _results_bytes, _read_results),
]
