"""The compiled JSON scanner (``vocviewer.kernel._json``) against the Python readers.

Every file is read twice, with the kernel and with ``VOCVIEWER_KERNEL=0`` (the numpy / json
path), and the two datasets / result sets must be identical: every array equal bit for bit,
dtype included. Where the kernel declines a file, the Python path reads it (checked: the
kernel did take the plain files, so the comparisons are not vacuous)."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.parity.lvis_data import make_lvis
from vocviewer import cli, kernel
from vocviewer.core.errors import FormatError
from vocviewer.families.coco import reader_kernel, results_kernel
from vocviewer.families.coco.columns import CocoAnnotations, RleTable
from vocviewer.families.coco.reader import read_coco
from vocviewer.families.coco.results_reader import read_coco_results
from vocviewer.families.lvis import reader_kernel as lvis_kernel
from vocviewer.families.lvis.reader import read_lvis

_json = kernel.load("_json")
pytestmark = pytest.mark.skipif(_json is None, reason="the _json kernel is not built here")

SHARED = Path(__file__).resolve().parents[3] / "shared"
COCO_MINI = SHARED / "data" / "coco-mini" / "annotations"
GENERATOR = SHARED / "bench" / "gen_coco_workload.py"


def diff(a: Any, b: Any, where: str = "") -> str | None:
    """Where ``a`` and ``b`` differ (dataclasses field by field, arrays by dtype, shape and
    bits), or ``None``. Masks compare by their runs (``RleStrings`` holds the same masks as
    ``RleTable`` does, kept as strings)."""
    if isinstance(a, RleTable) and isinstance(b, RleTable) and type(a) is not type(b):
        a, b = (RleTable(t.counts, t.offsets, t.height, t.width) for t in (a, b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return f"{where}: {type(a).__name__} vs {type(b).__name__}"
        for f in dataclasses.fields(a):
            d = diff(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
            if d:
                return d
        return None
    if isinstance(a, np.ndarray):
        if not isinstance(b, np.ndarray) or a.dtype != b.dtype or a.shape != b.shape:
            return f"{where}: {a.dtype}{a.shape} vs {getattr(b, 'dtype', type(b))}"
        same = a.tobytes() == b.tobytes() if a.dtype.kind in "fiub" else np.array_equal(a, b)
        return None if same else f"{where}: values differ"
    if isinstance(a, tuple | list):
        if type(a) is not type(b) or len(a) != len(b):
            return f"{where}: {a!r:.60} vs {b!r:.60}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = diff(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return f"{where}: keys {sorted(a)} vs {sorted(b)}"
        for k in a:
            d = diff(a[k], b[k], f"{where}[{k!r}]")
            if d:
                return d
        return None
    if isinstance(a, FormatError):
        return None if str(a) == str(b) else f"{where}: {a} vs {b}"
    return None if type(a) is type(b) and a == b else f"{where}: {a!r:.60} vs {b!r:.60}"


def both(monkeypatch: pytest.MonkeyPatch, read: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """``read(*args, **kwargs)`` on the Python path, then with the kernel; an error is returned
    as its message (both paths must give the same one)."""
    out = []
    for flag in ("0", "1"):
        monkeypatch.setenv("VOCVIEWER_KERNEL", flag)
        try:
            out.append(read(*args, **kwargs))
        except FormatError as e:
            out.append(f"FormatError: {e}")
    return out[0], out[1]


def taken_gt(path: Path, masks: bool) -> bool:
    """Whether the kernel reads this ground-truth file itself (no fall-back)."""
    cols = reader_kernel.kernel_columns(path.read_bytes())
    return cols is not None and (
        reader_kernel.kernel_dataset(path, cols, path.parent, masks=masks, reads_iscrowd=True)
        is not None
    )


# --- real and generated files ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["instances_val2017.json", "person_keypoints_val2017.json"])
@pytest.mark.parametrize("masks", [False, True])
def test_coco_mini_identical(monkeypatch: pytest.MonkeyPatch, name: str, masks: bool) -> None:
    path = COCO_MINI / name
    if not path.exists():
        pytest.skip("coco-mini is not here")
    py, k = both(monkeypatch, read_coco, path, masks=masks)
    assert diff(py, k) is None
    assert taken_gt(path, masks)


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared realistic generator at a small size: polygon ground truth, crowd RLE,
    results with compressed-RLE masks; plus the same results without masks."""
    if not GENERATOR.exists():
        pytest.skip("the shared workload generator is not here")
    out = tmp_path_factory.mktemp("workload")
    cmd = [sys.executable, str(GENERATOR), "--images", "40", "--dets-per-image", "15"]
    subprocess.run([*cmd, "--segm", "--out", str(out)], check=True, capture_output=True)
    entries = json.loads((out / "detections_segm.json").read_text())
    boxes = [{k: v for k, v in e.items() if k != "segmentation"} for e in entries]
    (out / "detections_bbox.json").write_text(json.dumps(boxes, indent=1))
    masks_only = [{k: v for k, v in e.items() if k != "bbox"} for e in entries]
    (out / "detections_masks.json").write_text(json.dumps(masks_only, separators=(",", ":")))
    return out


@pytest.mark.parametrize("masks", [False, True])
def test_workload_ground_truth_identical(
    monkeypatch: pytest.MonkeyPatch, workload: Path, masks: bool
) -> None:
    path = workload / "instances_gt.json"
    py, k = both(monkeypatch, read_coco, path, masks=masks)
    assert diff(py, k) is None
    assert taken_gt(path, masks)
    assert k.data(CocoAnnotations).iscrowd.any()  # crowd RLEs and polygons both met


@pytest.mark.parametrize(
    ("name", "task"),
    [
        ("detections_bbox.json", "bbox"),
        ("detections_segm.json", "bbox"),
        ("detections_segm.json", "segm"),
        ("detections_masks.json", "segm"),
    ],
)
def test_workload_results_identical(
    monkeypatch: pytest.MonkeyPatch, workload: Path, name: str, task: str
) -> None:
    gt = read_coco(workload / "instances_gt.json", masks=task == "segm")
    py, k = both(monkeypatch, read_coco_results, gt, workload / name, task=task)
    assert diff(py, k) is None
    assert results_kernel.result_columns((workload / name).read_bytes()) is not None


def test_keypoint_results_identical(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = COCO_MINI / "person_keypoints_val2017.json"
    if not path.exists():
        pytest.skip("coco-mini is not here")
    gt = read_coco(path, masks=False)
    c = gt.data(CocoAnnotations)
    rows = np.flatnonzero(c.has_keypoints)
    entries = [
        {
            "image_id": int(c.image_id[gt.objects.image_index[j]]),
            "category_id": 1,
            "keypoints": [round(float(v) * 1.01 + 0.3, 2) for v in c.keypoints[j].ravel()],
            "score": 0.5 + j / 1000,
        }
        for j in rows.tolist()
    ]
    res = tmp_path / "kp.json"
    res.write_text(json.dumps(entries))
    py, k = both(monkeypatch, read_coco_results, gt, res, task="keypoints")
    assert diff(py, k) is None
    assert results_kernel.plain_columns(
        res.read_bytes(),
        "keypoints",
        c.image_id,
        c.category_id,
        gt.images.height.astype(np.int64),
        gt.images.width.astype(np.int64),
    )


@pytest.mark.parametrize("ignore", [False, True])
@pytest.mark.parametrize("masks", [False, True])
def test_lvis_identical(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ignore: bool, masks: bool
) -> None:
    path = tmp_path / "lvis_v1_val.json"
    path.write_text(json.dumps(make_lvis(3, ignore=ignore)))
    py, k = both(monkeypatch, read_lvis, path, masks=masks)
    assert diff(py, k) is None
    assert lvis_kernel.read_plain(path, path.read_bytes(), tmp_path, masks=masks) is not None


# --- numbers: correctly rounded, exact ints, declined where Python's json would differ --------

NUMBER = r"\A-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,25})?([eE][-+]?[0-9]{1,3})?\Z"


def _score(token: str) -> Any:
    """The kernel's score for a results entry whose score is ``token``, or ``None``."""
    text = f'[{{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": {token}}}]'
    r = _json.results(text.encode())  # type: ignore[union-attr]
    return None if r is None else r["score"][0]


@settings(max_examples=400, deadline=None)
@given(st.from_regex(NUMBER))
def test_number_tokens_as_python_parses_them(token: str) -> None:
    expected = float(json.loads(token))  # an int token: converted as Python converts an int
    got = _score(token)
    if got is None:  # declined: only where the value is not an ordinary double / int64
        is_int = all(ch not in token for ch in ".eE")
        assert math.isinf(expected) or (is_int and not -(2**63) <= int(token) < 2**63)
    else:
        assert np.float64(expected).tobytes() == np.float64(got).tobytes()


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_repr_of_any_double_round_trips(x: float) -> None:
    for token in (repr(x), f"{x:.17e}", f"{x:.6g}"):
        got = _score(token)
        expected = float(json.loads(token))  # "-0" is the int 0: +0.0
        assert got is not None and np.float64(expected).tobytes() == np.float64(got).tobytes()


@pytest.mark.parametrize(
    "token",
    [
        "1e308",
        "1.7976931348623157e308",
        "-0.0",
        "-0",
        "0.30000000000000004",
        "0.1",
        "5e-324",
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "9007199254740993",
        "9007199254740993.0",
        "123456789012345678901234567890e-20",
        "1e-400",
        "0.000000000000000000000000000001",
        "9223372036854775807",
        "-9223372036854775808",
    ],
)
def test_adversarial_numbers(token: str) -> None:
    got = _score(token)
    assert got is not None
    assert np.float64(float(json.loads(token))).tobytes() == np.float64(got).tobytes()


@pytest.mark.parametrize(
    "text",
    [
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": NaN}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1e400}]',
        '[{"image_id": 9223372036854775808, "category_id": 1, "bbox": [0,0,1,1], "score": 1}]',
        '[{"image_id": 1.0, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1}]',
        '[{"image_id": true, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1], "score": 1}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1},]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 01}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": .5}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1.}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1, "x": "\u00e9"}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1, "x": "a\tb"}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1}] x',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1, "caption": "a"}]',
        '[{"image_\\u0069d": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1}]',
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1, "x": '
        + "[" * 300
        + "]" * 300
        + "}]",
        "[]",
        "{}",
        "",
    ],
)
def test_declined_inputs(text: str) -> None:
    assert _json.results(text.encode("utf-8")) is None  # type: ignore[union-attr]


def test_syntax_beside_the_schema() -> None:
    """Whitespace anywhere, unknown nested values of every kind, escapes in skipped strings,
    and a repeated key (the last one wins, as in Python's json)."""
    text = (
        ' \n[ {\t"extra" : {"a": [1, -2.5e3, true, false, null, {"b": "\\"\\\\\\/\\u00e9\\n"}]},'
        ' "score" : 0.25 , "image_id":7,"category_id" : 3, "score": 0.75,'
        ' "bbox" : [ 1 , 2.5 , 3e0 , -0.0 ] } ]\r\n'
    )
    r = _json.results(text.encode())  # type: ignore[union-attr]
    ref = json.loads(text)[0]
    assert r is not None
    assert r["image_id"].tolist() == [7] and r["category_id"].tolist() == [3]
    assert r["score"].tolist() == [ref["score"]] == [0.75]
    assert np.array(ref["bbox"], dtype=np.float64).tobytes() == r["bbox"].tobytes()


# --- generated files: same dataset, or declined to the Python path ---------------------------

_num = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.sampled_from([0, 1, -0.0, 0.5, 1e308, 2**63, 3.0]),
)
_poly = st.lists(_num, min_size=0, max_size=10)
_segm = st.one_of(
    st.lists(_poly, max_size=3),
    st.fixed_dictionaries({"size": st.just([20, 30]), "counts": st.just([100, 400, 100])}),
    st.fixed_dictionaries({"size": st.just([20, 30]), "counts": st.sampled_from(["5d<0", "0"])}),
    st.just("x"),
)


@st.composite
def _gt(draw: Any) -> dict[str, Any]:
    images = [
        {"id": i, "width": 30, "height": 20, "file_name": draw(st.sampled_from(["a.jpg", "b\\/c"]))}
        for i in range(draw(st.integers(1, 3)))
    ]
    cats = [{"id": c, "name": f"c{c}", "supercategory": "s"} for c in (1, 2)]
    anns = []
    for j in range(draw(st.integers(0, 6))):
        a: dict[str, Any] = {
            "id": j + 1,
            "image_id": draw(st.sampled_from([0, 1, 5])),
            "category_id": draw(st.sampled_from([1, 2, 3])),
            "bbox": draw(st.lists(_num, min_size=3, max_size=5)),
            "area": draw(_num),
            "iscrowd": draw(st.sampled_from([0, 1, True, 2])),
            "segmentation": draw(_segm),
        }
        for key in draw(st.sets(st.sampled_from(sorted(a)), max_size=1)):
            del a[key]
        if draw(st.booleans()):
            a["keypoints"] = draw(st.lists(_num, max_size=6))
            a["num_keypoints"] = draw(st.integers(0, 2))
        anns.append(a)
    return {
        "info": {"x": [None, {"y": 1}]},
        "images": images,
        "categories": cats,
        "annotations": anns,
    }


@settings(max_examples=150, deadline=None)
@given(_gt(), st.sampled_from([None, 1]), st.booleans())
def test_generated_ground_truth(data: dict[str, Any], indent: int | None, masks: bool) -> None:
    with pytest.MonkeyPatch.context() as mp, _tmp() as folder:
        path = folder / "instances_x.json"
        path.write_text(json.dumps(data, indent=indent))
        py, k = both(mp, read_coco, path, masks=masks)
        assert diff(py, k) is None


def test_box_corner_past_the_largest_double(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``y + h`` of a box ``[0, 1e308, 0, 1e308]`` overflows: inf on both paths, no warning
    (found by ``test_generated_ground_truth``)."""
    image = {"id": 0, "width": 30, "height": 20, "file_name": "a.jpg"}
    ann = {"id": 1, "image_id": 0, "category_id": 1, "bbox": [0, 1e308, 0, 1e308]}
    ann |= {"area": 0, "iscrowd": 0, "segmentation": []}
    data = {"images": [image], "categories": [{"id": 1, "name": "c"}], "annotations": [ann]}
    path = tmp_path / "instances_x.json"
    path.write_text(json.dumps(data))
    py, k = both(monkeypatch, read_coco, path, masks=False)
    assert diff(py, k) is None
    assert k.objects.box.tolist() == [[0.0, 1e308, 0.0, float("inf")]]


_coord = st.one_of(st.integers(0, 600), st.floats(0, 600, allow_nan=False))
_name = st.text(st.characters(min_codepoint=1, max_codepoint=127), max_size=8)


@st.composite
def _plain_gt(draw: Any) -> dict[str, Any]:
    """Files the Python reader reads without a problem (so the kernel must take them): any
    order of ids, names with escapes, polygons, crowd RLEs, keypoints, numbers of every form."""
    image_ids = draw(
        st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=4, unique=True)
    )
    cat_ids = draw(st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=3, unique=True))
    images = [{"id": i, "width": 30, "height": 20, "file_name": draw(_name)} for i in image_ids]
    cats = [
        {"id": c, "name": draw(_name), "keypoints": ["a", "b"], "skeleton": [[1, 2]]}
        for c in cat_ids
    ]
    anns = []
    for _ in range(draw(st.integers(0, 6))):
        crowd = draw(st.booleans())
        rle = {"size": [20, 30], "counts": draw(st.sampled_from([[600], [10, 590], [0, 5, 595]]))}
        polys = draw(
            st.lists(
                st.lists(_coord, min_size=6, max_size=12).filter(lambda p: len(p) % 2 == 0),
                max_size=3,
            )
        )
        a: dict[str, Any] = {
            "segmentation": rle if crowd else polys,
            "iscrowd": int(crowd),
            "id": draw(st.integers(-(2**63), 2**63 - 1)),
            "image_id": draw(st.sampled_from(image_ids)),
            "category_id": draw(st.sampled_from(cat_ids)),
            "bbox": draw(st.lists(_coord, min_size=4, max_size=4)),
            "area": draw(_coord),
        }
        if draw(st.booleans()):
            a["keypoints"] = draw(
                st.lists(_coord, min_size=3, max_size=9).filter(lambda k: len(k) % 3 == 0)
            )
            a["num_keypoints"] = draw(st.integers(0, 3))
        anns.append(dict(sorted(a.items(), key=lambda kv: draw(st.integers(0, 9)))))
    return {"images": images, "annotations": anns, "categories": cats, "info": {}}


@settings(max_examples=100, deadline=None)
@given(_plain_gt(), st.sampled_from([None, 0, 2]), st.booleans())
def test_generated_plain_ground_truth_taken(
    data: dict[str, Any], indent: int | None, masks: bool
) -> None:
    with pytest.MonkeyPatch.context() as mp, _tmp() as folder:
        path = folder / "instances_x.json"
        path.write_text(json.dumps(data, indent=indent))
        py, k = both(mp, read_coco, path, masks=masks)
        assert diff(py, k) is None
        assert taken_gt(path, masks)


class _tmp:
    """A fresh temporary folder (hypothesis runs many examples per test function)."""

    def __enter__(self) -> Path:
        self._dir = tempfile.TemporaryDirectory()
        return Path(self._dir.name)

    def __exit__(self, *exc: object) -> None:
        self._dir.cleanup()


def test_the_scan_lets_other_threads_run() -> None:
    """The scan releases the GIL: a Python thread keeps counting while it runs."""
    entry = '{"image_id": 1, "category_id": 2, "bbox": [1.5, 2.25, 30.125, 4e1], "score": 0.5}'
    data = ("[" + ", ".join([entry] * 400_000) + "]").encode()
    done = threading.Event()
    ticks = 0

    def scan() -> None:
        _json.results(data)  # type: ignore[union-attr]
        done.set()

    worker = threading.Thread(target=scan)
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.0005)
    worker.join()
    assert ticks >= 10


# --- the notice -------------------------------------------------------------------------------


def test_cli_names_a_missing_kernel(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A kernel asked for but not built: one line on stderr after the command (and none when
    every kernel asked for was there)."""
    args = ["eval", str(tmp_path / "instances_x.json"), "--results", str(tmp_path / "r.json")]
    cli.main(args)
    assert "kernel" not in capsys.readouterr().err
    monkeypatch.setattr(kernel, "_missing", set())
    assert kernel.load("_not_built_here") is None
    assert cli.main(args) == 1
    notes = [line for line in capsys.readouterr().err.splitlines() if "_not_built_here" in line]
    assert len(notes) == 1 and "numpy path" in notes[0]
