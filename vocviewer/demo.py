"""The embedded demo VOCdevkit: drawn scenes with every VOC annotation and a simulated detector.

``write_demo(root)`` writes ``root/VOCdevkit/VOC2012`` (images, annotations, image sets, class and
object segmentations) and, in ``root/VOCdevkit/results/VOC2012``, a simulated method's results on
``val`` for every task (comp4 det, comp2 cls, comp6 seg, comp7 layout, comp9 action). Boxes in the
files are VOC's 1-based inclusive pixels ``xmin ymin xmax ymax``. Everything derives from
``numpy.random.default_rng(seed)``: the same seed gives the same bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import platformdirs
from lxml import etree
from numpy.lib.stride_tricks import sliding_window_view
from PIL import Image, ImageDraw

from vocviewer import demo_drawing as dd
from vocviewer.core.dataset import VOC_ACTIONS, VOC_CLASSES
from vocviewer.core.palette import voc_colormap
from vocviewer.demo_place import STAMP, check_root, read_stamp

YEAR, DEMO_VERSION = "VOC2012", 1
#: The one class with no object in ``val``: its val results are all false positives (AP NaN).
VAL_EMPTY_CLASS = "sofa"
#: scene -> (anchor classes, placed three times per split; companions, added at random)
SCENES = {
    "indoor": (("chair", "sofa", "diningtable", "tvmonitor", "bottle", "pottedplant", "cat"),
               ("person", "person", "dog", "cat", "bottle", "pottedplant", "chair")),
    "field": (("cow", "horse", "sheep", "dog", "train", "bicycle", "bird"),
              ("person", "person", "dog", "bird", "sheep", "cow", "horse", "aeroplane")),
    "street": (("car", "bus", "motorbike", "bicycle", "person"),
               ("person", "person", "car", "dog", "bicycle", "bird", "bus")),
    "water": (("boat", "aeroplane"), ("boat", "bird", "aeroplane")),
}  # fmt: skip
SCENE_ACTIONS = {
    "indoor": ("other", "phoning", "reading", "playinginstrument", "usingcomputer", "takingphoto"),
    "field": ("walking", "running", "jumping", "other", "takingphoto", "playinginstrument"),
    "street": ("walking", "running", "phoning", "other", "takingphoto", "jumping"),
}
ON_TABLE = {"bottle": 0.6, "tvmonitor": 0.75, "pottedplant": 0.7}  # height / table height
#: What the simulated methods mistake a class (an action) for.
CONFUSED = {
    "cow": "horse", "horse": "cow", "sheep": "cow", "dog": "cat", "cat": "dog", "bus": "train",
    "train": "bus", "car": "bus", "bicycle": "motorbike", "motorbike": "bicycle", "chair": "sofa",
    "diningtable": "chair", "bottle": "pottedplant", "pottedplant": "bottle", "bird": "aeroplane",
    "aeroplane": "bird", "boat": "car", "tvmonitor": "chair", "walking": "running",
    "running": "jumping", "jumping": "running", "phoning": "takingphoto", "takingphoto": "phoning",
    "reading": "usingcomputer", "usingcomputer": "reading", "ridingbike": "ridinghorse",
    "ridinghorse": "ridingbike", "playinginstrument": "reading", "other": "walking",
    "person": "chair", "sofa": "chair",
}  # fmt: skip
SIZES = ((500, 375),) * 5 + ((500, 333), (375, 500), (500, 400), (480, 360))
Box = tuple[int, int, int, int]
XYXY = ("xmin", "ymin", "xmax", "ymax")


@dataclass(frozen=True)
class DemoPaths:
    """A written demo: ``<root>/VOCdevkit``, its VOC2012 folder, its ``results/VOC2012``."""

    devkit: Path
    year_dir: Path
    results_dir: Path


def default_demo_dir() -> Path:
    """The per-user cache folder the app writes its demo to."""
    return Path(platformdirs.user_cache_dir("vocviewer")) / "demo"


@dataclass
class _Obj:
    """A figure as drawn (``shapes``, ``faint``, the ``action`` it shows) and, once rendered, as
    annotated: ``box`` and ``parts`` 1-based inclusive, ``action`` '' if not annotated."""

    cls: str
    shapes: list[dd.Shape]
    pose: str
    faint: bool = False
    action: str = ""
    box: Box = (0, 0, 0, 0)
    truncated: bool = False
    occluded: bool = False
    difficult: bool = False
    parts: list[tuple[str, Box]] = field(default_factory=list)


@dataclass
class _Image:
    """One image; uint8 (H, W) ``lab`` holds the object number per pixel (0 background, 255 hidden
    objects), ``seg_cls`` the SegmentationClass content (255 void: outlines, difficult objects)."""

    id: str
    split: str
    width: int
    height: int
    objs: list[_Obj]
    lab: np.ndarray
    seg_cls: np.ndarray
    segmentable: bool  # every non-difficult object keeps >= 10 pixels of its class in its box
    segmented: bool = False


def _plan(rng: np.random.Generator, n: int) -> list[tuple[str, str, list[str]]]:
    """(split, scene, classes) per image in id order: each split has every anchor class three
    times (``VAL_EMPTY_CLASS`` never in val), one or two companions each, and one empty image."""
    out = []
    for split, m in (("train", n - n // 2), ("val", n // 2)):
        ok = [c for c in VOC_CLASSES if split == "train" or c != VAL_EMPTY_CLASS]
        imgs = []
        for scene, (anchors, _) in SCENES.items():
            a = [c for c in anchors if c in ok] * 3
            rng.shuffle(a)
            step = 3 if scene == "indoor" else 2  # small things: three to a room
            imgs += [(scene, a[k : k + step]) for k in range(0, len(a), step)]
        while len(imgs) < m - 1:
            scene = str(rng.choice(list(SCENES)))
            anchors = [str(c) for c in rng.choice([c for c in SCENES[scene][0] if c in ok], 2)]
            imgs.append((scene, anchors))
        for i in rng.permutation(len(imgs))[: max(m - 1, 0)]:
            comp = [c for c in SCENES[imgs[i][0]][1] if c in ok]
            extra = [str(c) for c in rng.choice(comp, int(rng.integers(1, 3)))]
            out.append((split, imgs[i][0], imgs[i][1] + extra))
        out += [(split, str(rng.choice(list(SCENES))), [])] if m else []
    return [out[i] for i in rng.permutation(len(out))]


def _pose(cls: str, pose: str, flip: bool = False) -> str:
    """The VOC ``<pose>`` of a figure (side views face right unless ``flip``)."""
    if cls in ("bottle", "pottedplant", "diningtable"):
        return "Unspecified"
    front = cls in ("sofa", "tvmonitor") or (cls == "person" and pose not in dd.PROFILE)
    return "Frontal" if front else "Left" if flip else "Right"


def _rider(rng: np.random.Generator, vehicle: str, f: dd.Frame) -> _Obj:
    """A person riding the ``vehicle`` figure drawn in frame ``f``."""
    seat, grip, foot, k = dd.RIDE[vehicle]
    (sx, sy), H, d = f.p(*seat), k * f.h, -1.0 if f.flip else 1.0
    local = [((x - sx) * d / H, (y - sy) / H) for x, y in (f.p(*grip), f.p(*foot))]
    action = "ridinghorse" if vehicle == "horse" else "ridingbike"
    pf = dd.Frame(sx - H if f.flip else sx, sy, H, H, f.flip)
    shapes = dd.person(pf, action, rng, dd.rider_joints(*local))
    return _Obj("person", shapes, _pose("person", action, f.flip), False, action)


def _compose(rng: np.random.Generator, scene: str, classes: list[str], w: int, h: int, hz: float):
    """Place figures of ``classes`` in a ``w x h`` scene with its horizon at row ``hz``; returned
    far to near (drawing order). Some bicycles, motorbikes and horses get a rider."""
    items: list[tuple[float, _Obj]] = []  # (drawing order, figure)
    slots, table, prev = rng.permutation(len(classes)), None, None
    for i in sorted(range(len(classes)), key=lambda i: classes[i] != "diningtable"):
        cls, flip, faint = classes[i], bool(rng.random() < 0.5), bool(rng.random() < 0.05)
        (aspect, rel), actions = dd.FIGURE_SIZE[cls], SCENE_ACTIONS.get(scene, ("other",))
        sky = cls == "aeroplane" or (cls == "bird" and scene != "indoor" and rng.random() < 0.6)
        if sky:
            size = rel * h * rng.uniform(0.5, 1.2)
            base = rng.uniform(0.15, 0.9) * hz + size / 2
        else:
            t = rng.uniform(0, 0.12) if faint else rng.uniform(0, 1)  # depth, 0 far .. 1 near
            size, base = rel * h * (0.45 + 0.8 * t), hz + (0.06 + 0.9 * t) * (h - hz)
            if cls == "person" and rng.random() < 0.12:
                base = h + 0.25 * size  # cut at the knees by the bottom border
        fw, z = size * aspect, base
        cx = (slots[i] + 0.5 + rng.uniform(-0.3, 0.3)) * w / len(classes)
        if prev is not None and not sky and rng.random() < 0.3:  # in front of the previous one
            cx = prev + rng.choice([-1, 1]) * rng.uniform(0.1, 0.4) * fw
        if not sky and rng.random() < 0.12:  # cut by the left or right border
            cut = fw * (0.5 - rng.uniform(0.1, 0.45))
            cx = cut if rng.random() < 0.5 else w - cut
        prev = prev if sky else cx
        if table is not None and cls in ON_TABLE and rng.random() < 0.75:
            size, base = table.h * ON_TABLE[cls], table.y0 + 0.07 * table.h
            cx, fw = table.x0 + rng.uniform(0.2, 0.8) * table.w, size * aspect
            z = table.y0 + table.h + 0.5  # just after the table
        if cls == "person":
            action = str(rng.choice(actions))
            pose = "other_nohands" if action == "other" and rng.random() < 0.35 else action
            hy = base - 0.49 * size - (0.15 * size if pose == "jumping" else 0.0)
            f = dd.Frame(cx - size if flip else cx, hy, size, size, flip)
            o = _Obj(cls, dd.person(f, pose, rng), _pose(cls, pose, flip), faint, action)
            items.append((z, o))
            continue
        f = dd.Frame(cx - fw / 2, base - size, fw, size, flip)
        table = f if cls == "diningtable" else table
        items.append((z, _Obj(cls, dd.FIGURES[cls](f, rng), _pose(cls, "", flip), faint)))
        if cls in dd.RIDE and scene != "indoor" and not faint and rng.random() < 0.45:
            items.append((z + 1e-3, _rider(rng, cls, f)))
    return [fig for _, fig in sorted(items, key=lambda it: it[0])]


def _dilate(m: np.ndarray, r: int) -> np.ndarray:
    """Boolean ``m`` dilated by a (2r + 1)-pixel square."""
    for axis in (0, 1):
        pad = [(r, r) if a == axis else (0, 0) for a in (0, 1)]
        m = sliding_window_view(np.pad(m, pad), 2 * r + 1, axis=axis).any(-1)
    return m


def _bbox(mask: np.ndarray) -> Box | None:
    """1-based inclusive box of a boolean (H, W) mask; None if empty."""
    rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
    if not len(rows):
        return None
    return int(cols[0]) + 1, int(rows[0]) + 1, int(cols[-1]) + 1, int(rows[-1]) + 1


def _render(rng: np.random.Generator, id_: str, split: str, scene: str, classes: list[str],
            year: Path) -> _Image:  # fmt: skip
    """Draw one JPEG into ``year``; derive its annotation and segmentation from the shapes."""
    w, h = SIZES[int(rng.integers(len(SIZES)))]
    img, hz = dd.background(scene, w, h, rng)
    figs = _compose(rng, scene, classes, w, h, hz)
    inst = Image.new("L", (w, h), 0)  # figure number per pixel; 0 background and props
    for k, o in enumerate(figs, 1):
        layer = img.copy() if o.faint else img
        dd.draw_shapes(ImageDraw.Draw(layer), o.shapes)
        img = Image.blend(img, layer, 0.45) if o.faint else img
        for s in o.shapes:
            dd.draw_shapes(ImageDraw.Draw(inst), [s], 0 if s.prop else k)
    rgb = np.asarray(img, np.int16) + rng.integers(-5, 6, (h, w, 1), dtype=np.int16)  # grain
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(year / f"JPEGImages/{id_}.jpg")
    lab, objs = np.asarray(inst), []
    index, label, void = np.zeros(256, np.uint8), np.zeros(256, np.uint8), np.zeros(256, bool)
    for k, o in enumerate(figs, 1):
        own, vis = dd.mask_of([s for s in o.shapes if not s.prop], (w, h)), lab == k
        box = _bbox(vis)
        if box is None or vis.sum() < 30:  # hidden behind others: not annotated, void
            index[k], void[k] = 255, True
            continue
        bw, bh, frac = box[2] - box[0] + 1, box[3] - box[1] + 1, vis.sum() / own.sum()
        o.box, o.occluded = box, bool(frac < 0.75)
        o.difficult = bool(o.faint or frac < 0.35 or min(bw, bh) < 8 or bw * bh < 300)
        o.truncated = bool(own[0].any() or own[-1].any() or own[:, 0].any() or own[:, -1].any())
        if o.cls == "person" and not o.difficult:  # layout (parts clipped to the image), action
            tags = dict.fromkeys(s.part for s in o.shapes if s.part)  # head, hands, feet
            parts = [(t[:4], _bbox(dd.mask_of([s for s in o.shapes if s.part == t], (w, h))))
                     for t in tags]  # fmt: skip
            if parts and parts[0][1] and rng.random() < 0.6:
                o.parts = [(t, b) for t, b in parts if b]
        o.action = o.action if o.cls == "person" and not o.difficult and rng.random() < 0.75 else ""
        objs.append(o)
        index[k], label[k], void[k] = len(objs), VOC_CLASSES.index(o.cls) + 1, o.difficult
    edge = np.zeros(lab.shape, bool)
    edge[:, :-1] |= lab[:, :-1] != lab[:, 1:]
    edge[:-1] |= lab[:-1] != lab[1:]
    void_px = _dilate(edge, 2) | void[lab]  # a 5-pixel band on every outline; difficult objects
    seg_cls = np.where(void_px, 255, label[lab])
    ok = [o.difficult or (seg_cls[o.box[1] - 1 : o.box[3], o.box[0] - 1 : o.box[2]]
                          == VOC_CLASSES.index(o.cls) + 1).sum() >= 10 for o in objs]  # fmt: skip
    return _Image(id_, split, w, h, objs, index[lab], seg_cls, bool(objs) and all(ok))


def _el(tag: str, *kids: object) -> etree._Element:
    """``<tag>`` with the element children in ``kids``, or the text of a single non-element."""
    e = etree.Element(tag)
    e.extend(k for k in kids if isinstance(k, etree._Element))
    e.text = next((str(k) for k in kids if not isinstance(k, etree._Element)), None)
    return e


def _bndbox(box: Box) -> etree._Element:
    return _el("bndbox", *(_el(t, v) for t, v in zip(XYXY, box, strict=True)))


def _annotation(im: _Image) -> bytes:
    """The image's VOC XML: objects in drawing order, parts, action flags in alphabetical order."""
    objs = [
        _el("object", _el("name", o.cls), _el("pose", o.pose), _el("truncated", int(o.truncated)),
            _el("occluded", int(o.occluded)), _el("difficult", int(o.difficult)), _bndbox(o.box),
            *(_el("part", _el("name", n), _bndbox(b)) for n, b in o.parts),
            *([_el("actions", *(_el(a, int(a == o.action)) for a in sorted(VOC_ACTIONS)))]
              if o.action else []))
        for o in im.objs
    ]  # fmt: skip
    source = (_el("database", f"The {YEAR} Database"), _el("annotation", f"PASCAL {YEAR}"),
              _el("image", "vocviewer demo"))  # fmt: skip
    size = (_el("width", im.width), _el("height", im.height), _el("depth", 3))
    root = _el("annotation", _el("folder", YEAR), _el("filename", f"{im.id}.jpg"),
               _el("source", *source), _el("size", *size), _el("segmented", int(im.segmented)),
               *objs)  # fmt: skip
    return etree.tostring(root, pretty_print=True)


def _write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join(f"{ln}\n" for ln in lines).encode())


def _write_sets(year: Path, imgs: list[_Image]) -> None:
    files: dict[str, list[str]] = {}
    for s in ("train", "val", "trainval"):
        ims = sorted((im for im in imgs if s in (im.split, "trainval")), key=lambda im: im.id)
        files[f"Main/{s}.txt"] = [im.id for im in ims]
        for c in VOC_CLASSES:  # 1: a non-difficult c object, 0: only difficult ones, -1: none
            flags = {im.id: [o.difficult for o in im.objs if o.cls == c] for im in ims}
            lines = [f"{i} {1 - all(f) if f else -1:2d}" for i, f in flags.items()]
            files[f"Main/{c}_{s}.txt"] = lines
        files[f"Segmentation/{s}.txt"] = [im.id for im in ims if im.segmented]
        objs = [(im.id, k, o) for im in ims for k, o in enumerate(im.objs, 1)]
        files[f"Layout/{s}.txt"] = [f"{i} {k}" for i, k, o in objs if o.parts]
        acts = [(i, k, o.action) for i, k, o in objs if o.action]
        files[f"Action/{s}.txt"] = sorted({i for i, _, _ in acts})
        for a in VOC_ACTIONS:
            files[f"Action/{a}_{s}.txt"] = [f"{i} {k} {1 if x == a else -1:2d}" for i, k, x in acts]
    for name, lines in files.items():
        _write_lines(year / "ImageSets" / name, lines)


def _jitter(rng: np.random.Generator, box: Box, sigma: float, im: _Image, shift: float = 0.0):
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


def _detections(rng: np.random.Generator, val: list[_Image]) -> dict[str, list[tuple]]:
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
            (aspect, rel), k = dd.FIGURE_SIZE[c], rng.uniform(0.3, 1.1)
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


def _seg_result(rng: np.random.Generator, im: _Image) -> np.ndarray:
    """A segmenter's output (labels 0..20): each object grown or shrunk by 2 pixels, sometimes
    taken for a similar class or missed."""
    out = np.zeros_like(im.lab)
    for k, o in enumerate(im.objs, 1):
        m = _dilate(im.lab == k, 2) if rng.random() < 0.5 else ~_dilate(im.lab != k, 2)
        r = rng.random()
        out[m] = 0 if r < 0.08 else VOC_CLASSES.index(CONFUSED[o.cls] if r < 0.2 else o.cls) + 1
    return out


def _layout_results(rng: np.random.Generator, val: list[_Image]) -> bytes:
    """comp7 layout XML: one ``<layout>`` per val person with parts; good ones confident."""
    layouts = []
    for im in val:
        for k, o in ((k, o) for k, o in enumerate(im.objs, 1) if o.parts):
            good = rng.random() < 0.75
            kept = [(n, b) for n, b in o.parts if n == "head" or rng.random() < 0.8]
            boxes = [_jitter(rng, b, 0.08 if good else 0.35, im) for _, b in kept]
            parts = [_el("part", _el("class", n), _bndbox(tuple(round(v) for v in b)))
                     for (n, _), b in zip(kept, boxes, strict=True)]  # fmt: skip
            conf = f"{rng.beta(5, 2) if good else rng.beta(2, 3):.6f}"
            layouts.append(_el("layout", _el("image", im.id), _el("object", k),
                               _el("confidence", conf), *parts))  # fmt: skip
    return etree.tostring(_el("results", *layouts), pretty_print=True)


def _write_results(rng: np.random.Generator, out: Path, val: list[_Image], palette: bytes) -> None:
    best: dict[tuple[str, str], float] = {}
    for c, dets in _detections(rng, val).items():
        lines = [f"{i} {s:.6f} {b[0]:.1f} {b[1]:.1f} {b[2]:.1f} {b[3]:.1f}" for i, s, b in dets]
        _write_lines(out / "Main" / f"comp4_det_val_{c}.txt", lines)
        for i, s, _ in dets:
            best[c, i] = max(s, best.get((c, i), 0.0))
    for c in VOC_CLASSES:  # image score: the best detection's, else low; with noise
        rows = [(im.id, best.get((c, im.id), rng.beta(1.2, 8)) + rng.normal(0, 0.04)) for im in val]
        rows = [(i, float(np.clip(round(s, 6), 1e-6, 0.999999))) for i, s in rows]
        _tie(rng, rows)
        _write_lines(out / "Main" / f"comp2_cls_val_{c}.txt", [f"{i} {s:.6f}" for i, s in rows])
    (out / "Segmentation" / "comp6_val_cls").mkdir(parents=True)
    for im in (im for im in val if im.segmented):
        _png(_seg_result(rng, im), out / "Segmentation" / "comp6_val_cls" / f"{im.id}.png", palette)
    (out / "Layout").mkdir()
    (out / "Layout" / "comp7_layout_val.xml").write_bytes(_layout_results(rng, val))
    persons = [(im.id, k, o.action) for im in val for k, o in enumerate(im.objs, 1) if o.action]
    for a in VOC_ACTIONS[1:]:
        ab = [(5, 2) if x == a else (3, 3) if CONFUSED[x] == a else (1.5, 5) for _, _, x in persons]
        lines = [f"{i} {k} {rng.beta(*p):.6f}" for (i, k, _), p in zip(persons, ab, strict=True)]
        _write_lines(out / "Action" / f"comp9_action_val_{a}.txt", lines)


def _png(arr: np.ndarray, path: Path, palette: bytes) -> None:
    img = Image.fromarray(arr.astype(np.uint8))
    img.putpalette(palette)  # "L" becomes "P"
    img.save(path)


def _generate(devkit: Path, seed: int, n_images: int) -> None:
    rng, year = np.random.default_rng(seed), devkit / YEAR
    for sub in ("JPEGImages", "Annotations", "SegmentationClass", "SegmentationObject"):
        (year / sub).mkdir(parents=True)
    imgs = [_render(rng, f"2012_{i:06d}", *p, year) for i, p in enumerate(_plan(rng, n_images), 1)]
    for split in ("train", "val"):  # about a third of each split is segmented
        cand = [im for im in imgs if im.split == split and im.segmentable]
        for j in rng.choice(len(cand), min(len(cand), round(n_images / 6)), replace=False):
            cand[j].segmented = True
    palette = voc_colormap().tobytes()
    for im in imgs:
        (year / "Annotations" / f"{im.id}.xml").write_bytes(_annotation(im))
        if im.segmented:
            _png(im.seg_cls, year / "SegmentationClass" / f"{im.id}.png", palette)
            seg_obj = np.where(im.seg_cls == 255, 255, im.lab)  # same void as the class PNG
            _png(seg_obj, year / "SegmentationObject" / f"{im.id}.png", palette)
    _write_sets(year, imgs)
    val = [im for im in imgs if im.split == "val"]
    _write_results(rng, devkit / "results" / YEAR, val, palette)


def write_demo(root: str | Path, *, seed: int = 0, n_images: int = 60) -> DemoPaths:
    """Generate the demo VOCdevkit in ``root`` (byte-identical for the same ``seed``). Returns at
    once if ``root`` holds this demo (seed, size, version) already; replaces another demo; raises
    ``FileExistsError`` rather than mix it with other data (``demo_place.check_root``). Built in a
    temporary folder (``.VOCdevkit-PID-*``, swept once its writer is gone), then moved into place."""
    devkit = Path(root) / "VOCdevkit"
    paths = DemoPaths(devkit, devkit / YEAR, devkit / "results" / YEAR)
    stamp = {"vocviewer_demo": DEMO_VERSION, "seed": seed, "n_images": n_images}
    old = read_stamp(devkit)
    if old == stamp:
        return paths
    check_root(Path(os.path.abspath(root)))
    devkit.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".VOCdevkit-{os.getpid()}-", dir=devkit.parent))
    try:
        _generate(tmp, seed, n_images)
        (tmp / STAMP).write_text(json.dumps(stamp, sort_keys=True) + "\n")
        if devkit.exists():
            shutil.rmtree(devkit)
        os.replace(tmp, devkit)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (isinstance(exc, OSError) and read_stamp(devkit) == stamp):
            raise  # else a concurrent writer finished first, which is fine
    return paths
