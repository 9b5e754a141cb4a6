"""Smoke test of a built bundle: the demo opened offscreen, saved with ``--screenshot``, checked;
then ``vocviewer eval`` on the demo and on a tiny COCO file, each on the compiled kernels.

    python packaging/smoke_test.py dist/vocviewer [--keep shot.png]

Runs ``BUNDLE/vocviewer demo --dir TMP --screenshot TMP/shot.png`` with ``QT_QPA_PLATFORM=offscreen``
and a fresh HOME (no settings or caches of the user), then checks the PNG: it exists, it is the
window's default size, and it is not blank (grey-level standard deviation and distinct colours).
Needs Pillow and numpy (the build venv has both). Exit code 0 when every check passes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WINDOW_SIZE = (1400, 900)  # MainWindow's default size, at a device pixel ratio of 1
MIN_STD = 10.0  # grey levels; a blank or single-colour window is ~0
MIN_COLOURS = 1000  # the demo image, boxes and the PR curve give tens of thousands


def executable(bundle: Path) -> Path:
    """The bundle's executable (``vocviewer`` or ``vocviewer.exe``)."""
    for name in ("vocviewer", "vocviewer.exe"):
        if (bundle / name).is_file():
            return bundle / name
    raise FileNotFoundError(f"{bundle}: no vocviewer executable in it")


def check_png(path: Path, size: tuple[int, int] = WINDOW_SIZE) -> list[str]:
    """What is wrong with the screenshot at ``path`` (empty list: nothing)."""
    import numpy as np
    from PIL import Image

    if not path.is_file() or path.stat().st_size == 0:
        return [f"{path}: no screenshot written"]
    with Image.open(path) as im:
        problems = [] if im.format == "PNG" else [f"{path}: not a PNG ({im.format})"]
        rgb = np.asarray(im.convert("RGB"))
    if (rgb.shape[1], rgb.shape[0]) != size:
        problems.append(f"{path}: {rgb.shape[1]}x{rgb.shape[0]}, expected {size[0]}x{size[1]}")
    std = float(rgb.mean(axis=2).std())
    colours = len(np.unique(rgb.reshape(-1, 3), axis=0))
    if std < MIN_STD or colours < MIN_COLOURS:
        problems.append(f"{path}: looks blank (grey std {std:.1f}, {colours} colours)")
    return problems


def tiny_coco(folder: Path) -> tuple[Path, Path]:
    """A two-image COCO file (a polygon, a crowd RLE) and box results for it."""
    import json

    square = [[10.0, 10.0, 60.0, 10.0, 60.0, 60.0, 10.0, 60.0]]
    crowd = {"size": [100, 100], "counts": [0, 4, 96, 4, 96, 4, 96, 4, 9596]}
    anns = [
        {
            "id": 1,
            "image_id": 1,
            "category_id": 1,
            "bbox": [10, 10, 50, 50],
            "area": 2500,
            "iscrowd": 0,
            "segmentation": square,
        },
        {
            "id": 2,
            "image_id": 2,
            "category_id": 1,
            "bbox": [0, 0, 4, 4],
            "area": 16,
            "iscrowd": 1,
            "segmentation": crowd,
        },
    ]
    images = [{"id": i, "width": 100, "height": 100, "file_name": f"{i}.jpg"} for i in (1, 2)]
    gt = {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "thing"}]}
    dts = [
        {"image_id": 1, "category_id": 1, "bbox": [12, 11, 50, 48], "score": 0.9},
        {"image_id": 2, "category_id": 1, "bbox": [0, 0, 5, 4], "score": 0.4},
    ]
    (folder / "gt.json").write_text(json.dumps(gt))
    (folder / "dt.json").write_text(json.dumps(dts))
    return folder / "gt.json", folder / "dt.json"


KERNEL_SOURCES = Path(__file__).resolve().parents[1] / "vocviewer" / "kernel"


def kernels_carried(bundle: Path) -> list[str]:
    """A line per compiled kernel of this checkout (``vocviewer/kernel/_*.c``) the bundle lacks."""
    carried = {
        p.name.split(".")[0]
        for p in bundle.rglob("vocviewer/kernel/_*.*")
        if p.suffix in (".so", ".pyd")
    }
    wanted = {p.stem for p in KERNEL_SOURCES.glob("_*.c")}
    return [f"the bundle lacks the compiled kernel {name}" for name in sorted(wanted - carried)]


def evaluations(exe: Path, tmp: Path, env: dict[str, str], timeout: float) -> list[str]:
    """``vocviewer eval`` on the demo (VOC) and on a tiny COCO file: each must succeed without
    the note that a compiled kernel is missing (the bundle carries ``vocviewer.kernel``)."""
    gt, dt = tiny_coco(tmp)
    devkit = tmp / "demo" / "VOCdevkit"
    runs = {
        "VOC": ["eval", str(devkit / "VOC2012"), "--results", str(devkit / "results" / "VOC2012")],
        "COCO": ["eval", str(gt), "--results", str(dt)],
    }
    problems = []
    for name, args in runs.items():
        proc = subprocess.run(
            [str(exe), *args], env=env, capture_output=True, text=True, timeout=timeout
        )
        if proc.returncode != 0:
            problems.append(
                f"{name} eval: exit code {proc.returncode}: {proc.stderr.strip()[-500:]}"
            )
        elif "compiled kernel" in proc.stderr or "AP" not in proc.stdout:
            problems.append(f"{name} eval: {proc.stderr.strip()[-500:] or 'no AP printed'}")
    return problems


def run(bundle: Path, keep: Path | None = None, timeout: float = 300.0) -> int:
    """Run the bundle on the demo, check the PNG, print the outcome; the exit code."""
    exe = executable(bundle)
    with tempfile.TemporaryDirectory(prefix="vocviewer-smoke-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home))
        for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
            env.pop(var, None)
        shot = Path(tmp) / "shot.png"
        cmd = [str(exe), "demo", "--dir", str(Path(tmp) / "demo"), "--screenshot", str(shot)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - start
        problems = [] if proc.returncode == 0 else [f"exit code {proc.returncode}"]
        if proc.stderr.strip():
            problems.append("stderr: " + proc.stderr.strip()[-2000:])
        problems += check_png(shot)
        problems += evaluations(exe, Path(tmp), env, timeout) + kernels_carried(bundle)
        if keep is not None and shot.is_file():
            shutil.copyfile(shot, keep)
    print(f"smoke test: {' '.join(cmd[:2])} --screenshot ... ran in {seconds:.1f} s")
    for p in problems:
        print(f"  FAILED: {p}")
    if not problems:
        print(
            f"  passed: {WINDOW_SIZE[0]}x{WINDOW_SIZE[1]} PNG, not blank; VOC and COCO eval "
            "on the compiled kernels" + (f", kept as {keep}" if keep else "")
        )
    return 1 if problems else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bundle", type=Path, help="the one-folder bundle (dist/vocviewer)")
    p.add_argument("--keep", type=Path, metavar="PNG", help="also copy the screenshot here")
    args = p.parse_args()
    return run(args.bundle, args.keep)


if __name__ == "__main__":
    sys.exit(main())
