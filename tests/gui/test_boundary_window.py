"""Boundary AP in the window: the toolbar's IoU kind (mask or Boundary IoU, and its dilation
ratio) re-evaluates mask results; the summary equals ``vocviewer eval --task boundary`` on the same
files, and a dilation ratio other than 0.02 is marked NOT OFFICIAL."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vocviewer.cli import main as cli_main
from vocviewer.core.masks import polygons_to_rle, to_string
from vocviewer.families.official import mark

SIZES = [(375, 500), (97, 61), (200, 300)]  # (height, width)


def _polygon(rng: np.random.Generator, h: int, w: int) -> list[float]:
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    n = int(rng.integers(3, 9))
    ang = np.sort(rng.uniform(0, 2 * np.pi, n))
    r = rng.uniform(3, min(h, w) / 2.5) * rng.uniform(0.5, 1.0, n)
    xs, ys = np.clip(cx + r * np.cos(ang), 0, w), np.clip(cy + r * np.sin(ang), 0, h)
    return [float(v) for xy in zip(xs, ys, strict=True) for v in xy]


def write_masks(tmp: Path, seed: int = 0) -> tuple[Path, Path]:
    """Polygons (a few crowd) on images of ``SIZES`` and jittered / invented RLE results."""
    rng = np.random.default_rng(seed)
    images = [
        {"id": i + 1, "height": h, "width": w, "file_name": f"{i}.jpg"}
        for i, (h, w) in enumerate(SIZES)
    ]
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []
    for im in images:
        h, w = im["height"], im["width"]
        for _ in range(int(rng.integers(3, 8))):
            poly = _polygon(rng, h, w)
            cat, crowd = int(rng.choice([1, 2])), int(rng.random() < 0.1)
            xs, ys = poly[0::2], poly[1::2]
            box = [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": im["id"],
                    "category_id": cat,
                    "segmentation": [poly],
                    "area": box[2] * box[3] / 2,
                    "bbox": box,
                    "iscrowd": crowd,
                }
            )
            for _ in range(int(rng.integers(1, 4))):
                jit = list(np.asarray(poly) + rng.normal(0, rng.choice([0.5, 2, 6]), len(poly)))
                counts = polygons_to_rle([jit], h, w)
                dets.append(
                    {
                        "image_id": im["id"],
                        "category_id": cat,
                        "score": float(rng.random()),
                        "segmentation": {"size": [h, w], "counts": to_string(counts)},
                    }
                )
    cats = [{"id": c, "name": f"c{c}", "supercategory": "s"} for c in (1, 2)]
    gt, res = tmp / "gt.json", tmp / "res.json"
    gt.write_text(json.dumps({"images": images, "categories": cats, "annotations": anns}))
    res.write_text(json.dumps(dets))
    return gt, res


def cli_summary(gt: Path, res: Path, tmp: Path, *args: str) -> dict[str, float]:
    out = tmp.parent / f"{tmp.name}-out.json"  # eval writes nowhere inside the dataset folder
    assert cli_main(["eval", str(gt), "--results", str(res), *args, "--json", str(out)]) == 0
    summary = json.loads(out.read_text())["summary"]
    return {k: math.nan if v is None else float(v) for k, v in summary.items()}


def same(a: dict[str, float], b: dict[str, float]) -> bool:
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (math.isnan(a[k]) and math.isnan(b[k])) for k in a
    )


def choose(qtbot, win, kind: str, ratio: float | None = None) -> dict[str, float]:
    """Pick IoU kind ``kind`` (and dilation ``ratio``) on the toolbar as a user does; the
    summary once every set is evaluated anew."""
    st, controls = win.state, win.protocol
    old = st.evaluations[0].summary
    if ratio is not None:
        controls.dilation.setValue(ratio)
    controls.kind_combo.setCurrentIndex(controls.kind_combo.findData(kind))
    controls.kind_combo.activated.emit(controls.kind_combo.currentIndex())
    qtbot.waitUntil(
        lambda: st.evaluations[0].summary not in (None, old) and st.is_idle(), timeout=60_000
    )
    return dict(st.evaluations[0].summary.stats)


def opened(qtbot, make_window, gt: Path, res: Path):
    win = make_window()
    st = win.state
    win.open_dataset(gt, (res,))
    qtbot.waitUntil(lambda: st.current_results >= 0 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: st.evaluations[0].summary is not None, timeout=10_000)
    return win


def test_boundary_iou_in_the_window_equals_eval_task_boundary(qtbot, make_window, tmp_path):
    gt, res = write_masks(tmp_path)
    win = opened(qtbot, make_window, gt, res)
    st, ev, controls = win.state, win.state.evaluation, win.protocol
    assert controls.kind_combo.isVisibleTo(win) and not controls.dilation.isVisibleTo(win)
    segm = cli_summary(gt, res, tmp_path, "--task", "segm")
    assert same(dict(st.evaluations[0].summary.stats), segm)

    boundary = choose(qtbot, win, "boundary")
    assert controls.dilation.isVisibleTo(win)
    assert same(boundary, cli_summary(gt, res, tmp_path, "--task", "boundary"))
    assert not same(boundary, segm)  # the boundary changes the numbers
    assert ev.official()
    wide = choose(qtbot, win, "boundary", 0.05)
    expected = cli_summary(gt, res, tmp_path, "--task", "boundary", "--dilation-ratio", "0.05")
    assert same(wide, expected)
    assert "dilation ratio 0.05" in mark(ev.not_official())
    assert "NOT OFFICIAL" in controls.dilation.text()
    # a session keeps the IoU kind and its ratio: reopened, the same numbers and marks
    session = tmp_path.parent / f"{tmp_path.name}-session.json"
    assert win.sessions.save_session(session) == session.resolve()
    again = make_window()
    again.sessions.open_session(session)
    st2 = again.state
    qtbot.waitUntil(
        lambda: st2.current_results >= 0 and st2.is_idle() and bool(st2.evaluations[0].summary),
        timeout=60_000,
    )
    assert (st2.evaluation.iou_kind, st2.evaluation.dilation_ratio) == ("boundary", 0.05)
    assert same(dict(st2.evaluations[0].summary.stats), expected)
    assert "dilation ratio 0.05" in mark(st2.evaluation.not_official())
    assert same(choose(qtbot, win, ""), segm)
    assert ev.official() and not controls.dilation.isVisibleTo(win)


def test_lvis_boundary_iou_in_the_window_equals_eval_task_boundary(qtbot, make_window, tmp_path):
    pytest.importorskip("pycocotools")
    from tests.parity.lvis_data import make_lvis, make_results

    data = tmp_path / "lvis"
    data.mkdir()
    gt_json = make_lvis(3, n_images=6)
    gt, res = data / "lvis_v1_val.json", data / "res.json"
    gt.write_text(json.dumps(gt_json))
    res.write_text(json.dumps(make_results(gt_json, 3, kind="segm", crowded=0)))
    win = opened(qtbot, make_window, gt, res)
    assert win.state.evaluations[0].summary.protocol.startswith("LVIS")
    assert same(choose(qtbot, win, "boundary"), cli_summary(gt, res, data, "--task", "boundary"))


def test_yolo_segment_boundary_iou_in_the_window_equals_eval_task_boundary(
    qtbot, make_window, tmp_path
):
    from tests.parity.yolo_data import make_yolo

    case = make_yolo(tmp_path, "segment", seed=2, n_images=8)
    win = make_window()
    st = win.state
    win.open_dataset(case.yaml, (case.pred_txt,), None)
    qtbot.waitUntil(lambda: len(st.results) == 1 and st.is_idle(), timeout=60_000)
    qtbot.waitUntil(lambda: st.evaluations[0].summary is not None, timeout=10_000)
    assert win.protocol.kind_combo.isVisibleTo(win)
    expected = cli_summary(case.yaml, case.pred_txt, tmp_path, "--task", "boundary")
    assert same(choose(qtbot, win, "boundary"), expected)
