"""``write_demo(root)``: the embedded demo VOCdevkit, written once per seed and moved into place."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import platformdirs

from vocviewer.core.palette import voc_colormap
from vocviewer.demo.detector import write_results
from vocviewer.demo.files import YEAR, annotation_xml, write_png, write_sets
from vocviewer.demo.place import STAMP, check_root, read_stamp
from vocviewer.demo.scenes import plan, render

DEMO_VERSION = 1


@dataclass(frozen=True)
class DemoPaths:
    """A written demo: ``<root>/VOCdevkit``, its VOC2012 folder, its ``results/VOC2012``."""

    devkit: Path
    year_dir: Path
    results_dir: Path

    @property
    def result_sets(self) -> tuple[Path, ...]:
        """What the demo opens, each path one result set: the detection and classification
        results (``results/VOC2012``, read from its ``Main``) and the segmentation results
        (``results/VOC2012/Segmentation``)."""
        return (self.results_dir, self.results_dir / "Segmentation")


def default_demo_dir() -> Path:
    """The per-user cache folder the app writes its demo to."""
    return Path(platformdirs.user_cache_dir("vocviewer")) / "demo"


def _generate(devkit: Path, seed: int, n_images: int) -> None:
    rng, year = np.random.default_rng(seed), devkit / YEAR
    for sub in ("JPEGImages", "Annotations", "SegmentationClass", "SegmentationObject"):
        (year / sub).mkdir(parents=True)
    imgs = [render(rng, f"2012_{i:06d}", *p, year) for i, p in enumerate(plan(rng, n_images), 1)]
    for split in ("train", "val"):  # about a third of each split is segmented
        cand = [im for im in imgs if im.split == split and im.segmentable]
        for j in rng.choice(len(cand), min(len(cand), round(n_images / 6)), replace=False):
            cand[j].segmented = True
    palette = voc_colormap().tobytes()
    for im in imgs:
        (year / "Annotations" / f"{im.id}.xml").write_bytes(annotation_xml(im))
        if im.segmented:
            write_png(im.seg_cls, year / "SegmentationClass" / f"{im.id}.png", palette)
            seg_obj = np.where(im.seg_cls == 255, 255, im.lab)  # same void as the class PNG
            write_png(seg_obj, year / "SegmentationObject" / f"{im.id}.png", palette)
    write_sets(year, imgs)
    val = [im for im in imgs if im.split == "val"]
    write_results(rng, devkit / "results" / YEAR, val, palette)


def write_demo(root: str | Path, *, seed: int = 0, n_images: int = 60) -> DemoPaths:
    """Generate the demo VOCdevkit in ``root`` (byte-identical for the same ``seed``). Returns at
    once if ``root`` holds this demo (seed, size, version) already; replaces another demo; raises
    ``FileExistsError`` rather than mix it with other data (``demo.place.check_root``). Built in a
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
