"""Property-based tests of the COCO readers: mutated valid files and arbitrary bytes give data or
``FormatError`` naming the file, never another exception; the bulk and per-entry results paths
accept and reject exactly the same entries."""

from __future__ import annotations

import json
import os
import random
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.formats.fuzz_targets_coco import TARGETS, dumps, make_gt, mutate
from vocviewer.core import masks as mk
from vocviewer.core.errors import FormatError
from vocviewer.families.coco import results_bulk as bulk
from vocviewer.families.coco import results_entries
from vocviewer.families.coco import results_reader as cr
from vocviewer.families.coco.columns import CocoAnnotations, CocoResults
from vocviewer.families.coco.reader import read_coco
from vocviewer.formats.json_input import parse_json

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
    return results_entries.read_entries(path, anns, "bbox", "bbox", keep_going, ds)


def _same(a: Any, b: Any) -> None:
    if isinstance(a, FormatError) or isinstance(b, FormatError):
        assert isinstance(a, FormatError) and isinstance(b, FormatError), (a, b)
        assert (a.element, a.message) == (b.element, b.message)
        return
    for name in ("image_index", "label", "score", "box", "line"):
        np.testing.assert_array_equal(getattr(a.detections, name), getattr(b.detections, name))
    for name in ("bbox", "area", "det_id", "image_id", "category_id"):
        np.testing.assert_array_equal(
            getattr(a.data(CocoResults), name), getattr(b.data(CocoResults), name)
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


# --- segm results: compressed strings in bulk, everything else entry by entry ------------------
SIZE = {im["id"]: (im["height"], im["width"]) for im in GT["images"]}
RLE_CHARS = st.text(alphabet=[chr(c) for c in range(40, 120)], max_size=12)


@st.composite
def _runs(draw: Any, h: int, w: int) -> list[int]:
    """Runs summing to ``h * w`` (zero runs included)."""
    cuts = sorted(draw(st.lists(st.integers(0, h * w), max_size=8)))
    return np.diff([0, *cuts, h * w]).tolist()


@st.composite
def _segmentation(draw: Any, image_id: Any, odd: int) -> Any:
    """A segmentation for the image: a compressed string mostly, else runs or a polygon; with
    ``odd`` 1 sometimes, with 2 always, a malformed one."""
    h, w = SIZE.get(image_id, (9, 9)) if isinstance(image_id, int) else (9, 9)
    runs = draw(_runs(h, w))
    forms = ["string"] * 6 + ["list", "polygon"] + ["odd"] * 3 * odd
    form = draw(st.sampled_from(forms if odd < 2 else ["odd"]))
    if form == "string":
        return {"size": [h, w], "counts": mk.to_string(np.array(runs))}
    if form == "list":
        return {"size": [h, w], "counts": runs}
    if form == "polygon":
        return [draw(st.lists(st.floats(0, max(h, w)), min_size=6, max_size=10))]
    other = draw(st.sampled_from(sorted(set(SIZE.values()) - {(h, w)}) or [(h + 1, w)]))
    size_odd = st.sampled_from([[h], [h, w, 1], [h, float(w)], [w, h], list(other), [0, w]])
    string = mk.to_string(np.array(runs))
    counts_odd = st.sampled_from(
        [string + "P", string[:-1], string + "0", string + "o" * 13 + "0", runs[:-1], "", "0"]
        + [mk.to_string(np.array(r)) for r in (runs[:-1] or [1], [*runs, 1], [-1, *runs])]
    )
    return draw(
        st.one_of(
            ODD,
            st.fixed_dictionaries({"size": size_odd, "counts": st.just(string)}),
            st.fixed_dictionaries({"size": st.just([h, w]), "counts": st.one_of(counts_odd, ODD)}),
            st.fixed_dictionaries({"size": st.one_of(ODD, st.just([h, w])), "counts": RLE_CHARS}),
            st.just({"size": [h, w]}),
            st.just({"counts": string}),
            st.just({"size": [100_000, 100_000], "counts": "0"}),
            _runs(*other).map(lambda r: {"size": list(other), "counts": mk.to_string(np.array(r))}),
        )
    )


@st.composite
def _segm_entry(draw: Any, odd: bool, boxed: bool) -> dict[str, Any]:
    odd_or = (lambda s: st.one_of(s, s, s, ODD)) if odd else (lambda s: s)
    image_id = draw(odd_or(st.sampled_from(IDS)))
    e: dict[str, Any] = {
        "image_id": image_id,
        "category_id": draw(odd_or(st.sampled_from(CATS))),
        "score": draw(odd_or(NUM)),
        "segmentation": draw(_segmentation(image_id, int(odd))),
    }
    if boxed or draw(st.integers(0, 2)) == 0:
        e["bbox"] = draw(
            odd_or(st.lists(NUM, min_size=4, max_size=4))
            if not odd or draw(st.booleans())
            else st.lists(st.one_of(NUM, ODD), min_size=3, max_size=5)
        )
    if odd and draw(st.integers(0, 30)) == 0:
        del e[draw(st.sampled_from(sorted(e)))]
    return e


def _resized(e: dict[str, Any], data: Any) -> dict[str, Any]:
    """``e`` with an RLE of another image's size."""
    h, w = data.draw(st.sampled_from(sorted(set(SIZE.values()) - {SIZE[e["image_id"]]})))
    counts = mk.to_string(np.array(data.draw(_runs(h, w))))
    return {**e, "segmentation": {"size": [h, w], "counts": counts}}


@st.composite
def _one_defect(draw: Any, plain: Any) -> dict[str, Any]:
    """A plain entry with one field made odd (or its ``segmentation`` malformed)."""
    e = draw(plain)
    field = draw(st.sampled_from(["segmentation"] * 4 + sorted(e)))
    if field == "segmentation":
        seg = draw(_segmentation(e["image_id"], 2))
        return {**e, "segmentation": seg}
    return {**e, field: draw(ODD)}


@st.composite
def _segm_entries(draw: Any) -> list[Any]:
    boxed = draw(st.booleans())  # the first entry's ``bbox`` picks ``loadRes``' branch
    plain = _segm_entry(odd=False, boxed=boxed)
    nonfinite = st.sampled_from([float("nan"), float("inf"), -float("inf")])
    kept = st.one_of(  # what the official code accepts: kept, with a warning
        st.builds(lambda e, v: {**e, "score": v}, plain, nonfinite),
        st.builds(lambda e, v: {**e, "bbox": [1, 2, v, 4]}, plain, nonfinite),
        st.builds(_resized, plain, st.data()),
    )
    defect = _one_defect(plain)
    rest = st.one_of(plain, plain, kept, defect, defect, _segm_entry(odd=True, boxed=boxed))
    return [draw(plain), *draw(st.lists(rest, max_size=6))]


def _segm_per_entry(ds: Any, path: Path, keep_going: bool) -> Any:
    anns = parse_json(path, path.read_bytes())
    return results_entries.read_entries(path, anns, cr._kind(anns[0]), "segm", keep_going, ds)


def _same_masks(a: Any, b: Any) -> None:
    _same(a, b)
    if not isinstance(a, FormatError):
        ma, mb = a.data(CocoResults).masks, b.data(CocoResults).masks
        for name in ("counts", "offsets", "height", "width"):
            np.testing.assert_array_equal(getattr(ma, name), getattr(mb, name))
        assert [str(w) for w in a.data(CocoResults).warnings] == [
            str(w) for w in b.data(CocoResults).warnings
        ]


@settings(max_examples=int(os.environ.get("SEGM_EXAMPLES", "300")), deadline=None, derandomize=True)
@given(entries=_segm_entries())
def test_bulk_and_per_entry_segm_paths_accept_and_reject_the_same_entries(
    entries: list[Any],
) -> None:
    """Compressed strings, uncompressed runs and polygons, valid and not, mixed: the bulk path
    takes a file only when the per-entry path would take every entry without a warning, and
    then builds the same columns and masks."""
    with tempfile.TemporaryDirectory() as tmp:
        gt_path = Path(tmp) / "gt.json"
        gt_path.write_text(json.dumps(GT))
        ds = read_coco(gt_path, masks=False)
        path = Path(tmp) / "r.json"
        path.write_bytes(dumps(entries))
        slow = _run(lambda: _segm_per_entry(ds, path, False))
        _same_masks(_run(lambda: cr.read_coco_results(ds, path, task="segm")), slow)
        _same_masks(
            _run(lambda: cr.read_coco_results(ds, path, task="segm", keep_going=True)),
            _run(lambda: _segm_per_entry(ds, path, True)),
        )
        anns = parse_json(path, path.read_bytes())
        gt = ds.data(CocoAnnotations)
        sizes = (ds.images.height.astype(np.int64), ds.images.width.astype(np.int64))
        cols = bulk.segm_columns(
            anns, False, gt.image_id, gt.category_id, *sizes, box_kind=cr._kind(anns[0]) == "bbox"
        )
        if (
            b"true" in path.read_bytes()
            or b"false" in path.read_bytes()
            or b"null" in (path.read_bytes())
        ):
            cols = None  # ``literals``: the caller never asks the bulk path
        event("bulk path" if cols is not None else "per-entry path")
        if isinstance(slow, FormatError):
            event("per-entry: an error")
        else:
            event("per-entry: kept with a warning" if slow.warnings else "per-entry: clean")
        if cols is not None:  # taken in bulk: the per-entry path takes it whole, no warning
            assert not isinstance(slow, FormatError) and not slow.problems and not slow.warnings
            np.testing.assert_array_equal(cols.xywh, slow.data(CocoResults).bbox)
            np.testing.assert_array_equal(cols.area, slow.data(CocoResults).area)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32-be"])
def test_literals_are_seen_in_any_encoding(tmp_path: Path, encoding: str) -> None:
    """``true`` among box results in a UTF-16 / 32 file (``json.loads`` reads those) is refused
    naming its path, as in UTF-8: the bulk path looks for literals in the decoded text."""
    (tmp_path / "gt.json").write_text(json.dumps(GT))
    ds = read_coco(tmp_path / "gt.json", masks=False)
    good = {"image_id": IDS[0], "category_id": CATS[0], "bbox": [1, 2, 3, 4], "score": 0.5}
    path = tmp_path / "r.json"
    path.write_bytes(json.dumps([good, {**good, "score": True}]).encode(encoding))
    with pytest.raises(FormatError) as e:
        cr.read_coco_results(ds, path)
    assert e.value.element == "[1].score" and "got true" in e.value.message
    path.write_bytes(json.dumps([good, good]).encode(encoding))
    assert len(cr.read_coco_results(ds, path).detections.score) == 2


# --- keypoint results: in bulk when every entry is plain, else entry by entry ----------------
@st.composite
def _kp_list(draw: Any, p: int, odd: bool, extra: int = 0) -> Any:
    """``p`` triples (``x, y`` numbers, ``v`` 0 / 1 / 2) and ``extra`` numbers; with ``odd``,
    a malformed list."""
    plain = draw(st.lists(NUM, min_size=2 * p, max_size=2 * p))
    vis = draw(st.lists(st.sampled_from([0, 1, 2, 2.0]), min_size=p, max_size=p))
    kp = [v for j in range(p) for v in (*plain[2 * j : 2 * j + 2], vis[j])] + vis[:extra]
    if not odd:
        return kp
    form = draw(st.sampled_from(["value", "value", "length", "triples", "empty", "field"]))
    if form == "value":  # one value a string, bool, null, list, non-finite, huge ...
        kp[draw(st.integers(0, len(kp) - 1))] = draw(ODD)
    elif form == "length":
        kp = kp[: draw(st.sampled_from([1, 2, len(kp) - 1]))] or [1]
    elif form == "triples":  # another whole number of triples: valid, not for the bulk path
        kp = kp + kp[:3]
    elif form == "empty":
        kp = []
    else:
        kp = draw(st.one_of(ODD, st.just([kp]), st.just("1 2 1")))
    return kp


@st.composite
def _kp_entry(draw: Any, p: int, boxed: bool, odd: bool, extra: int = 0) -> dict[str, Any]:
    e: dict[str, Any] = {
        "image_id": draw(st.sampled_from(IDS)),
        "category_id": draw(st.sampled_from(CATS)),
        "score": draw(NUM),
        "keypoints": draw(_kp_list(p, False, extra)),
    }
    if boxed or draw(st.integers(0, 2)) == 0:  # without ``boxed``, a bbox is ignored
        e["bbox"] = draw(st.lists(NUM, min_size=4, max_size=4))
    if odd:
        field = draw(st.sampled_from(["keypoints"] * 3 + sorted(e) + ["bbox_odd", "del"]))
        if field == "keypoints":
            e[field] = draw(_kp_list(p, True))
        elif field == "bbox_odd":
            e["bbox"] = draw(st.one_of(ODD, st.lists(st.one_of(NUM, ODD), min_size=3, max_size=5)))
        elif field == "del":
            del e[draw(st.sampled_from(sorted(e)))]
        else:
            e[field] = draw(ODD)
    return e


@st.composite
def _kp_entries(draw: Any) -> tuple[str, list[Any]]:
    p, boxed = draw(st.integers(1, 3)), draw(st.booleans())
    extra = draw(st.sampled_from([0] * 6 + [1, 2]))  # every list of the file one or two long
    task = "keypoints" if boxed else draw(st.sampled_from(["keypoints", "bbox"]))
    first = draw(_kp_entry(p, boxed, False, extra))
    if not boxed and "bbox" in first:
        first["bbox"] = []  # an empty first bbox: still ``loadRes``' keypoints branch
    plain = _kp_entry(p, boxed, False, extra)
    nan = st.sampled_from([float("nan"), float("inf"), -float("inf")])
    kept = st.one_of(
        st.builds(lambda e, v: {**e, "score": v}, plain, nan),
        st.builds(lambda e, v: {**e, "keypoints": [v, *e["keypoints"][1:]]}, plain, nan),
        st.builds(lambda e, v: {**e, "bbox": [1, 2, v, 4]}, plain, nan),
    )
    rest = st.one_of(plain, plain, plain, kept, _kp_entry(p, boxed, True, extra))
    return task, [first, *draw(st.lists(rest, max_size=6))]


@settings(max_examples=int(os.environ.get("KP_EXAMPLES", "300")), deadline=None, derandomize=True)
@given(case=_kp_entries())
def test_bulk_and_per_entry_keypoint_paths_accept_and_reject_the_same_entries(
    case: tuple[str, list[Any]],
) -> None:
    """Keypoint results valid and not (NaN, strings, bools, wrong lengths, with and without a
    bbox), mixed: the bulk path takes a file only when the per-entry path would take every
    entry without a warning, and then builds the same columns and keypoints."""
    task, entries = case
    with tempfile.TemporaryDirectory() as tmp:
        gt_path = Path(tmp) / "gt.json"
        gt_path.write_text(json.dumps(GT))
        ds = read_coco(gt_path, masks=False)
        path = Path(tmp) / "r.json"
        path.write_bytes(dumps(entries))
        anns = parse_json(path, path.read_bytes())
        kind = cr._kind(anns[0])

        def per_entry(keep_going: bool) -> Any:
            return results_entries.read_entries(path, anns.copy(), kind, task, keep_going, ds)

        for kg in (False, True):
            fast = _run(lambda kg=kg: cr.read_coco_results(ds, path, task=task, keep_going=kg))
            slow = _run(lambda kg=kg: per_entry(kg))
            _same(fast, slow)
            if not isinstance(slow, FormatError):
                np.testing.assert_array_equal(
                    fast.data(CocoResults).keypoints, slow.data(CocoResults).keypoints
                )
                assert [str(w) for w in fast.warnings] == [str(w) for w in slow.warnings]
        gt = ds.data(CocoAnnotations)
        literals = any(w in path.read_bytes() for w in (b"true", b"false", b"null"))
        cols = bulk.keypoint_columns(
            anns, literals, gt.image_id, gt.category_id, box_kind=kind == "bbox"
        )
        slow = _run(lambda: per_entry(False))
        event("bulk path" if cols is not None else "per-entry path")
        if isinstance(slow, FormatError):
            event("per-entry: an error")
        else:
            event("per-entry: kept with a warning" if slow.warnings else "per-entry: clean")
        if cols is not None:  # taken in bulk: the per-entry path takes it whole, no warning
            assert not isinstance(slow, FormatError) and not slow.problems and not slow.warnings
            ex = slow.data(CocoResults)
            np.testing.assert_array_equal(cols.xywh, ex.bbox)
            np.testing.assert_array_equal(cols.area, ex.area)
            np.testing.assert_array_equal(cols.keypoints, ex.keypoints)
