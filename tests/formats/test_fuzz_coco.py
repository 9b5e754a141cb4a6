"""Property-based tests of the COCO readers: mutated valid files and arbitrary bytes give data or
``FormatError`` naming the file, never another exception; the bulk and per-entry results paths
accept and reject exactly the same entries."""

from __future__ import annotations

import json
import random
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.formats.fuzz_targets_coco import TARGETS, dumps, make_gt, mutate
from vocviewer.core.errors import FormatError
from vocviewer.formats import coco_results as cr
from vocviewer.formats.coco import read_coco
from vocviewer.formats.coco_schema import parse_json

FUZZ = settings(max_examples=60, deadline=None, derandomize=True)


def _outcome(read: Any, path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning either
        try:
            read(path)
        except FormatError as e:
            err = e
        else:
            return
    assert err.path is not None and err.path.name.startswith(path.name), str(err)


@pytest.mark.parametrize(("name", "make", "read"), TARGETS, ids=[t[0] for t in TARGETS])
@FUZZ
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3))
def test_mutated_files_give_data_or_format_error(
    name: str, make: Any, read: Any, seed: int, n: int
) -> None:
    rng = random.Random(seed)
    obj = json.loads(make(rng))
    for _ in range(n):
        obj = mutate(rng, obj)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.json"
        path.write_bytes(dumps(obj))
        _outcome(read, path)


@pytest.mark.parametrize(("name", "make", "read"), TARGETS, ids=[t[0] for t in TARGETS])
@FUZZ
@given(data=st.binary(max_size=300))
def test_arbitrary_bytes_give_data_or_format_error(
    name: str, make: Any, read: Any, data: bytes
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.json"
        path.write_bytes(data)
        _outcome(read, path)


# --- the two results paths -------------------------------------------------------------------
GT = make_gt(random.Random(5))
IDS = [im["id"] for im in GT["images"]]
CATS = [c["id"] for c in GT["categories"]]
ODD = st.sampled_from(
    [
        "0.5",
        "1",
        True,
        False,
        None,
        [1],
        [[1]],
        {},
        float("nan"),
        float("inf"),
        -float("inf"),
        2**63,
        2**70,
        -(2**63),
        10**400,
        1e308,
        3.0,
        2.5,
    ]
)
NUM = st.one_of(st.floats(-50, 50), st.integers(-50, 50))


def _entry(draw: Any) -> dict[str, Any]:
    e: dict[str, Any] = {
        "image_id": draw(st.one_of(st.sampled_from(IDS), st.sampled_from(IDS).map(float), ODD)),
        "category_id": draw(st.one_of(st.sampled_from(CATS), ODD)),
        "score": draw(st.one_of(NUM, ODD)),
        "bbox": draw(
            st.one_of(
                st.lists(st.one_of(NUM, ODD), min_size=4, max_size=4),
                st.lists(NUM, min_size=4, max_size=4),
                ODD,
            )
        ),
    }
    for k in list(e):
        if draw(st.integers(0, 30)) == 0:
            del e[k]
    return e


@st.composite
def _entries(draw: Any) -> list[Any]:
    good = st.builds(
        lambda i, c, s, b: {"image_id": i, "category_id": c, "score": s, "bbox": b},
        st.sampled_from(IDS),
        st.sampled_from(CATS),
        NUM,
        st.lists(NUM, min_size=4, max_size=4),
    )
    first = draw(good)
    rest = draw(st.lists(st.one_of(good, good, st.composite(_entry)()), max_size=6))
    return [first, *rest]


def _per_entry(ds: Any, path: Path, keep_going: bool) -> Any:
    anns = parse_json(path, path.read_bytes())
    return cr._read_entries(path, anns, "bbox", "bbox", keep_going, ds)


def _same(a: Any, b: Any) -> None:
    if isinstance(a, FormatError) or isinstance(b, FormatError):
        assert isinstance(a, FormatError) and isinstance(b, FormatError), (a, b)
        assert (a.element, a.message) == (b.element, b.message)
        return
    for name in ("image_index", "label", "score", "box", "line"):
        np.testing.assert_array_equal(getattr(a.detections, name), getattr(b.detections, name))
    for name in ("bbox", "area", "det_id", "image_id", "category_id"):
        np.testing.assert_array_equal(
            getattr(a.extras["coco"], name), getattr(b.extras["coco"], name)
        )
    assert [str(p) for p in a.problems] == [str(p) for p in b.problems]


def _run(fn: Any) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return fn()
    except FormatError as e:
        return e


@settings(max_examples=150, deadline=None, derandomize=True)
@given(entries=_entries())
def test_bulk_and_per_entry_paths_accept_and_reject_the_same_entries(entries: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        gt_path = Path(tmp) / "gt.json"
        gt_path.write_text(json.dumps(GT))
        ds = read_coco(gt_path, masks=False)
        path = Path(tmp) / "r.json"
        path.write_bytes(dumps(entries))
        fast = _run(lambda: cr.read_coco_results(ds, path))
        slow = _run(lambda: _per_entry(ds, path, False))
        _same(fast, slow)
        cols = cr.box_columns(path)
        _same(_run(lambda: cr.read_coco_results(ds, path, boxes=cols)), slow)
        _same(
            _run(lambda: cr.read_coco_results(ds, path, keep_going=True)),
            _run(lambda: _per_entry(ds, path, True)),
        )


def test_string_score_is_refused_on_both_paths(tmp_path: Path) -> None:
    """``"score": "0.5"``: pycocotools keeps the string (its sort then fails); both paths refuse
    it naming ``[1].score``."""
    (tmp_path / "gt.json").write_text(json.dumps(GT))
    ds = read_coco(tmp_path / "gt.json", masks=False)
    good = {"image_id": IDS[0], "category_id": CATS[0], "bbox": [1, 2, 3, 4], "score": 0.5}
    path = tmp_path / "r.json"
    path.write_text(json.dumps([good, {**good, "score": "0.5"}]))
    for fn in (lambda: cr.read_coco_results(ds, path), lambda: _per_entry(ds, path, False)):
        with pytest.raises(FormatError) as e:
            fn()
        assert e.value.element == "[1].score" and 'got "0.5"' in e.value.message
    assert cr.box_columns(path) is None
