"""Build in-memory ``Dataset``/``ResultSet`` objects for protocol tests (no files involved)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vocviewer.core.dataset import VOC_CLASSES, Dataset, ImageTable, ObjectTable, PartTable
from vocviewer.core.results import ClassScores, Detections, ResultSet


def make_dataset(objects, image_sets, *, classes=VOC_CLASSES, year=2012, image_ids=None):
    """objects: {image_id: [(class_name, (x1, y1, x2, y2), difficult), ...]} in XML order.
    image_sets: {"Main/val": [ids in file order, duplicates allowed]}."""
    ids = sorted(set(image_ids or []) | set(objects) | {i for s in image_sets.values() for i in s})
    index = {s: n for n, s in enumerate(ids)}
    rows = [
        (index[i], classes.index(c), b, d, k)
        for i in ids
        for k, (c, b, d) in enumerate(objects.get(i, []))
    ]
    n = len(rows)
    objs = ObjectTable(
        image_index=[r[0] for r in rows],
        label=[r[1] for r in rows],
        box=np.array([r[2] for r in rows], dtype=float).reshape(n, 4),
        difficult=[r[3] for r in rows],
        truncated=np.zeros(n, bool),
        occluded=np.zeros(n, bool),
        pose=np.zeros(n, np.int8),
        order_in_image=[r[4] for r in rows],
        actions=np.zeros((n, 0), bool),
    )
    images = ImageTable(
        id=np.array(ids, dtype=str),
        path=tuple(Path(f"{i}.jpg") for i in ids),
        width=np.full(len(ids), 500),
        height=np.full(len(ids), 375),
        segmented=np.zeros(len(ids), bool),
    )
    parts = PartTable.empty()
    sets = {k: np.array([index[i] for i in v], dtype=np.int64) for k, v in image_sets.items()}
    return Dataset(
        name="test",
        root=None,
        year=year,
        classes=tuple(classes),
        box_convention="voc",
        images=images,
        objects=objs,
        parts=parts,
        image_sets=sets,
    )


def make_results(dataset, dets=(), scores=(), *, det_classes=None, cls_classes=None):
    """dets: [(class_name, image_id, score, (x1, y1, x2, y2))] in file order;
    scores: [(class_name, image_id, score)] in file order. One "file" per class."""
    cls = dataset.classes
    det_rows = sorted(enumerate(dets), key=lambda t: (cls.index(t[1][0]), t[0]))
    d = [r for _, r in det_rows]
    detections = Detections(
        image_index=[dataset.image_index(r[1]) for r in d],
        label=[cls.index(r[0]) for r in d],
        score=[r[2] for r in d],
        box=np.array([r[3] for r in d], dtype=float).reshape(len(d), 4),
        file_index=[cls.index(r[0]) for r in d],
        line=list(range(1, len(d) + 1)),
    )
    s_rows = [r for _, r in sorted(enumerate(scores), key=lambda t: (cls.index(t[1][0]), t[0]))]
    class_scores = ClassScores(
        image_index=[dataset.image_index(r[1]) for r in s_rows],
        label=[cls.index(r[0]) for r in s_rows],
        score=[r[2] for r in s_rows],
        file_index=[cls.index(r[0]) for r in s_rows],
        line=list(range(1, len(s_rows) + 1)),
    )
    det_k = {cls.index(c) for c in (det_classes if det_classes is not None else cls)}
    cls_k = {cls.index(c) for c in (cls_classes if cls_classes is not None else cls)}
    return ResultSet(
        name="test",
        files=tuple(Path(f"comp4_det_val_{c}.txt") for c in cls),
        detections=detections,
        class_scores=class_scores,
        classes_with_files={"det": frozenset(det_k), "cls": frozenset(cls_k)},
    )
