"""The compiled scanner's keypoint lists (``_json.c``: ``scan_keypoint_list``, the usual number
token read in one pass) against Python's json, and the keypoint results the CLI scans while the
annotation file is read (``results_kernel.file_result_columns``) handed to the model uncopied.

Every value must be the double Python's json gives (bit for bit: ``-0`` is the int 0, +0.0),
and a list is declined exactly where the generic number scanner declines the same token."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kernel.test_json_kernel import NUMBER, _score, both, diff, taken_gt
from vocviewer import kernel
from vocviewer.core.arrays import frozen, immutable
from vocviewer.families.coco import results_kernel
from vocviewer.families.coco.columns import CocoResults
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results

_json = kernel.load("_json")
pytestmark = pytest.mark.skipif(_json is None, reason="the _json kernel is not built here")


def _keypoints(body: str, tail: str = "") -> Any:
    """The kernel's keypoint column of one results entry whose keypoints list is ``body``
    (``tail``: bytes after the document's last bracket, none by default: the list may end
    the buffer's last 16 bytes), or ``None`` when declined."""
    text = f'[{{"image_id": 1, "category_id": 1, "score": 1, "keypoints": {body}}}]{tail}'
    r = _json.results(text.encode())  # type: ignore[union-attr]
    return None if r is None else r["keypoints"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.from_regex(NUMBER), min_size=1, max_size=6), st.sampled_from(["", " ", "\n"]))
def test_keypoint_numbers_as_the_number_scanner_reads_them(tokens: list[str], ws: str) -> None:
    got = _keypoints("[" + f"{ws},{ws}".join(tokens) + "]")
    alone = [_score(t) for t in tokens]  # the generic scanner, one token at a time
    if any(a is None for a in alone):
        assert got is None
        return
    expected = np.array([float(json.loads(t)) for t in tokens])
    assert got is not None and got.tobytes() == expected.tobytes()
    assert np.array(alone, dtype=np.float64).tobytes() == expected.tobytes()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=9),
    st.lists(st.floats(-1e12, 1e12), min_size=1, max_size=9),
)
def test_written_doubles_read_back(values: list[float], pixels: list[float]) -> None:
    """Any double's repr; coordinates as writers print them (2 decimals, 6 digits, ints)."""
    lists = [[repr(x) for x in values]]
    lists += [[fmt(x) for x in pixels] for fmt in (lambda x: f"{x:.2f}", lambda x: f"{x:.6g}")]
    lists.append([str(int(x)) for x in pixels])
    for tokens in lists:
        got = _keypoints("[" + ",".join(tokens) + "]")
        expected = np.array([float(json.loads(t)) for t in tokens])
        assert got is not None and got.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("body", "values"),
    [
        ("[]", []),
        ("[ ]", []),
        ("[-0,-0.0,0,0.0]", [0.0, -0.0, 0.0, 0.0]),
        ("[ 1 , 2.5 ,\n-3\t]", [1.0, 2.5, -3.0]),
        ("[101.98,92.96,0.94]", [101.98, 92.96, 0.94]),
        ("[1e2,1.5E-3,2e+1]", [100.0, 0.0015, 20.0]),  # exponents: the generic scanner
        ("[9007199254740993]", [9007199254740992.0]),  # an int beyond 2^53: rounded as Python
        ("[9007199254740993.0]", [9007199254740992.0]),
        ("[0.1234567890123456789]", [0.1234567890123456789]),  # 19+ digits
        ("[12345678901234567890.5]", [12345678901234567890.5]),
        ("[1234567.1234567]", [1234567.1234567]),
    ],
)
def test_keypoint_lists(body: str, values: list[float]) -> None:
    got = _keypoints(body)
    assert got is not None
    assert got.tobytes() == np.array(values, dtype=np.float64).tobytes()
    assert _keypoints(body, tail=" " * 40) is not None  # far from the buffer's end, too


@pytest.mark.parametrize(
    "body",
    [
        "[1,]",
        "[,1]",
        "[1 2]",
        "[01]",
        "[-01]",
        "[1.]",
        "[.5]",
        "[-]",
        "[1e]",
        "[[1]]",
        '["1"]',
        "[NaN]",
        "[1e400]",
        "[true]",
        "[1;2]",
        "[1",
        '["a]", 1]',  # the first ']' is inside a string: the body read is declined
        "[1, [2]]",
        "[1]]",
        "[1 , , 2]",
    ],
)
def test_keypoint_lists_declined(body: str) -> None:
    assert _keypoints(body) is None
    assert _keypoints(body, tail=" " * 40) is None


def test_truncated_documents_are_declined() -> None:
    whole = b'[{"image_id": 1, "category_id": 1, "score": 1, "keypoints": [12.5,3,0.75]}]'
    for end in range(len(whole)):
        assert _json.results(whole[:end]) is None  # type: ignore[union-attr]


def _kp_files(tmp_path: Path, entries: int = 6) -> tuple[Path, Path]:
    """A small person-keypoints annotation file with awkward numbers and its results."""
    rng = np.random.default_rng(3)
    tokens = ["0", "-0", "0.0", "-0.0", "12", "3.25", "1e2", "640.123456789", "7", "0.5"]
    images = [{"id": i + 1, "width": 640, "height": 480, "file_name": f"{i}.jpg"} for i in range(3)]
    anns, res = [], []
    for j in range(entries):
        pts = [tokens[(j + p) % len(tokens)] for p in range(17 * 3)]
        anns.append(
            f'{{"id": {j + 1}, "image_id": {j % 3 + 1}, "category_id": 1, "iscrowd": 0, '
            f'"area": {100 + j}.5, "bbox": [10, 20, 30.5, 40], "num_keypoints": 5, '
            f'"keypoints": [{", ".join(pts)}]}}'
        )
        det = ",".join(f"{v:.2f}" for v in rng.uniform(0, 400, 17 * 3))
        res.append(
            f'{{"image_id": {j % 3 + 1}, "category_id": 1, "score": {0.1 + j / 10}, '
            f'"keypoints": [{det}]}}'
        )
    cats = '[{"id": 1, "name": "person", "supercategory": "person", "skeleton": [[1, 2]]}]'
    gt = tmp_path / "person_keypoints_val.json"
    gt.write_text(
        f'{{"images": {json.dumps(images)}, "categories": {cats}, '
        f'"annotations": [{", ".join(anns)}]}}'
    )
    rp = tmp_path / "kp_results.json"
    rp.write_text("[" + ",\n".join(res) + "]")
    return gt, rp


def test_ground_truth_and_results_identical(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gt_path, res_path = _kp_files(tmp_path)
    py, k = both(monkeypatch, read_coco, gt_path, masks=False)
    assert diff(py, k) is None and taken_gt(gt_path, masks=False)
    rpy, rk = both(monkeypatch, read_coco_results, k, res_path, task="keypoints")
    assert diff(rpy, rk) is None
    scanned = results_kernel.file_result_columns(res_path)
    assert scanned is not None
    given_scan = read_coco_results(k, res_path, task="keypoints", scanned=scanned)
    assert diff(rk, given_scan) is None


def test_scanned_keypoints_are_handed_over_uncopied(tmp_path: Path) -> None:
    gt_path, res_path = _kp_files(tmp_path)
    ds = read_coco(gt_path, masks=False)
    scanned = results_kernel.file_result_columns(res_path)
    assert scanned is not None
    column = scanned["keypoints"]
    rs = read_coco_results(ds, res_path, task="keypoints", scanned=scanned)
    kp = rs.data(CocoResults).keypoints
    assert np.shares_memory(kp, column) and not kp.flags.writeable and immutable(kp)
    assert frozen(kp, np.float64) is kp


def test_a_writable_kernel_column_is_still_copied() -> None:
    r = _keypoints("[1, 2, 3]")
    assert r is not None and r.flags.writeable and not immutable(r)
    assert not np.shares_memory(frozen(r, np.float64), r)


def test_many_lists_read_across_threads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """More lists than one thread reads (``KP_SPANS_PER_THREAD``): the same result set as the
    Python path, and one bad list among them still declines the whole file."""
    gt_path, _ = _kp_files(tmp_path)
    ds = read_coco(gt_path, masks=False)
    rng = np.random.default_rng(5)
    scale = 10.0 ** rng.integers(0, 4, (12000, 51))  # 0 to 3 decimals
    values = np.floor(rng.uniform(-50, 700, (12000, 51)) * scale) / scale
    lines = [
        f'{{"image_id": {j % 3 + 1}, "category_id": 1, "score": {j / 12000!r}, '
        f'"keypoints": [{", ".join(repr(float(v)) for v in row)}]}}'
        for j, row in enumerate(values)
    ]
    res = tmp_path / "many.json"
    res.write_text("[" + ",\n".join(lines) + "]")
    py, k = both(monkeypatch, read_coco_results, ds, res, task="keypoints")
    assert diff(py, k) is None
    scanned = results_kernel.file_result_columns(res)
    assert scanned is not None and scanned["keypoints"].tobytes() == values.tobytes()
    lines[9000] = lines[9000].replace('"keypoints": [', '"keypoints": [NaN, ')
    (tmp_path / "bad.json").write_text("[" + ",".join(lines) + "]")
    assert results_kernel.file_result_columns(tmp_path / "bad.json") is None


def test_cli_keypoints_on_and_off_the_kernel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``vocviewer eval --task keypoints`` (the results scanned in a second thread while the
    annotation file is read) prints and writes the same as on the numpy path."""
    from vocviewer import cli

    (tmp_path / "data").mkdir()
    gt_path, res_path = _kp_files(tmp_path / "data", entries=9)
    outputs = []
    for flag in ("0", "1"):
        monkeypatch.setenv("VOCVIEWER_KERNEL", flag)
        out = tmp_path / f"out{flag}.json"
        args = ["eval", str(gt_path), "--results", str(res_path), "--task", "keypoints"]
        assert cli.main([*args, "--json", str(out)]) == 0
        outputs.append(json.loads(out.read_text()))
    assert outputs[0] == outputs[1] and outputs[0]["summary"]
