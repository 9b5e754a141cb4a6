"""A segm results file's strings left where its text holds them (``_json.results(data, 3)``,
``RleStrings`` ``raw``: read in the file mapped into memory, each string up to its closing
quote, an escaped backslash one character): the same masks, measures, decoded runs, IoU and
evaluation as the strings copied out unescaped (``results(data, 2)``), on both paths."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kernel.box_masks import write_box_mask_results
from tests.kernel.switch import numpy_path
from tests.kernel.test_rle_strings_table import COCO_MINI, _masks, _one
from vocviewer import kernel
from vocviewer.core import masks as cm
from vocviewer.core import rle_columns as rc
from vocviewer.families.coco import results_kernel
from vocviewer.families.coco.columns import CocoResults, RleTable
from vocviewer.families.coco.evaluate import CocoParams, evaluate_coco
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.coco.rle_strings import RleStrings
from vocviewer.families.coco.similarity import mask_iou_pairs

_json, _rle = kernel.load("_json"), kernel.load("_rle")
pytestmark = pytest.mark.skipif(_json is None or _rle is None, reason="kernels not built")


def _text(strings: list[str], h: np.ndarray, w: np.ndarray) -> bytes:
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


def _both(text: bytes, h: np.ndarray, w: np.ndarray) -> tuple[RleStrings, RleStrings]:
    """The table of the strings copied out (``results(data, 2)``) and left in ``text``."""
    copied, located = _json.results(text, 2), _json.results(text, 3)  # type: ignore[union-attr]
    assert copied is not None and located is not None
    plain = RleStrings.checked(copied["rle_chars"], copied["rle_nchars"], copied["rle_len"], h, w)
    chars = np.frombuffer(text, np.uint8)
    at = located["rle_start"]
    raw = RleStrings.checked(chars, located["rle_nchars"], located["rle_len"], h, w, at)
    assert plain is not None and raw is not None and raw.raw and not plain.raw
    return plain, raw


def test_strings_located_in_the_text() -> None:
    """``results(data, 3)``: each string's offset and length as written (escapes included), its
    values counted; nothing copied; any escape but an escaped backslash declined."""
    strings = ["1\\2", "\\\\0", "0", "o" * 11 + "0", "Ob0\\1"]
    h = w = np.full(5, 9)
    text = _text(strings, h, w)
    r = _json.results(text, 3)  # type: ignore[union-attr]
    assert r is not None and len(r["rle_chars"]) == 0
    got = [text[a : a + n] for a, n in zip(r["rle_start"], r["rle_nchars"], strict=True)]
    assert got == [json.dumps(s)[1:-1].encode() for s in strings]
    assert np.array_equal(r["rle_len"], _json.results(text, 2)["rle_len"])  # type: ignore[index,union-attr]
    for escape in ("\\/0", "\\u0030"):  # the same characters written otherwise: copied instead
        other = text.replace(b'"0"', b'"' + escape.encode() + b'"')
        assert _json.results(other, 3) is None  # type: ignore[union-attr]
        assert _json.results(other, 2) is not None  # type: ignore[union-attr]


@pytest.mark.parametrize("n", [1, 50, 2000])
def test_raw_table_as_the_copied_one(n: int) -> None:
    rng = np.random.default_rng(n)
    strings, h, w = _masks(rng, n)
    assert n < 50 or any("\\" in s for s in strings)  # (backslashes, escaped in the text)
    plain, raw = _both(_text(strings, h, w), h, w)
    assert raw.box.tobytes() == plain.box.tobytes() and np.array_equal(raw.area, plain.area)
    boxes = raw.mask_boxes()  # the table's own, read-only (no copy); bboxes() a copy
    assert boxes is raw.box and not boxes.flags.writeable
    assert raw.bboxes().tobytes() == boxes.tobytes() and raw.bboxes().flags.writeable
    rows = rng.integers(0, n, 2 * n)
    want = plain.take(rows)
    got = raw.take(rows)
    assert np.array_equal(got.counts, want.counts) and np.array_equal(got.offsets, want.offsets)
    assert np.array_equal(raw.transient(rows).counts, want.counts)
    assert all(np.array_equal(raw[i], plain[i]) for i in range(0, n, 7))
    with numpy_path():  # the kernel off after reading: numpy unescapes and decodes
        assert np.array_equal(raw.take(rows).counts, want.counts)
        assert raw.strings(np.arange(n)) == [s.encode() for s in strings]
    again = pickle.loads(pickle.dumps(raw))
    assert again.raw and np.array_equal(again.take(rows).counts, want.counts)
    assert np.array_equal(raw.counts, plain.counts) and raw.decoded


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=16), min_size=1, max_size=8), st.data())
def test_any_strings_measured_and_declined_alike(blobs: list[bytes], data: st.DataObject) -> None:
    """Any strings of rleFrString's characters (backslashes among them, escaped in the text):
    ``string_masks`` of the raw text gives what it gives on the unescaped strings, or both
    decline."""
    strings = [bytes(48 + b % 64 for b in blob).decode() for blob in blobs]
    h = np.array(
        data.draw(st.lists(st.integers(1, 5), min_size=len(strings), max_size=len(strings)))
    )
    w = np.array(
        data.draw(st.lists(st.integers(1, 5), min_size=len(strings), max_size=len(strings)))
    )
    text = _text(strings, h, w)
    copied, located = _json.results(text, 2), _json.results(text, 3)  # type: ignore[union-attr]
    if copied is None:  # (a string the scan itself declines: so does the located scan)
        assert located is None
        return
    assert located is not None
    start = np.concatenate(([0], np.cumsum(copied["rle_nchars"]))).astype(np.int64)
    runs = np.concatenate(([0], np.cumsum(copied["rle_len"]))).astype(np.int64)
    want = _rle.string_masks(copied["rle_chars"], start, runs, h, w)  # type: ignore[union-attr]
    at = located["rle_start"]
    end = int(at[-1] + located["rle_nchars"][-1]) + 1
    raw_start = np.concatenate((at - at[0], [end - at[0]])).astype(np.int64)
    chars = np.frombuffer(text, np.uint8)[at[0] : end]
    got = _rle.string_masks(chars, raw_start, runs, h, w, True)  # type: ignore[union-attr]
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert got[0].tobytes() == want[0].tobytes() and np.array_equal(got[1], want[1])


def test_mask_iou_of_raw_strings() -> None:
    """``string_iou_pairs`` on the raw strings: the copied table's IoU, bit for bit."""
    rng = np.random.default_rng(4)
    h, w = np.full(300, 20), np.full(300, 30)
    strings = [rc.to_strings(*_one(cm.encode(rng.random((20, 30)) < rng.random())))[0] for _ in h]
    plain, raw = _both(_text(strings, h, w), h, w)
    with numpy_path():
        gc, go = rc.from_strings(strings[100:])
    gt = RleTable(gc, go, h[100:], w[100:])
    det_row = np.repeat(np.arange(300), 3)
    gt_row = rng.integers(0, 200, len(det_row))
    crowd = rng.random(len(det_row)) < 0.2
    boxes = (plain.bboxes(), gt.bboxes())
    want = mask_iou_pairs(plain, gt, det_row, gt_row, crowd, *boxes)
    assert (want > 0).any() and (want == 0).any()
    assert mask_iou_pairs(raw, gt, det_row, gt_row, crowd, *boxes).tobytes() == want.tobytes()
    with numpy_path():
        assert mask_iou_pairs(raw, gt, det_row, gt_row, crowd, *boxes).tobytes() == want.tobytes()
    assert not raw.decoded


def _segm_file(tmp_path: Path) -> Path:
    """A segm results file on coco-mini: each object's box, shifted, as a mask string."""
    path = tmp_path / "segm.json"
    write_box_mask_results(COCO_MINI / "instances_val2017.json", path, seed=1)
    assert b"\\\\" in path.read_bytes()  # (escaped backslashes among the strings)
    return path


def test_mapped_file_evaluated_as_read(tmp_path: Path) -> None:
    """``read_coco_results(mapped=True)`` (the CLI) keeps the masks in the mapped file; the
    evaluation equals that of the strings copied out and of the numpy path, bit for bit."""
    gt_path = COCO_MINI / "instances_val2017.json"
    gt = read_coco(gt_path, masks=True)
    path = _segm_file(tmp_path)
    got = read_coco_results(gt, path, task="segm", mapped=True)
    table = got.data(CocoResults).masks
    assert isinstance(table, RleStrings) and table.raw
    copied = read_coco_results(gt, path, task="segm")
    assert not copied.data(CocoResults).masks.raw  # type: ignore[attr-defined]
    params = CocoParams.for_task("segm")
    a, b = evaluate_coco(gt, got, params), evaluate_coco(gt, copied, params)
    with numpy_path():
        gt0 = read_coco(gt_path, masks=True)
        c = evaluate_coco(gt0, read_coco_results(gt0, path, task="segm", mapped=True), params)
    for name in ("precision", "recall", "scores"):
        assert (
            getattr(a, name).tobytes() == getattr(b, name).tobytes() == getattr(c, name).tobytes()
        )
    assert not table.decoded


def test_scanned_before_the_ground_truth_is_read(tmp_path: Path) -> None:
    """``file_located_masks`` (the CLI scans the file while the annotation file is read) gives
    ``read_coco_results`` the columns it would scan itself: the same result set, masks left in
    the mapped file, the same evaluation bit for bit; ``None`` where the file is not one."""
    gt_path = COCO_MINI / "instances_val2017.json"
    path = _segm_file(tmp_path)
    scanned = results_kernel.file_located_masks(path)
    assert scanned is not None and "rle_start" in scanned
    gt = read_coco(gt_path, masks=True)
    got = read_coco_results(gt, path, task="segm", scanned=scanned)
    table = got.data(CocoResults).masks
    assert isinstance(table, RleStrings) and table.raw
    mapped = read_coco_results(gt, path, task="segm", mapped=True)
    want = mapped.data(CocoResults).masks
    assert isinstance(want, RleStrings)
    for name in ("start", "offsets", "height", "width", "box", "area"):
        assert getattr(table, name).tobytes() == getattr(want, name).tobytes(), name
    assert np.array_equal(got.detections.score, mapped.detections.score)
    params = CocoParams.for_task("segm")
    a, b = evaluate_coco(gt, got, params), evaluate_coco(gt, mapped, params)
    for name in ("precision", "recall", "scores"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes()
    assert results_kernel.file_located_masks(tmp_path / "missing.json") is None
    (tmp_path / "empty.json").write_text("")
    assert results_kernel.file_located_masks(tmp_path / "empty.json") is None


def test_mapped_file_cut_short_is_an_error_not_the_end(tmp_path: Path) -> None:
    """A results file cut short while its masks are read where it is mapped (another program
    rewrote it): measuring declines (the readers then read the file as it now is) and decoding
    raises ``OSError``, instead of SIGBUS ending the process. In a child: without the guard it
    is killed."""
    rng = np.random.default_rng(9)
    strings, h, w = _masks(rng, 3000)
    path = tmp_path / "segm.json"
    path.write_bytes(_text(strings, h, w))
    code = f"""
        import os, mmap
        import numpy as np
        from pathlib import Path
        from vocviewer import kernel
        from vocviewer.families.coco import results_kernel as rk
        from vocviewer.families.coco.rle_strings import RleStrings
        path = Path({str(path)!r})
        h, w = np.array({h.tolist()}), np.array({w.tolist()})
        view = rk.file_mapped(path)
        r = rk.result_columns(view, masks=3)
        chars = np.frombuffer(view, np.uint8)
        args = (chars, r["rle_nchars"], r["rle_len"], h, w, r["rle_start"])
        table = RleStrings.checked(*args)
        assert table is not None and table.raw
        os.truncate(path, mmap.PAGESIZE)  # (the mapping now ends after its first page)
        assert RleStrings.checked(*args) is None
        try:
            table.take(np.arange(len(h)))
        except OSError as e:
            print("OSError", "cut short" in str(e))
        """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"child ended with {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip() == "OSError True"
