"""Synthetic VOC detection data in memory (columnar), and explicit bootstrap resampling of it.

Used by the bootstrap tests and ``bench/bench_bootstrap.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vocviewer.core.dataset import VOC_CLASSES, Dataset, ImageTable, ObjectTable, PartTable
from vocviewer.core.results import Detections, ResultSet


def _dataset(ids, obj_image, obj_label, obj_box, obj_difficult, image_list, year):
    n = len(obj_image)
    order = np.zeros(n, dtype=np.int64)
    if n:
        starts = np.r_[0, np.flatnonzero(np.diff(obj_image)) + 1]
        order = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    objects = ObjectTable(
        image_index=obj_image,
        label=obj_label,
        box=obj_box,
        difficult=obj_difficult,
        truncated=np.zeros(n, bool),
        occluded=np.zeros(n, bool),
        pose=np.zeros(n, np.int8),
        order_in_image=order,
        actions=np.zeros((n, 0), bool),
    )
    images = ImageTable(
        id=np.array(ids, dtype=str),
        path=tuple(Path(f"{i}.jpg") for i in ids),
        width=np.full(len(ids), 500),
        height=np.full(len(ids), 500),
        segmented=np.zeros(len(ids), bool),
    )
    return Dataset(
        name="synthetic",
        root=None,
        year=year,
        classes=VOC_CLASSES,
        box_convention="voc",
        images=images,
        objects=objects,
        parts=PartTable.empty(),
        image_sets={"Main/test": np.asarray(image_list, np.int64)},
    )


def _results(det_image, det_label, det_score, det_box, name="synthetic"):
    order = np.argsort(det_label, kind="stable")  # one file per class, file order kept
    label = det_label[order]
    starts = np.searchsorted(label, label, side="left")
    detections = Detections(
        image_index=det_image[order],
        label=label,
        score=det_score[order],
        box=det_box[order],
        file_index=label,
        line=np.arange(len(label)) - starts + 1,
    )
    return ResultSet(
        name=name,
        files=tuple(Path(f"comp4_det_test_{c}.txt") for c in VOC_CLASSES),
        detections=detections,
        classes_with_files={"det": frozenset(range(len(VOC_CLASSES)))},
    )


def make_synthetic(
    n_images: int = 300,
    n_dets: int = 6000,
    seed: int = 0,
    *,
    year: int = 2012,
    quality: float = 0.5,
    score_decimals: int | None = None,
    difficult: float = 0.1,
    name: str = "synthetic",
) -> tuple[Dataset, ResultSet]:
    """A VOC-like test set (``Main/test``, ~2.4 objects per image) and a simulated
    detector: a fraction ``quality`` of the detections jitter a ground-truth box of its class
    (scores biased up), the rest are background boxes of a random class; a fraction
    ``difficult`` of the objects is difficult. Scores are continuous
    (no ties) unless ``score_decimals`` rounds them."""
    rng = np.random.default_rng(seed)
    per_image = rng.poisson(1.4, n_images) + 1
    obj_image = np.repeat(np.arange(n_images), per_image)
    n_obj = len(obj_image)
    label = rng.integers(0, 20, n_obj)
    xy = rng.uniform(1, 380, (n_obj, 2))
    wh = rng.uniform(20, 120, (n_obj, 2))
    box = np.round(np.c_[xy, xy + wh])
    is_difficult = rng.random(n_obj) < difficult
    ds = _dataset(
        [f"{i:06d}" for i in range(n_images)],
        obj_image,
        label,
        box,
        is_difficult,
        np.arange(n_images),
        year,
    )
    near = rng.random(n_dets) < quality
    g = rng.integers(0, n_obj, n_dets)
    d_image = np.where(near, obj_image[g], rng.integers(0, n_images, n_dets))
    d_label = np.where(near, label[g], rng.integers(0, 20, n_dets))
    d_box = np.where(near[:, None], box[g] + rng.normal(0, 8, (n_dets, 4)), 0.0)
    bxy = rng.uniform(1, 400, (n_dets, 2))
    d_box[~near] = np.c_[bxy, bxy + rng.uniform(10, 100, (n_dets, 2))][~near]
    score = np.clip(rng.random(n_dets) * 0.7 + near * rng.random(n_dets) * 0.3, 0, 1)
    if score_decimals is not None:
        score = np.round(score, score_decimals)
    return ds, _results(d_image, d_label, score, d_box, name)


def resample(dataset: Dataset, results: ResultSet, entries: np.ndarray):
    """The explicit bootstrap sample: ``Main/test`` entries ``entries`` (positions in the list,
    with repeats) become new images (``<id>#<copy>``) with their objects and detections copied.
    Copies of a detection follow each other in the results file."""
    rows = dataset.image_sets["Main/test"][entries]
    ids = [f"{dataset.images.id[r]}#{j}" for j, r in enumerate(rows)]
    obj = dataset.objects
    o_src = np.concatenate(
        [np.arange(*dataset.objects_of(int(r)).indices(len(obj))) for r in rows] or [[]]
    ).astype(np.int64)
    o_new = np.repeat(np.arange(len(rows)), np.diff(dataset.object_offsets)[rows])
    ds = _dataset(
        ids,
        o_new,
        obj.label[o_src],
        obj.box[o_src],
        obj.difficult[o_src],
        np.arange(len(rows)),
        dataset.year,
    )
    det = results.detections
    copies_of = [np.flatnonzero(rows == r) for r in range(len(dataset.images))]
    src, new_img = [], []
    for i in range(len(det)):  # file order; a detection's copies next to each other
        for c in copies_of[det.image_index[i]]:
            src.append(i)
            new_img.append(c)
    s = np.asarray(src, dtype=np.int64)
    rs = _results(np.asarray(new_img, np.int64), det.label[s], det.score[s], det.box[s])
    return ds, rs
