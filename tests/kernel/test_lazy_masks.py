"""The ground truth's polygon masks are rasterised when first read (``LazyRleTable``): one row
alone, or every row at once, gives the runs an eager rasterisation of every polygon gives; a
box evaluation never rasterises them; pickling keeps them unrasterised."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from vocviewer import kernel as kernel_module
from vocviewer.core.dataset import Dataset
from vocviewer.families.coco.columns import CocoAnnotations, RleTable
from vocviewer.families.coco.lazy_masks import LazyRleTable
from vocviewer.families.coco.polygon_sets import polygon_sets_to_rle
from vocviewer.families.coco.reader import read_coco, read_json_bytes
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.registry import benchmark_of
from vocviewer.families.views import ViewChoice

SHARED = Path(__file__).resolve().parents[3] / "shared"
COCO_MINI = SHARED / "data" / "coco-mini"
ANN = COCO_MINI / "annotations" / "instances_val2017.json"

pytestmark = pytest.mark.skipif(not ANN.exists(), reason="coco-mini is not here")


def eager(ds: Dataset) -> list[np.ndarray]:
    """Every object's mask rasterised from the file's own entries, one object at a time."""
    import json

    data = json.loads(read_json_bytes(ANN))
    by_id = {a["id"]: a for a in data["annotations"]}
    sizes = {im["id"]: (im["height"], im["width"]) for im in data["images"]}
    out = []
    for ann_id in ds.data(CocoAnnotations).ann_id.tolist():
        a = by_id[ann_id]
        s = a["segmentation"]
        if isinstance(s, list):
            h, w = sizes[a["image_id"]]
            parts = [np.asarray(p, dtype=np.float64) for p in s]
            out.append(polygon_sets_to_rle([parts], [h], [w])[0])
        else:
            out.append(None)  # an RLE: compared as read
    return out


@pytest.mark.parametrize("kernel", ["0", "1"])
def test_rows_and_table_equal_eager(monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setenv("VOCVIEWER_KERNEL", kernel)
    ds = read_coco(ANN, masks=True)
    masks = ds.data(CocoAnnotations).masks
    assert isinstance(masks, LazyRleTable) and masks._table is None
    want = eager(ds)
    rows = [masks[i].copy() for i in range(len(masks))]  # one at a time, still lazy
    assert masks._table is None
    assert any(w is not None for w in want)
    for i, (row, w) in enumerate(zip(rows, want, strict=True)):
        if w is not None:
            assert np.array_equal(row, w), i
    table = masks.rasterised()
    assert isinstance(table, RleTable) and not isinstance(table, LazyRleTable)
    for i, row in enumerate(rows):
        assert np.array_equal(table[i], row) and np.array_equal(masks[i], row)
    assert np.array_equal(masks.counts, table.counts)
    assert np.array_equal(masks.offsets, table.offsets)


def test_pickled_lazy_until_rasterised() -> None:
    masks = read_coco(ANN, masks=True).data(CocoAnnotations).masks
    assert isinstance(masks, LazyRleTable)
    copy = pickle.loads(pickle.dumps(masks))
    assert isinstance(copy, LazyRleTable) and copy._table is None
    assert np.array_equal(copy.counts, masks.counts)
    done = pickle.loads(pickle.dumps(masks))
    assert type(done) is RleTable and np.array_equal(done.counts, masks.counts)


def test_box_evaluation_rasterises_nothing(tmp_path: Path) -> None:
    import json

    rng = np.random.default_rng(0)
    anns = json.loads(read_json_bytes(ANN))["annotations"]
    dets = [
        {
            "image_id": a["image_id"],
            "category_id": a["category_id"],
            "bbox": (np.asarray(a["bbox"]) + rng.normal(0, 3, 4)).round(2).tolist(),
            "score": round(float(rng.random()), 3),
        }
        for a in anns
    ]
    res_path = tmp_path / "bbox_results.json"
    res_path.write_text(json.dumps(dets))
    ds = read_coco(ANN, masks=True)
    bench = benchmark_of(ds)
    ds = bench.prepare_view(ds, ANN)
    res = read_coco_results(ds, res_path)
    views = list(bench.evaluate_views(ds, res, ViewChoice(0.5)))
    assert len(views) > 1
    masks = ds.data(CocoAnnotations).masks
    assert isinstance(masks, LazyRleTable) and masks._table is None


def test_mask_boxes_measured_once_by_the_prefetch() -> None:
    """``mask_boxes``: the rasterised table's ``bboxes`` (read-only), measured once, by
    ``prefetch``'s thread where it ran; a second ``prefetch`` starts nothing."""
    masks = read_coco(ANN, masks=True).data(CocoAnnotations).masks
    assert isinstance(masks, LazyRleTable)
    masks.prefetch()
    masks.prefetch()  # (under way: nothing more)
    boxes = masks.mask_boxes()
    assert np.array_equal(boxes, masks.rasterised().bboxes())
    assert not boxes.flags.writeable and masks.mask_boxes() is boxes


def test_row_order_is_gathered_when_every_row_is_first_read() -> None:
    """The compiled reader hands the file-order segmentations over with the objects' order:
    a row drawn, or a pickle, before the first full read gathers nothing; the full read
    gathers once and gives the table the eager rows make."""
    if kernel_module.load("_json") is None:
        pytest.skip("the _json kernel is not built (or VOCVIEWER_KERNEL=0)")
    masks = read_coco(ANN, masks=True).data(CocoAnnotations).masks
    assert isinstance(masks, LazyRleTable)
    shapes, order = masks._src
    assert order is not None and not np.array_equal(order, np.arange(len(order)))
    want = eager(read_coco(ANN, masks=True))
    copy = pickle.loads(pickle.dumps(masks))
    assert copy._src[1] is not None  # (still in file order)
    for m in (masks, copy):
        for i in (0, len(m) // 2, len(m) - 1):
            if want[i] is not None:
                assert np.array_equal(m[i], want[i]), i
    assert masks._src[1] is not None  # rows read one at a time: nothing gathered
    table = masks.rasterised()
    assert masks._src[1] is None and masks._src[0] is not shapes
    assert np.array_equal(copy.counts, table.counts)
    for i, w in enumerate(want):
        if w is not None:
            assert np.array_equal(table[i], w), i
