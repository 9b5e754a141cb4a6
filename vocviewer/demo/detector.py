"""A simulated detector's results on ``val`` for every VOC task: comp4 detections (with the
confusions, poor localisations, duplicates and ties an evaluation must show), comp2
classification scores, comp6 segmentations, comp7 person layouts, comp9 actions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from lxml import etree

from vocviewer.core.dataset import VOC_ACTIONS, VOC_CLASSES
from vocviewer.demo.drawing import FIGURE_SIZE
from vocviewer.demo.files import bndbox, el, write_lines, write_png
from vocviewer.demo.scenes import Box, DemoImage, dilate

#: What the simulated methods mistake a class (an action) for.
CONFUSED = {
    "cow": "horse",
    "horse": "cow",
    "sheep": "cow",
    "dog": "cat",
    "cat": "dog",
    "bus": "train",
    "train": "bus",
    "car": "bus",
    "bicycle": "motorbike",
    "motorbike": "bicycle",
    "chair": "sofa",
    "diningtable": "chair",
    "bottle": "pottedplant",
    "pottedplant": "bottle",
    "bird": "aeroplane",
    "aeroplane": "bird",
    "boat": "car",
    "tvmonitor": "chair",
    "walking": "running",
    "running": "jumping",
    "jumping": "running",
    "phoning": "takingphoto",
    "takingphoto": "phoning",
    "reading": "usingcomputer",
    "usingcomputer": "reading",
    "ridingbike": "ridinghorse",
    "ridinghorse": "ridingbike",
    "playinginstrument": "reading",
    "other": "walking",
    "person": "chair",
    "sofa": "chair",
}


def _jitter(rng: np.random.Generator, box: Box, sigma: float, im: DemoImage, shift: float = 0.0):
    """``box`` with centre and scale noise of ``sigma`` (relative to its size), moved by ``shift``
    of its size along x or y (IoU about (1 - shift) / (1 + shift)), clipped to the image."""
    size = np.array([box[2] - box[0] + 1, box[3] - box[1] + 1])
    c = np.add(box[:2], box[2:]) / 2 + rng.normal(0, sigma, 2) * size
    ax = int(rng.integers(2))
    c[ax] += shift * size[ax] * rng.choice((-1, 1))
    half = size * np.exp(rng.normal(0, sigma, 2)) / 2
    lo = np.clip(c - half, 1, (im.width, im.height))
    return (*lo, *np.clip(c + half, lo, (im.width, im.height)))


def _score(rng: np.random.Generator, a: float, b: float) -> float:
    return float(np.clip(round(rng.beta(a, b), 6), 1e-6, 0.999999))


def _detections(rng: np.random.Generator, val: list[DemoImage]) -> dict[str, list[tuple]]:
    """Simulated comp4 detections per class: (image id, score, (xmin, ymin, xmax, ymax)). Most
    objects found with small jitter; misses, mislocations, confusions, duplicates, false alarms."""
    dets: dict[str, list[tuple]] = {c: [] for c in VOC_CLASSES}
    hits: dict[str, list[float]] = {c: [] for c in VOC_CLASSES}
    for im in val:
        for o in im.objs:
            sure = not o.difficult and not hits[o.cls]  # each class's first object is found
            miss = 0.06 + 0.4 * o.difficult + 0.12 * o.truncated + 0.12 * o.occluded
            if not sure and rng.random() < miss:
                continue
            r, hard = rng.random(), o.difficult or o.truncated or o.occluded
            if r < 0.18 and not sure:  # poorly localised (IoU 0.1 .. 0.5), or a similar class
                cls, shift = (o.cls, rng.uniform(0.35, 0.8)) if r < 0.1 else (CONFUSED[o.cls], 0)
                dets[cls].append((im.id, _score(rng, 2.5, 3), _jitter(rng, o.box, 0.04, im, shift)))
                continue
            s = round(_score(rng, 6, 1.8) * (0.8 if hard else 1.0), 6)
            dets[o.cls].append((im.id, s, _jitter(rng, o.box, 0.04, im)))
            if not o.difficult:
                hits[o.cls].append(s)
            if rng.random() < 0.07:  # a duplicate
                dup = (im.id, round(s * rng.uniform(0.3, 0.9), 6), _jitter(rng, o.box, 0.1, im))
                dets[o.cls].append(dup)
    alarms = [str(c) for c in rng.choice(VOC_CLASSES, int(rng.poisson(1.2 * len(val))))]
    for c in VOC_CLASSES:  # background false alarms; one per class ranks among its hits
        h = hits[c]
        among = rng.uniform(min(h), max(h)) if len(h) > 1 else min(1.05 * max(h, default=0.5), 0.99)
        for s in [*(_score(rng, 1.3, 5) for _ in range(2 + alarms.count(c))), round(among, 6)]:
            im = val[int(rng.integers(len(val)))]
            (aspect, rel), k = FIGURE_SIZE[c], rng.uniform(0.3, 1.1)
            bw, bh = min(rel * im.height * k * aspect, im.width - 2), rel * im.height * k
            x, y = rng.uniform(1, im.width - bw), rng.uniform(1, max(1, im.height - bh))
            dets[c].append((im.id, s, (x, y, x + bw, min(y + bh, im.height))))
        _tie(rng, dets[c])
        dets[c].sort(key=lambda t: t[0])
    return dets


def _tie(rng: np.random.Generator, rows: list[tuple]) -> None:
    """With probability 0.6, give two random rows the same score (column 1)."""
    if len(rows) >= 2 and rng.random() < 0.6:
        i, j = rng.choice(len(rows), 2, replace=False)
        rows[j] = (rows[j][0], rows[i][1], *rows[j][2:])


def _seg_result(rng: np.random.Generator, im: DemoImage) -> np.ndarray:
    """A segmenter's output (labels 0..20): each object grown or shrunk by 2 pixels, sometimes
    taken for a similar class or missed."""
    out = np.zeros_like(im.lab)
    for k, o in enumerate(im.objs, 1):
        m = dilate(im.lab == k, 2) if rng.random() < 0.5 else ~dilate(im.lab != k, 2)
        r = rng.random()
        out[m] = 0 if r < 0.08 else VOC_CLASSES.index(CONFUSED[o.cls] if r < 0.2 else o.cls) + 1
    return out


def _layout_results(rng: np.random.Generator, val: list[DemoImage]) -> bytes:
    """comp7 layout XML: one ``<layout>`` per val person with parts; good ones confident."""
    layouts = []
    for im in val:
        for k, o in ((k, o) for k, o in enumerate(im.objs, 1) if o.parts):
            good = rng.random() < 0.75
            kept = [(n, b) for n, b in o.parts if n == "head" or rng.random() < 0.8]
            boxes = [_jitter(rng, b, 0.08 if good else 0.35, im) for _, b in kept]
            parts = [
                el("part", el("class", n), bndbox(tuple(round(v) for v in b)))
                for (n, _), b in zip(kept, boxes, strict=True)
            ]
            conf = f"{rng.beta(5, 2) if good else rng.beta(2, 3):.6f}"
            layouts.append(
                el("layout", el("image", im.id), el("object", k), el("confidence", conf), *parts)
            )
    return etree.tostring(el("results", *layouts), pretty_print=True)


def write_results(
    rng: np.random.Generator, out: Path, val: list[DemoImage], palette: bytes
) -> None:
    best: dict[tuple[str, str], float] = {}
    for c, dets in _detections(rng, val).items():
        lines = [f"{i} {s:.6f} {b[0]:.1f} {b[1]:.1f} {b[2]:.1f} {b[3]:.1f}" for i, s, b in dets]
        write_lines(out / "Main" / f"comp4_det_val_{c}.txt", lines)
        for i, s, _ in dets:
            best[c, i] = max(s, best.get((c, i), 0.0))
    for c in VOC_CLASSES:  # image score: the best detection's, else low; with noise
        rows = [(im.id, best.get((c, im.id), rng.beta(1.2, 8)) + rng.normal(0, 0.04)) for im in val]
        rows = [(i, float(np.clip(round(s, 6), 1e-6, 0.999999))) for i, s in rows]
        _tie(rng, rows)
        write_lines(out / "Main" / f"comp2_cls_val_{c}.txt", [f"{i} {s:.6f}" for i, s in rows])
    (out / "Segmentation" / "comp6_val_cls").mkdir(parents=True)
    for im in (im for im in val if im.segmented):
        write_png(
            _seg_result(rng, im), out / "Segmentation" / "comp6_val_cls" / f"{im.id}.png", palette
        )
    (out / "Layout").mkdir()
    (out / "Layout" / "comp7_layout_val.xml").write_bytes(_layout_results(rng, val))
    persons = [(im.id, k, o.action) for im in val for k, o in enumerate(im.objs, 1) if o.action]
    for a in VOC_ACTIONS[1:]:
        ab = [(5, 2) if x == a else (3, 3) if CONFUSED[x] == a else (1.5, 5) for _, _, x in persons]
        lines = [f"{i} {k} {rng.beta(*p):.6f}" for (i, k, _), p in zip(persons, ab, strict=True)]
        write_lines(out / "Action" / f"comp9_action_val_{a}.txt", lines)
