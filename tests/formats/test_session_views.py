"""Session version 3: the full view filter and the saved views round-trip; a version 2 file
(the image list's five filter fields, no views) still reads; a damaged view is dropped with its
JSON path and the rest kept."""

from __future__ import annotations

import json
import math

from vocviewer.core.view_filter import ViewFilter
from vocviewer.formats.session import FORMAT, VERSION, Session, read_session, write_session


def test_views_and_the_full_filter_round_trip(tmp_path) -> None:
    small_fp = ViewFilter(score=(0.8, math.inf), fp_kinds=("background",), area=(0, 1024))
    session = Session(
        dataset=tmp_path / "VOC2012",
        result_sets=((tmp_path / "a",), (tmp_path / "b",)),
        image_filter=ViewFilter(text="2012", verdicts=("missed",), classes=("dog",), result_set=1),
        views=(
            ("FP background > 0.8, small objects", small_fp),
            ("dogs", ViewFilter(classes=("dog",))),
        ),
    )
    path = write_session(tmp_path / "s.json", session)
    data = json.loads(path.read_text())
    assert VERSION == 3 and data["version"] == 3
    assert data["views"][0]["filter"]["score"] == [0.8, None]  # an open end is null (valid JSON)
    json.loads(path.read_text(), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    back, problems = read_session(path)
    assert problems == [] and back == session


def test_version_2_reads_without_views(tmp_path) -> None:
    data = {
        "format": FORMAT,
        "version": 2,
        "dataset": "VOC2012",
        "image_filter": {"text": "x", "flags": ["difficult"], "errors": "fp", "by_errors": True},
        "views": [{"name": "not read from a version 2 file", "filter": {}}],
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    session, problems = read_session(path)
    assert problems == [] and session.views == ()
    assert session.image_filter == ViewFilter("x", ("difficult",), "fp", True)


def test_a_damaged_view_is_dropped_with_its_json_path(tmp_path) -> None:
    data = {
        "format": FORMAT,
        "version": 3,
        "dataset": "VOC2012",
        "views": [
            {"name": "good", "filter": {"classes": ["cat"]}},
            {"name": "", "filter": {}},
            "just a name",
            {"name": "half", "filter": {"score": [1, 0], "tags": ["ambiguous"]}},
        ],
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    session, problems = read_session(path)
    assert sorted(p.element for p in problems) == ["views[1]", "views[2]", "views[3].filter.score"]
    assert all(p.path == path and "ignored" in p.message for p in problems)
    assert session.views == (
        ("good", ViewFilter(classes=("cat",))),
        ("half", ViewFilter(tags=("ambiguous",))),
    )
