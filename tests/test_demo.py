"""The embedded demo devkit (vocviewer.demo): layout, annotation consistency, segmentation PNGs,
simulated results, determinism and the fast path."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from PIL import Image

from vocviewer.core.dataset import VOC_ACTIONS, VOC_CLASSES, VOC_PARTS, VOC_POSES
from vocviewer.core.palette import voc_colormap
from vocviewer.demo import VAL_EMPTY_CLASS, DemoPaths, default_demo_dir, write_demo

SETS = ("train", "val", "trainval")
SEG_DIRS = ("SegmentationClass", "SegmentationObject")


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> DemoPaths:
    return write_demo(tmp_path_factory.mktemp("demo"))


def _ids(path: Path) -> list[str]:
    return [ln.split()[0] for ln in path.read_text().splitlines() if ln.strip()]


def _box(e: etree._Element) -> list[int]:
    return [int(e.findtext(f"bndbox/{t}")) for t in ("xmin", "ymin", "xmax", "ymax")]


def _annotations(paths: DemoPaths) -> dict[str, etree._Element]:
    ids = _ids(paths.year_dir / "ImageSets/Main/trainval.txt")
    return {i: etree.parse(str(paths.year_dir / "Annotations" / f"{i}.xml")).getroot() for i in ids}


def _png(path: Path) -> tuple[Image.Image, np.ndarray]:
    with Image.open(path) as im:
        im.load()
        return im, np.asarray(im)


def _iou(a: list[float], b: list[float]) -> float:
    iw, ih = min(a[2], b[2]) - max(a[0], b[0]) + 1, min(a[3], b[3]) - max(a[1], b[1]) + 1
    if iw <= 0 or ih <= 0:
        return 0.0
    area = (a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1)
    return iw * ih / (area - iw * ih)


def _voc_ap(lines: list[list[str]], gt: dict[str, list[tuple[list[int], bool]]]) -> float:
    """VOC2010+ detection AP (all points), as VOCevaldet computes it; NaN if no positives."""
    npos = sum(not d for objs in gt.values() for _, d in objs)
    taken, tp, fp = set(), [], []
    for t in sorted(lines, key=lambda t: -float(t[1])):
        cands = gt.get(t[0], [])
        ious = [_iou([float(v) for v in t[2:6]], g) for g, _ in cands]
        j = int(np.argmax(ious)) if ious else -1
        if j >= 0 and ious[j] >= 0.5:
            if cands[j][1]:
                continue
            tp.append((t[0], j) not in taken)
            taken.add((t[0], j))
        else:
            tp.append(False)
        fp.append(not tp[-1])
    if not npos:
        return float("nan")
    ctp, cfp = np.cumsum(tp), np.cumsum(fp)
    rec, prec = np.r_[0, ctp / npos, 1], np.r_[0, ctp / np.maximum(ctp + cfp, 1), 0]
    prec = np.maximum.accumulate(prec[::-1])[::-1]
    return float(np.sum((rec[1:] - rec[:-1]) * prec[1:]))


def test_colormap_follows_the_devkit_definition():
    cmap = voc_colormap()
    assert cmap.shape == (256, 3) and cmap.dtype == np.uint8
    assert [tuple(c) for c in cmap[:5]] == [
        (0, 0, 0),
        (128, 0, 0),
        (0, 128, 0),
        (128, 128, 0),
        (0, 0, 128),
    ]
    assert tuple(cmap[255]) == (224, 224, 192)  # 0b11111111 spread over R, G, B from the top bit
    assert len({tuple(c) for c in cmap}) == 256
    assert (voc_colormap(21) == cmap[:21]).all()


def test_layout_exists(paths: DemoPaths):
    assert paths.devkit.name == "VOCdevkit" and paths.year_dir == paths.devkit / "VOC2012"
    assert paths.results_dir == paths.devkit / "results" / "VOC2012"
    y = paths.year_dir
    for sub in ("JPEGImages", "Annotations", "SegmentationClass", "SegmentationObject"):
        assert (y / sub).is_dir()
    for s in SETS:
        for task in ("Main", "Segmentation", "Layout", "Action"):
            assert (y / "ImageSets" / task / f"{s}.txt").is_file()
        for c in VOC_CLASSES:
            assert (y / "ImageSets/Main" / f"{c}_{s}.txt").is_file()
        for a in VOC_ACTIONS:
            assert (y / "ImageSets/Action" / f"{a}_{s}.txt").is_file()
    r = paths.results_dir
    for c in VOC_CLASSES:
        assert (r / "Main" / f"comp4_det_val_{c}.txt").is_file()
        assert (r / "Main" / f"comp2_cls_val_{c}.txt").is_file()
    assert (r / "Layout/comp7_layout_val.xml").is_file()
    assert all((r / "Action" / f"comp9_action_val_{a}.txt").is_file() for a in VOC_ACTIONS[1:])
    ids = _ids(y / "ImageSets/Main/trainval.txt")
    assert len(ids) == 60 and ids == sorted(ids) and ids[0] == "2012_000001"
    assert all((y / "JPEGImages" / f"{i}.jpg").is_file() for i in ids)
    train, val = _ids(y / "ImageSets/Main/train.txt"), _ids(y / "ImageSets/Main/val.txt")
    assert sorted(train + val) == ids and len(train) == len(val) == 30


def test_annotations_parse_and_boxes_lie_in_the_image(paths: DemoPaths):
    annos = _annotations(paths)
    flags = dict.fromkeys(("difficult", "truncated", "occluded"), 0)
    n_objects, n_empty, n_parts = 0, 0, 0
    for i, root in annos.items():
        assert root.findtext("filename") == f"{i}.jpg" and root.findtext("folder") == "VOC2012"
        w, h = int(root.findtext("size/width")), int(root.findtext("size/height"))
        with Image.open(paths.year_dir / "JPEGImages" / f"{i}.jpg") as im:
            assert im.size == (w, h) and im.mode == "RGB"
        objs = root.findall("object")
        n_empty += not objs
        for o in objs:
            n_objects += 1
            assert o.findtext("name") in VOC_CLASSES and o.findtext("pose") in VOC_POSES
            x0, y0, x1, y1 = _box(o)
            assert 1 <= x0 <= x1 <= w and 1 <= y0 <= y1 <= h
            for k in flags:
                assert o.findtext(k) in ("0", "1")
                flags[k] += o.findtext(k) == "1"
            parts = o.findall("part")
            n_parts += bool(parts)
            if parts:
                assert o.findtext("name") == "person" and parts[0].findtext("name") == "head"
                names = [p.findtext("name") for p in parts]
                assert set(names) <= set(VOC_PARTS) and names.count("head") == 1
                assert names.count("hand") <= 2 and names.count("foot") <= 2
                for p in parts:
                    px0, py0, px1, py1 = _box(p)
                    assert 1 <= px0 <= px1 <= w and 1 <= py0 <= py1 <= h
            acts = o.find("actions")
            if acts is not None:
                assert o.findtext("name") == "person"
                assert sorted(e.tag for e in acts) == sorted(VOC_ACTIONS)
                assert sum(e.text == "1" for e in acts) == 1
    assert n_objects >= 150 and n_empty >= 2 and n_parts >= 8
    assert all(n >= 8 for n in flags.values()), flags


def test_class_files_match_the_annotations(paths: DemoPaths):
    annos = _annotations(paths)
    for s in SETS:
        ids = _ids(paths.year_dir / "ImageSets/Main" / f"{s}.txt")
        for c in VOC_CLASSES:
            lines = (paths.year_dir / "ImageSets/Main" / f"{c}_{s}.txt").read_text().splitlines()
            assert [ln[:11] for ln in lines] == ids
            for ln in lines:
                i, label = ln[:11], int(ln[11:])
                assert ln[11:] in (" -1", "  0", "  1")  # devkit layout: id, label in 2 chars
                diff = [
                    o.findtext("difficult") == "1"
                    for o in annos[i].iter("object")
                    if o.findtext("name") == c
                ]
                assert label == (-1 if not diff else 0 if all(diff) else 1), (s, c, i)
    val = _ids(paths.year_dir / "ImageSets/Main/val.txt")
    assert not any(
        o.findtext("name") == VAL_EMPTY_CLASS for i in val for o in annos[i].iter("object")
    )


def test_layout_and_action_sets_match_the_annotations(paths: DemoPaths):
    annos, y = _annotations(paths), paths.year_dir / "ImageSets"
    for s in SETS:
        ids = set(_ids(paths.year_dir / "ImageSets/Main" / f"{s}.txt"))
        objs = [(i, k, o) for i in sorted(ids) for k, o in enumerate(annos[i].iter("object"), 1)]
        layout = [f"{i} {k}" for i, k, o in objs if o.find("part") is not None]
        assert (y / "Layout" / f"{s}.txt").read_text().splitlines() == layout
        acting = [(i, k, o) for i, k, o in objs if o.find("actions") is not None]
        assert _ids(y / "Action" / f"{s}.txt") == sorted({i for i, _, _ in acting})
        for a in VOC_ACTIONS:
            rows = [ln.split() for ln in (y / "Action" / f"{a}_{s}.txt").read_text().splitlines()]
            want = [
                [i, str(k), "1" if o.findtext(f"actions/{a}") == "1" else "-1"]
                for i, k, o in acting
            ]
            assert rows == want
    assert len(layout) >= 8 and len(acting) >= 10  # trainval


def test_segmentation_pngs_agree_with_the_annotations(paths: DemoPaths):
    y, annos = paths.year_dir, _annotations(paths)
    seg = {s: _ids(y / "ImageSets/Segmentation" / f"{s}.txt") for s in SETS}
    assert 15 <= len(seg["trainval"]) <= 25 and sorted(seg["train"] + seg["val"]) == seg["trainval"]
    assert set(seg["val"]) <= set(_ids(y / "ImageSets/Main/val.txt"))
    palette = voc_colormap().tobytes()
    for i in seg["trainval"]:
        root = annos[i]
        assert root.findtext("segmented") == "1"
        objs = root.findall("object")
        (cls_png, cls), (obj_png, obj) = (_png(y / d / f"{i}.png") for d in SEG_DIRS)
        for png in (cls_png, obj_png):
            assert png.mode == "P" and bytes(png.getpalette()) == palette
            assert png.size == (int(root.findtext("size/width")), int(root.findtext("size/height")))
        assert set(np.unique(cls)) <= {*range(21), 255} and (cls == 255).any()
        assert set(np.unique(obj)) <= {*range(len(objs) + 1), 255}
        assert ((cls == 255) == (obj == 255)).all() and ((cls == 0) == (obj == 0)).all()
        names = {o.findtext("name") for o in objs}
        assert {VOC_CLASSES[v - 1] for v in np.unique(cls) if 0 < v < 255} <= names
        for k, o in enumerate(objs, 1):
            x0, y0, x1, y1 = _box(o)
            inside = np.zeros(cls.shape, bool)
            inside[y0 - 1 : y1, x0 - 1 : x1] = True
            assert not (obj == k)[~inside].any()  # an object's pixels lie in its box
            label = VOC_CLASSES.index(o.findtext("name")) + 1
            assert ((obj == k) <= (cls == label)).all()
            if o.findtext("difficult") == "0":
                assert (cls[inside] == label).any(), (i, k)
            else:
                assert not (obj == k).any()  # difficult objects are void
    unsegmented = set(_ids(y / "ImageSets/Main/trainval.txt")) - set(seg["trainval"])
    assert all(annos[i].findtext("segmented") == "0" for i in unsegmented)
    assert not any((y / "SegmentationClass" / f"{i}.png").exists() for i in unsegmented)


def test_results_parse_refer_to_val_and_give_sensible_aps(paths: DemoPaths):
    y, r, annos = paths.year_dir, paths.results_dir / "Main", _annotations(paths)
    val = _ids(y / "ImageSets/Main/val.txt")
    sizes = {
        i: (int(annos[i].findtext("size/width")), int(annos[i].findtext("size/height")))
        for i in val
    }
    aps, scores = {}, []
    for c in VOC_CLASSES:
        lines = [ln.split() for ln in (r / f"comp4_det_val_{c}.txt").read_text().splitlines()]
        assert lines, c
        for t in lines:
            assert len(t) == 6 and t[0] in sizes and len(t[1].split(".")[1]) == 6
            x0, y0, x1, y1 = map(float, t[2:])
            assert 1 <= x0 <= x1 <= sizes[t[0]][0] and 1 <= y0 <= y1 <= sizes[t[0]][1]
        scores += [t[1] for t in lines]
        gt = {}
        for i in val:
            for o in annos[i].iter("object"):
                if o.findtext("name") == c:
                    gt.setdefault(i, []).append((_box(o), o.findtext("difficult") == "1"))
        aps[c] = _voc_ap(lines, gt)
        cls_rows = [ln.split() for ln in (r / f"comp2_cls_val_{c}.txt").read_text().splitlines()]
        assert [t[0] for t in cls_rows] == val and all(0 < float(t[1]) < 1 for t in cls_rows)
    assert np.isnan(aps.pop(VAL_EMPTY_CLASS))  # no positives, only false alarms
    assert all(0.05 < ap < 1.0 for ap in aps.values()), aps
    assert 0.4 < np.mean(list(aps.values())) < 0.9
    assert len(scores) - len(set(scores)) >= 3  # some score ties


def test_bonus_results_parse(paths: DemoPaths):
    y, r = paths.year_dir, paths.results_dir
    seg_val = _ids(y / "ImageSets/Segmentation/val.txt")
    pngs = sorted(p.stem for p in (r / "Segmentation/comp6_val_cls").glob("*.png"))
    assert pngs == seg_val
    for i in seg_val:
        png, labels = _png(r / "Segmentation/comp6_val_cls" / f"{i}.png")
        assert png.mode == "P" and labels.max() <= 20
    layout = set((y / "ImageSets/Layout/val.txt").read_text().splitlines())
    results = etree.parse(str(r / "Layout/comp7_layout_val.xml")).getroot()
    found = {f"{e.findtext('image')} {e.findtext('object')}" for e in results.iter("layout")}
    assert found == layout
    for e in results.iter("layout"):
        float(e.findtext("confidence"))
        assert all(p.findtext("class") in VOC_PARTS for p in e.iter("part"))
        assert all(_box(p) for p in e.iter("part"))
    persons = [
        ln.split()[:2] for ln in (y / "ImageSets/Action/jumping_val.txt").read_text().splitlines()
    ]
    for a in VOC_ACTIONS[1:]:
        rows = [
            ln.split() for ln in (r / f"Action/comp9_action_val_{a}.txt").read_text().splitlines()
        ]
        assert [t[:2] for t in rows] == persons and all(0 < float(t[2]) < 1 for t in rows)


def test_same_seed_same_bytes_other_seed_differs(tmp_path: Path, paths: DemoPaths):
    again = write_demo(tmp_path / "a", seed=0)
    other = write_demo(tmp_path / "b", seed=1)
    sample = [
        "VOC2012/JPEGImages/2012_000001.jpg",
        "VOC2012/JPEGImages/2012_000060.jpg",
        "VOC2012/Annotations/2012_000007.xml",
        "VOC2012/ImageSets/Main/val.txt",
        "VOC2012/ImageSets/Main/dog_train.txt",
        "results/VOC2012/Main/comp4_det_val_car.txt",
        "results/VOC2012/Layout/comp7_layout_val.xml",
    ]
    seg = _ids(paths.year_dir / "ImageSets/Segmentation/trainval.txt")[0]
    sample += [f"VOC2012/SegmentationClass/{seg}.png", f"VOC2012/SegmentationObject/{seg}.png"]
    for rel in sample:
        assert (again.devkit / rel).read_bytes() == (paths.devkit / rel).read_bytes(), rel
    assert all(
        (other.devkit / rel).read_bytes() != (paths.devkit / rel).read_bytes() for rel in sample[:3]
    )
    files = sorted(p.relative_to(paths.devkit) for p in paths.devkit.rglob("*") if p.is_file())
    assert files == sorted(
        p.relative_to(again.devkit) for p in again.devkit.rglob("*") if p.is_file()
    )


def test_second_call_returns_fast_without_rewriting(tmp_path: Path):
    first = write_demo(tmp_path, n_images=12)
    probe = first.year_dir / "JPEGImages" / "2012_000001.jpg"
    os.utime(probe, (1_000_000_000, 1_000_000_000))
    assert write_demo(tmp_path, n_images=12) == first
    assert probe.stat().st_mtime == 1_000_000_000
    write_demo(tmp_path, n_images=12, seed=5)  # another seed replaces it
    assert probe.stat().st_mtime != 1_000_000_000
    assert not [p for p in tmp_path.iterdir() if p.name != "VOCdevkit"]  # no temporary left


def test_small_demo_and_refusal_to_overwrite_foreign_devkit(tmp_path: Path):
    small = write_demo(tmp_path / "small", n_images=6)
    assert len(_ids(small.year_dir / "ImageSets/Main/trainval.txt")) == 6
    foreign = tmp_path / "foreign" / "VOCdevkit"
    foreign.mkdir(parents=True)
    (foreign / "README").write_text("a real devkit")
    with pytest.raises(FileExistsError):
        write_demo(tmp_path / "foreign")
    assert (foreign / "README").read_text() == "a real devkit"


def test_default_demo_dir():
    d = default_demo_dir()
    assert d.name == "demo" and "vocviewer" in str(d)
