"""``Derived`` columns: ``Detections.box`` (and ``CocoResults.area``) given as a function of other columns is made when first
read (then read-only, kept), ``box_rows`` makes only the rows asked for, and a pickled result set
keeps it derived. COCO box results keep their ``(x, y, w, h)`` boxes once: the corners and areas
are made when read, bit for bit the ones made at reading before (``x + w``, ``w * h``), and an
evaluation with its evidence makes neither."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np

from tests.parity.test_coco_parity import MINI, gen_bbox, needs_mini
from vocviewer.core.results import Derived, Detections, is_made, rows_of
from vocviewer.families.coco.columns import CocoResults
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_bulk import sealed_corners
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.view import evaluate_coco_views
from vocviewer.families.evidence import collect
from vocviewer.families.views import ViewChoice


def _made(dets: Detections) -> bool:
    return is_made(dets, "box")


def _corners(xywh: np.ndarray) -> np.ndarray:
    """``(x, y, x + w, y + h)``, one float addition each (the rule the readers follow)."""
    x, y, w, h = (xywh[:, i] for i in range(4))
    return np.stack([x, y, x + w, y + h], axis=1)


def test_derived_box_is_made_when_read() -> None:
    rng = np.random.default_rng(0)
    xywh = rng.uniform(0, 1000, (7, 4))
    xywh[2, 2] = np.inf
    z = np.zeros(7, dtype=np.int64)
    dets = Detections(z, z, np.ones(7), Derived(sealed_corners, xywh, rowwise=True), z, z)
    rows = np.array([5, 2, 2, 0])
    part = dets.box_rows(rows)
    assert not _made(dets)
    again = pickle.loads(pickle.dumps(dets))
    assert not _made(again)
    box = dets.box
    assert _made(dets) and dets.box is box and not box.flags.writeable
    want = _corners(xywh)
    assert box.tobytes() == want.tobytes()
    assert part.tobytes() == want[rows].tobytes()
    assert again.box.tobytes() == want.tobytes()
    with np.testing.assert_raises(Exception):
        dets.box = box  # type: ignore[misc]


def test_given_box_unchanged() -> None:
    z = np.zeros(2, dtype=np.int64)
    box = np.arange(8.0).reshape(2, 4)
    dets = Detections(z, z, np.ones(2), box, z, z)
    assert _made(dets) and dets.box_rows(np.array([1])).tolist() == [[4.0, 5.0, 6.0, 7.0]]


@needs_mini
def test_coco_box_results_evaluated_without_their_corners(tmp_path: Path) -> None:
    gt = MINI / "instances_val2017.json"
    dt = tmp_path / "bbox.json"
    dt.write_text(json.dumps(gen_bbox(json.loads(gt.read_text()))))
    ds = read_coco(gt, masks=False)
    rs = read_coco_results(ds, dt, task="bbox")
    choice = ViewChoice()
    evidence = collect(evaluate_coco_views(ds, rs, choice, task="bbox", diagnose=False), choice)
    coco = rs.data(CocoResults)
    assert evidence.raws() and not _made(rs.detections) and not is_made(coco, "area")
    xywh = coco.bbox
    rows = np.arange(len(xywh))[::-3]
    assert rows_of(coco, "area", rows).tobytes() == (xywh[rows, 2] * xywh[rows, 3]).tobytes()
    assert not is_made(coco, "area")
    assert rs.detections.box.tobytes() == _corners(xywh).tobytes()
    assert coco.area.tobytes() == (xywh[:, 2] * xywh[:, 3]).tobytes()
    assert is_made(coco, "area") and not coco.area.flags.writeable
