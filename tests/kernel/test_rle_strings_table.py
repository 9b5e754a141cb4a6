"""A results file's masks kept as compressed strings (``RleStrings``): the JSON kernel keeps the
unescaped strings (``_json.results(data, 2)``), ``_rle.string_masks`` checks and measures them
without keeping their runs, ``_rle.decode_strings`` decodes rows. Everything must equal what
the numpy path gives on the decoded runs (``rle_columns.from_strings``, ``bboxes``, ``areas``,
``results_bulk.checked_masks``), and a mask evaluation must give the numpy path's numbers while
decoding only a category's detections at a time (the table is never decoded whole)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from tests.kernel.box_masks import write_box_mask_results
from tests.kernel.switch import numpy_path
from vocviewer import kernel
from vocviewer.core import masks as cm
from vocviewer.core import rle_columns as rc
from vocviewer.families.coco import results_bulk as bulk
from vocviewer.families.coco import rle_strings
from vocviewer.families.coco.columns import CocoResults, RleTable
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.rle_strings import RleStrings
from vocviewer.families.coco.similarity import mask_iou_pairs

_json, _rle = kernel.load("_json"), kernel.load("_rle")
pytestmark = pytest.mark.skipif(_json is None or _rle is None, reason="kernels not built")

COCO_MINI = Path(__file__).resolve().parents[3] / "shared" / "data" / "coco-mini" / "annotations"


def _masks(rng: np.random.Generator, n: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``n`` random masks (blobs, empty ones, full ones) as compressed strings, and h, w."""
    h = rng.integers(1, 40, n)
    w = rng.integers(1, 40, n)
    strings = []
    for i in range(n):
        m = rng.random((h[i], w[i])) < rng.choice([0.0, 0.3, 0.9, 1.0])
        strings.append(rc.to_strings(*_one(cm.encode(m)))[0])
    return strings, h.astype(np.int64), w.astype(np.int64)


def _one(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(counts, dtype=np.int64), np.array([0, len(counts)], dtype=np.int64)


def _file(strings: list[str], h: np.ndarray, w: np.ndarray) -> bytes:
    entries = [
        {
            "image_id": 1,
            "category_id": 1,
            "score": 0.5,
            "segmentation": {"size": [int(a), int(b)], "counts": s},
        }
        for s, a, b in zip(strings, h, w, strict=True)
    ]
    return json.dumps(entries).encode()


def _table(strings: list[str], h: np.ndarray, w: np.ndarray) -> RleStrings | None:
    r = _json.results(_file(strings, h, w), 2)  # type: ignore[union-attr]
    assert r is not None
    return RleStrings.checked(r["rle_chars"], r["rle_nchars"], r["rle_len"], h, w)


def test_kept_strings_are_the_unescaped_strings() -> None:
    """``rle_chars`` holds every string as ``json.loads`` gives it (the backslash, escaped in
    the file, is one of rleFrString's characters), ``rle_len`` its count of values."""
    strings = ["1\\2", "\\\\0", "0", "o" * 11 + "0", "Ob0\\1"]
    raw = json.dumps(
        [
            {
                "image_id": 1,
                "category_id": 1,
                "score": 1,
                "segmentation": {"size": [9, 9], "counts": s},
            }
            for s in strings
        ]
    ).encode()
    r = _json.results(raw, 2)  # type: ignore[union-attr]
    assert r is not None and len(r["rle"]) == 0
    cut = np.cumsum(r["rle_nchars"])[:-1]
    assert [b.tobytes().decode() for b in np.split(r["rle_chars"], cut)] == strings
    with numpy_path():
        _, offsets = rc.from_strings(strings)
    assert np.array_equal(r["rle_len"], np.diff(offsets))


@pytest.mark.parametrize("n", [1, 40, 3000])
def test_checked_and_measured_as_the_decoded_runs(n: int) -> None:
    rng = np.random.default_rng(n)
    strings, h, w = _masks(rng, n)
    table = _table(strings, h, w)
    assert table is not None and not table.decoded
    with numpy_path():
        counts, offsets = rc.from_strings(strings)
        box, area = rc.bboxes(counts, offsets, h, w), rc.areas(counts, offsets)
    assert np.array_equal(table.offsets, offsets)
    assert table.bboxes().tobytes() == box.tobytes()
    assert np.array_equal(table.areas(), area) and table.areas().dtype == np.int64
    rows = rng.integers(0, n, 2 * n)  # any order, repeats
    part = table.take(rows)
    assert type(part) is RleTable and not table.decoded
    want_c, want_o = rc.take(counts, offsets, rows)
    assert np.array_equal(part.counts, want_c) and np.array_equal(part.offsets, want_o)
    assert np.array_equal(part.height, h[rows]) and np.array_equal(part.width, w[rows])
    assert all(np.array_equal(table[i], counts[offsets[i] : offsets[i + 1]]) for i in range(n))
    with numpy_path():  # the kernel turned off after reading: numpy decodes
        assert np.array_equal(table.take(rows).counts, want_c)
    again = pickle.loads(pickle.dumps(table))
    assert type(again) is RleStrings and np.array_equal(again.take(rows).counts, want_c)
    assert np.array_equal(table.counts, counts) and table.decoded
    assert np.array_equal(table.take(rows).counts, want_c)


@pytest.mark.parametrize(
    "case",
    ["sum short", "sum long", "negative", "truncated", "13 chars"],
)
def test_declined_as_checked_masks_declines(case: str) -> None:
    """A string whose runs do not make an ``h * w`` mask: no table (the readers then decide),
    as ``results_bulk.checked_masks`` of the decoded runs."""
    runs = {"sum short": [3, 2], "sum long": [3, 7], "negative": [8, -1, 2]}
    if case in runs:
        s = rc.to_strings(*_one(np.array(runs[case])))[0]
    else:
        s = "o" * 3 if case == "truncated" else "o" * 12 + "0"
    strings, h, w = ["1" + "0" * 3, s], np.array([3, 3]), np.array([3, 3])
    strings[0] = rc.to_strings(*_one(np.array([9])))[0]
    r = _json.results(_file(strings, h, w), 2)  # type: ignore[union-attr]
    if r is None:  # (the scan declines a truncated string itself)
        assert case == "truncated"
        return
    assert RleStrings.checked(r["rle_chars"], r["rle_nchars"], r["rle_len"], h, w) is None
    if case in runs:
        with numpy_path():
            c, o = rc.from_strings(strings)
            assert bulk.checked_masks(c, o, h, w) is None


def test_mask_evaluation_decodes_by_category(tmp_path: Path) -> None:
    """``read_coco_results`` keeps a segm file's masks as strings; ``evaluate_coco`` gives the
    numpy path's precision, recall and scores bit for bit and leaves the table undecoded."""
    gt_path = COCO_MINI / "instances_val2017.json"
    gt = read_coco(gt_path, masks=True)
    path = tmp_path / "segm.json"
    write_box_mask_results(gt_path, path, seed=0, shift=4, second_category=True)
    rs = read_coco_results(gt, path, task="segm")
    table = rs.data(CocoResults).masks
    assert isinstance(table, RleStrings)
    got = evaluate_coco(gt, rs, CocoParams.for_task("segm"))
    assert not table.decoded
    with numpy_path():
        gt0 = read_coco(gt_path, masks=True)
        rs0 = read_coco_results(gt0, path, task="segm")
        assert type(rs0.data(CocoResults).masks) is RleTable
        want = evaluate_coco(gt0, rs0, CocoParams.for_task("segm"))
    for name in ("precision", "recall", "scores"):
        assert getattr(got, name).tobytes() == getattr(want, name).tobytes(), name
    assert got.stats() == want.stats()


@pytest.mark.parametrize("chunk", [1 << 20, 50])
def test_mask_iou_of_strings_as_of_runs(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """``mask_iou_pairs`` of a table kept as strings (decoded by the kernel's threads, or, with
    the kernel off, a chunk of pairs at a time) equals that of the decoded table, bit for bit,
    and leaves the table undecoded."""
    monkeypatch.setattr(rle_strings, "CHUNK_RUNS", chunk)
    rng = np.random.default_rng(7)
    strings, h, w = _masks(rng, 300)
    h[:], w[:] = 20, 30
    h[:5] = 21  # masks of another size: -1
    strings = [
        rc.to_strings(*_one(cm.encode(rng.random((a, b)) < rng.random())))[0]
        for a, b in zip(h, w, strict=True)
    ]
    det = _table(strings, h, w)
    assert det is not None
    gt_strings, gh, gw = strings[100:], h[100:].copy(), w[100:].copy()
    gh[:] = 20
    gw[:] = 30
    with numpy_path():
        gc, go = rc.from_strings(gt_strings)
        dc, do = rc.from_strings(strings)
    gt, plain = RleTable(gc, go, gh, gw), RleTable(dc, do, h, w)
    det_row = np.repeat(np.arange(300), 3)
    gt_row = rng.integers(0, 200, len(det_row))
    crowd = rng.random(len(det_row)) < 0.2
    boxes = (plain.bboxes(), gt.bboxes())
    want = mask_iou_pairs(plain, gt, det_row, gt_row, crowd, *boxes)
    assert (want == -1).any() and (want > 0).any() and (want == 0).any()
    got = mask_iou_pairs(det, gt, det_row, gt_row, crowd, *boxes)
    assert got.tobytes() == want.tobytes() and not det.decoded
    with numpy_path():
        assert mask_iou_pairs(det, gt, det_row, gt_row, crowd, *boxes).tobytes() == want.tobytes()
    assert not det.decoded


def test_strings_kept_in_place_of_a_writable_buffer() -> None:
    """Given a writable buffer, ``results(data, 2)`` moves the strings to its front (no second
    copy): the same characters as the column it fills otherwise, every other column equal."""
    rng = np.random.default_rng(3)
    strings, h, w = _masks(rng, 500)
    strings[::7] = ["\\" + s for s in strings[::7]]  # a backslash: escaped in the file
    data = _file(strings, h, w)
    copied = _json.results(data, 2)  # type: ignore[union-attr]
    buf = bytearray(data)
    kept = _json.results(buf, 2)  # type: ignore[union-attr]
    assert copied is not None and kept is not None and len(kept["rle_chars"]) == 0
    total = int(kept["rle_nchars"].sum())
    assert bytes(buf[:total]) == copied["rle_chars"].tobytes() == "".join(strings).encode()
    assert all(np.array_equal(copied[k], kept[k]) for k in copied if k != "rle_chars")
