"""Generated Open Images folders (numpy RNG) with the challenge's traps.

``write_openimages(folder, seed)`` writes the four released files: a hierarchy with a class under
two parents, a ``Part`` list (ignored) and a class described but never annotated (no positives);
boxes with group-of flags (several per image, some overlapping), positive and negative image
labels (some on classes without boxes), and images with labels only. ``write_predictions`` writes
predictions with every trap: jittered copies of boxes, several detections inside one group-of
box, detections of classes not verified on their image, of parent classes (matched through the
expansion), scores rounded so ties mix TPs and FPs, scores <= 0 and <= -10, empty and inverted
boxes, and rows on an image the annotations lack. Both as rows or as the challenge's
``PredictionString`` submission.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

#: (mid, name, parents) — /m/mix has two parents; /m/none is never annotated
CLASSES = (
    ("/m/animal", "Animal", ()),
    ("/m/mammal", "Mammal", ("/m/animal",)),
    ("/m/dog", "Dog", ("/m/mammal",)),
    ("/m/cat", "Cat", ("/m/mammal",)),
    ("/m/bird", "Bird", ("/m/animal",)),
    ("/m/vehicle", "Vehicle", ()),
    ("/m/car", "Car", ("/m/vehicle",)),
    ("/m/wheel", "Wheel", ()),
    ("/m/mix", "Toy dog car", ("/m/dog", "/m/car")),
    ("/m/none", "Unicorn", ()),
)
#: classes that get boxes (leaves and a parent), and those only in image labels
BOXED = ("/m/dog", "/m/cat", "/m/bird", "/m/car", "/m/wheel", "/m/mix", "/m/mammal")
BOX_HEADER = (
    "ImageID,Source,LabelName,Confidence,XMin,XMax,YMin,YMax,IsOccluded,IsTruncated,IsGroupOf,"
    "IsDepiction,IsInside"
)


def hierarchy() -> dict[str, object]:
    """The JSON tree: each class under each of its parents (a subtree repeated), a ``Part``."""

    def node(mid: str) -> dict[str, object]:
        kids = [node(m) for m, _, ups in CLASSES if mid in ups]
        out: dict[str, object] = {"LabelName": mid}
        if kids:
            out["Subcategory"] = kids
        if mid == "/m/car":
            out["Part"] = [{"LabelName": "/m/wheel"}]
        return out

    roots = [node(m) for m, _, ups in CLASSES if not ups]
    return {"LabelName": "/m/0bl9f", "Subcategory": roots}


def _box(rng: np.random.Generator) -> tuple[float, float, float, float]:
    x0, y0 = rng.uniform(0, 0.7, 2)
    w, h = rng.uniform(0.08, 0.3, 2)
    return float(x0), float(x0 + w), float(y0), float(y0 + h)


def image_ids(n: int) -> list[str]:
    """Hex ids as the releases have them (never all digits)."""
    return [f"{i:04x}a{(i * 7919) % 65536:04x}cafe" for i in range(n)]


def write_openimages(folder: Path, seed: int = 0, n_images: int = 40) -> dict[str, list]:
    """Write the folder; returns the boxes per image (``mid, xmin, xmax, ymin, ymax, group``)
    for ``write_predictions``."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "class-descriptions-boxable.csv").write_text(
        "".join(f"{m},{n}\n" for m, n, _ in CLASSES)
    )
    (folder / "bbox_labels_600_hierarchy.json").write_text(json.dumps(hierarchy()))
    boxes: dict[str, list] = {}
    box_lines, label_lines = [BOX_HEADER], ["ImageID,Source,LabelName,Confidence"]
    for i, image in enumerate(image_ids(n_images)):
        objs = []
        if i % 9 != 8:  # every ninth image: image labels only
            for _ in range(int(rng.integers(1, 6))):
                mid = str(rng.choice(BOXED))
                group = int(rng.random() < 0.2)
                if group:
                    x0, y0 = rng.uniform(0, 0.4, 2)
                    box = (float(x0), float(x0 + 0.5), float(y0), float(y0 + 0.5))
                else:
                    box = _box(rng)
                objs.append((mid, *box, group))
                flags = rng.integers(0, 2, 4)
                box_lines.append(
                    f"{image},xclick,{mid},1,{box[0]:.6f},{box[1]:.6f},{box[2]:.6f},{box[3]:.6f},"
                    f"{flags[0]},{flags[1]},{group},{flags[2]},{flags[3]}"
                )
        boxes[image] = [(o[0], *(round(v, 6) for v in o[1:5]), o[5]) for o in objs]
        present = {o[0] for o in objs}
        for mid, _, _ in CLASSES:
            r = rng.random()
            if mid in present and r < 0.5:
                label_lines.append(f"{image},verification,{mid},1")
            elif mid not in present and r < 0.15:
                label_lines.append(f"{image},verification,{mid},0")
            elif mid not in present and r < 0.22:
                label_lines.append(f"{image},verification,{mid},1")  # positive, no box
    (folder / "validation-annotations-bbox.csv").write_text("\n".join(box_lines) + "\n")
    (folder / "validation-annotations-human-imagelabels-boxable.csv").write_text(
        "\n".join(label_lines) + "\n"
    )
    return boxes


def predictions(boxes: dict[str, list], seed: int = 1) -> list[tuple]:
    """Detection rows ``(image, mid, score, xmin, xmax, ymin, ymax)`` with every trap."""
    rng = np.random.default_rng(seed)
    mids = [m for m, _, _ in CLASSES]
    rows: list[tuple] = []

    def score() -> float:
        return round(float(rng.random()), 1)  # one decimal: many ties

    for image, objs in boxes.items():
        for mid, x0, x1, y0, y1, group in objs:
            n = int(rng.integers(2, 5)) if group else 1 + int(rng.random() < 0.3)
            for _ in range(n):
                if group:  # inside the group-of box
                    w, h = (x1 - x0) * 0.4, (y1 - y0) * 0.4
                    a, b = rng.uniform(0, 0.6, 2)
                    box = (x0 + a * (x1 - x0), x0 + a * (x1 - x0) + w, y0 + b * (y1 - y0))
                    box = (*box, box[2] + h)
                else:
                    j = rng.normal(0, 0.02, 4)
                    box = (x0 + j[0], x1 + j[1], y0 + j[2], y1 + j[3])
                label = mid if rng.random() < 0.8 else str(rng.choice(mids))
                rows.append((image, label, score(), *(round(float(v), 6) for v in box)))
        for _ in range(int(rng.integers(0, 3))):  # background, any class (verified or not)
            rows.append((image, str(rng.choice(mids)), score(), *_box(rng)))
    first = next(iter(boxes))
    rows += [
        (first, "/m/dog", -0.5, 0.1, 0.3, 0.1, 0.3),  # score <= 0
        (first, "/m/dog", -12.0, 0.1, 0.3, 0.1, 0.3),  # dropped by the score filter
        (first, "/m/dog", 0.7, 0.3, 0.3, 0.1, 0.3),  # empty box
        (first, "/m/dog", 0.7, 0.4, 0.2, 0.1, 0.3),  # inverted box
        ("ffffffffffffffff", "/m/dog", 0.9, 0.1, 0.3, 0.1, 0.3),  # no such image
    ]
    order = rng.permutation(len(rows))
    return [rows[i] for i in order]


def write_predictions(path: Path, rows: list[tuple], *, challenge: bool = False) -> Path:
    """Rows as ``ImageID,LabelName,Score,XMin,XMax,YMin,YMax`` or, with ``challenge``, as
    ``ImageID,PredictionString`` (``LabelName Score XMin YMin XMax YMax``)."""
    if not challenge:
        lines = ["ImageID,LabelName,Score,XMin,XMax,YMin,YMax"]
        lines += [f"{r[0]},{r[1]},{r[2]!r},{r[3]!r},{r[4]!r},{r[5]!r},{r[6]!r}" for r in rows]
    else:
        by_image: dict[str, list[str]] = {}
        for r in rows:
            by_image.setdefault(r[0], []).append(
                f"{r[1]} {r[2]!r} {r[3]!r} {r[5]!r} {r[4]!r} {r[6]!r}"
            )
        lines = ["ImageID,PredictionString"] + [f"{k},{' '.join(v)}" for k, v in by_image.items()]
    path.write_text("\n".join(lines) + "\n")
    return path
