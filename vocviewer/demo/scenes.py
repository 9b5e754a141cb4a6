"""The demo's scenes: which classes each image shows (``plan``), where the figures stand
(``_compose``), and the rendered picture with its objects annotated (``render``): boxes, parts and
flags from the drawn pixels, label maps for the segmentation PNGs.

Boxes are VOC's 1-based inclusive pixels ``xmin ymin xmax ymax``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from PIL import Image, ImageDraw

from vocviewer.core.dataset import VOC_CLASSES
from vocviewer.demo.drawing import FIGURE_SIZE, FIGURES
from vocviewer.demo.drawing.background import background
from vocviewer.demo.drawing.person import PROFILE, RIDE, person, rider_joints
from vocviewer.demo.drawing.shapes import Frame, Shape, draw_shapes, mask_of

#: The one class with no object in ``val``: its val results are all false positives (AP NaN).
VAL_EMPTY_CLASS = "sofa"
#: scene -> (anchor classes, placed three times per split; companions, added at random)
SCENES = {
    "indoor": (
        ("chair", "sofa", "diningtable", "tvmonitor", "bottle", "pottedplant", "cat"),
        ("person", "person", "dog", "cat", "bottle", "pottedplant", "chair"),
    ),
    "field": (
        ("cow", "horse", "sheep", "dog", "train", "bicycle", "bird"),
        ("person", "person", "dog", "bird", "sheep", "cow", "horse", "aeroplane"),
    ),
    "street": (
        ("car", "bus", "motorbike", "bicycle", "person"),
        ("person", "person", "car", "dog", "bicycle", "bird", "bus"),
    ),
    "water": (("boat", "aeroplane"), ("boat", "bird", "aeroplane")),
}
SCENE_ACTIONS = {
    "indoor": ("other", "phoning", "reading", "playinginstrument", "usingcomputer", "takingphoto"),
    "field": ("walking", "running", "jumping", "other", "takingphoto", "playinginstrument"),
    "street": ("walking", "running", "phoning", "other", "takingphoto", "jumping"),
}
ON_TABLE = {"bottle": 0.6, "tvmonitor": 0.75, "pottedplant": 0.7}  # height / table height
SIZES = ((500, 375),) * 5 + ((500, 333), (375, 500), (500, 400), (480, 360))
Box = tuple[int, int, int, int]


@dataclass
class DemoObject:
    """A figure as drawn (``shapes``, ``faint``, the ``action`` it shows) and, once rendered, as
    annotated: ``box`` and ``parts`` 1-based inclusive, ``action`` '' if not annotated."""

    cls: str
    shapes: list[Shape]
    pose: str
    faint: bool = False
    action: str = ""
    box: Box = (0, 0, 0, 0)
    truncated: bool = False
    occluded: bool = False
    difficult: bool = False
    parts: list[tuple[str, Box]] = field(default_factory=list)


@dataclass
class DemoImage:
    """One image; uint8 (H, W) ``lab`` holds the object number per pixel (0 background, 255 hidden
    objects), ``seg_cls`` the SegmentationClass content (255 void: outlines, difficult objects)."""

    id: str
    split: str
    width: int
    height: int
    objs: list[DemoObject]
    lab: np.ndarray
    seg_cls: np.ndarray
    segmentable: bool  # every non-difficult object keeps >= 10 pixels of its class in its box
    segmented: bool = False


def plan(rng: np.random.Generator, n: int) -> list[tuple[str, str, list[str]]]:
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
    front = cls in ("sofa", "tvmonitor") or (cls == "person" and pose not in PROFILE)
    return "Frontal" if front else "Left" if flip else "Right"


def _rider(rng: np.random.Generator, vehicle: str, f: Frame) -> DemoObject:
    """A person riding the ``vehicle`` figure drawn in frame ``f``."""
    seat, grip, foot, k = RIDE[vehicle]
    (sx, sy), H, d = f.p(*seat), k * f.h, -1.0 if f.flip else 1.0
    local = [((x - sx) * d / H, (y - sy) / H) for x, y in (f.p(*grip), f.p(*foot))]
    action = "ridinghorse" if vehicle == "horse" else "ridingbike"
    pf = Frame(sx - H if f.flip else sx, sy, H, H, f.flip)
    shapes = person(pf, action, rng, rider_joints(*local))
    return DemoObject("person", shapes, _pose("person", action, f.flip), False, action)


def _compose(rng: np.random.Generator, scene: str, classes: list[str], w: int, h: int, hz: float):
    """Place figures of ``classes`` in a ``w x h`` scene with its horizon at row ``hz``; returned
    far to near (drawing order). Some bicycles, motorbikes and horses get a rider."""
    items: list[tuple[float, DemoObject]] = []  # (drawing order, figure)
    slots, table, prev = rng.permutation(len(classes)), None, None
    for i in sorted(range(len(classes)), key=lambda i: classes[i] != "diningtable"):
        cls, flip, faint = classes[i], bool(rng.random() < 0.5), bool(rng.random() < 0.05)
        (aspect, rel), actions = FIGURE_SIZE[cls], SCENE_ACTIONS.get(scene, ("other",))
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
            f = Frame(cx - size if flip else cx, hy, size, size, flip)
            o = DemoObject(cls, person(f, pose, rng), _pose(cls, pose, flip), faint, action)
            items.append((z, o))
            continue
        f = Frame(cx - fw / 2, base - size, fw, size, flip)
        table = f if cls == "diningtable" else table
        items.append((z, DemoObject(cls, FIGURES[cls](f, rng), _pose(cls, "", flip), faint)))
        if cls in RIDE and scene != "indoor" and not faint and rng.random() < 0.45:
            items.append((z + 1e-3, _rider(rng, cls, f)))
    return [fig for _, fig in sorted(items, key=lambda it: it[0])]


def dilate(m: np.ndarray, r: int) -> np.ndarray:
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


def render(
    rng: np.random.Generator, id_: str, split: str, scene: str, classes: list[str], year: Path
) -> DemoImage:
    """Draw one JPEG into ``year``; derive its annotation and segmentation from the shapes."""
    w, h = SIZES[int(rng.integers(len(SIZES)))]
    img, hz = background(scene, w, h, rng)
    figs = _compose(rng, scene, classes, w, h, hz)
    inst = Image.new("L", (w, h), 0)  # figure number per pixel; 0 background and props
    for k, o in enumerate(figs, 1):
        layer = img.copy() if o.faint else img
        draw_shapes(ImageDraw.Draw(layer), o.shapes)
        img = Image.blend(img, layer, 0.45) if o.faint else img
        for s in o.shapes:
            draw_shapes(ImageDraw.Draw(inst), [s], 0 if s.prop else k)
    rgb = np.asarray(img, np.int16) + rng.integers(-5, 6, (h, w, 1), dtype=np.int16)  # grain
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(year / f"JPEGImages/{id_}.jpg")
    lab, objs = np.asarray(inst), []
    index, label, void = np.zeros(256, np.uint8), np.zeros(256, np.uint8), np.zeros(256, bool)
    for k, o in enumerate(figs, 1):
        own, vis = mask_of([s for s in o.shapes if not s.prop], (w, h)), lab == k
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
            parts = [
                (t[:4], _bbox(mask_of([s for s in o.shapes if s.part == t], (w, h)))) for t in tags
            ]
            if parts and parts[0][1] and rng.random() < 0.6:
                o.parts = [(t, b) for t, b in parts if b]
        o.action = o.action if o.cls == "person" and not o.difficult and rng.random() < 0.75 else ""
        objs.append(o)
        index[k], label[k], void[k] = len(objs), VOC_CLASSES.index(o.cls) + 1, o.difficult
    edge = np.zeros(lab.shape, bool)
    edge[:, :-1] |= lab[:, :-1] != lab[:, 1:]
    edge[:-1] |= lab[:-1] != lab[1:]
    void_px = dilate(edge, 2) | void[lab]  # a 5-pixel band on every outline; difficult objects
    seg_cls = np.where(void_px, 255, label[lab])
    ok = [
        o.difficult
        or (
            seg_cls[o.box[1] - 1 : o.box[3], o.box[0] - 1 : o.box[2]]
            == VOC_CLASSES.index(o.cls) + 1
        ).sum()
        >= 10
        for o in objs
    ]
    return DemoImage(id_, split, w, h, objs, index[lab], seg_cls, bool(objs) and all(ok))
