"""Session files (``formats.session``): written relative to their folder, read back whole, and
damaged, foreign or newer files refused with the file and the JSON path named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vocviewer.core.errors import FormatError, OutputError
from vocviewer.formats.session import (
    FORMAT,
    VERSION,
    ImageListFilter,
    Session,
    looks_like_session,
    read_session,
    write_session,
)


def full_session(root: Path) -> Session:
    return Session(
        dataset=root / "data" / "VOCdevkit" / "VOC2012",
        sources={"images": root / "data" / "images"},
        result_sets=((root / "runs" / "a" / "x.txt", root / "runs" / "a" / "y.txt"), (root / "b",)),
        current_result_set=1,
        image_set="val",
        class_name="dog",
        image_filter=ImageListFilter("2012_", ("difficult",), "fp", True),
        image="2012_000019",
        score_threshold=0.25,
        view_mode="fp",
        toggles={"show_labels": False, "show_gt": True},
        iou=0.75,
        area="small",
    )


def test_round_trip_with_paths_relative_to_the_session(tmp_path):
    session = full_session(tmp_path)
    target = tmp_path / "sessions" / "mine.json"
    write_session(target, session)
    data = json.loads(target.read_text())
    assert list(data)[:2] == ["format", "version"]
    assert (data["format"], data["version"]) == (FORMAT, VERSION)
    assert data["dataset"] == "../data/VOCdevkit/VOC2012"
    assert data["result_sets"] == [["../runs/a/x.txt", "../runs/a/y.txt"], ["../b"]]
    assert looks_like_session(target)
    back, problems = read_session(target)
    assert problems == []
    assert back == session


def test_moving_the_session_with_its_data_keeps_it_working(tmp_path):
    old = tmp_path / "old"
    write_session(old / "s.json", full_session(old))
    (old).rename(tmp_path / "new")
    back, _ = read_session(tmp_path / "new" / "s.json")
    assert back.dataset == tmp_path / "new" / "data" / "VOCdevkit" / "VOC2012"


def test_never_written_inside_a_protected_folder(tmp_path):
    dataset = tmp_path / "VOCdevkit"
    dataset.mkdir()
    with pytest.raises(OutputError, match="refusing to write inside"):
        write_session(dataset / "s.json", full_session(tmp_path), [dataset])
    assert not (dataset / "s.json").exists()


@pytest.mark.parametrize(
    ("text", "element", "words"),
    [
        ("{not json", None, "not valid JSON"),
        ("[1, 2]", None, "expected a session object"),
        ('{"format": "something-else", "version": 1}', "format", "not a vocviewer session"),
        (f'{{"format": "{FORMAT}", "version": {VERSION + 1}, "dataset": "d"}}', "version", "newer"),
        (f'{{"format": "{FORMAT}", "version": "1", "dataset": "d"}}', "version", "reads session"),
        (f'{{"format": "{FORMAT}", "version": 1}}', "dataset", "dataset's path"),
        (f'{{"format": "{FORMAT}", "version": 1, "dataset": 7}}', "dataset", "dataset's path"),
    ],
)
def test_what_is_no_session_is_refused_naming_file_and_json_path(tmp_path, text, element, words):
    path = tmp_path / "s.json"
    path.write_text(text)
    with pytest.raises(FormatError) as caught:
        read_session(path)
    assert caught.value.path == path and caught.value.element == element
    assert words in str(caught.value) and str(path) in str(caught.value)


def test_a_folder_or_a_huge_file_is_refused(tmp_path):
    with pytest.raises(FormatError, match="regular file"):
        read_session(tmp_path)
    big = tmp_path / "big.json"
    big.write_text(f'{{"format": "{FORMAT}", "pad": "{"x" * (1 << 20)}"}}')
    assert looks_like_session(big)
    with pytest.raises(FormatError, match="limit"):
        read_session(big)


def test_bad_values_are_dropped_one_by_one_with_their_json_path(tmp_path):
    path = tmp_path / "s.json"
    data = {
        "format": FORMAT,
        "version": VERSION,
        "dataset": "VOC2012",
        "result_sets": [["a.txt", 5], "b.txt", [], ["c"]],
        "current_result_set": 9,
        "class": 3,
        "image_filter": {"text": "x", "flags": "difficult", "by_errors": "yes"},
        "image": "2012_000019",
        "view": {"score_threshold": 1.5, "mode": "fp", "toggles": {"show_gt": "no", "a": True}},
        "evaluation": {"iou": "high", "area": "small"},
    }
    path.write_text(json.dumps(data))
    session, problems = read_session(path)
    where = sorted(p.element for p in problems)
    assert where == sorted(
        [
            "result_sets[0][1]",
            "result_sets[1]",
            "result_sets[2]",
            "current_result_set",
            "class",
            "image_filter.flags",
            "image_filter.by_errors",
            "view.score_threshold",
            "view.toggles.show_gt",
            "evaluation.iou",
        ]
    )
    assert all(p.path == path and "ignored" in p.message for p in problems)
    # what was good is kept
    assert session.result_sets == ((tmp_path / "a.txt",), (tmp_path / "c",))
    assert session.image_filter == ImageListFilter("x", (), "", False)
    assert (session.image, session.view_mode, session.area) == ("2012_000019", "fp", "small")
    assert session.toggles == {"a": True}  # unknown names are the window's to judge
    assert session.score_threshold is None and session.iou is None and session.class_name is None


def test_looks_like_session_only_for_marked_json(tmp_path):
    coco = tmp_path / "instances.json"
    coco.write_text('{"images": [], "annotations": [], "categories": []}')
    txt = tmp_path / "s.txt"
    txt.write_text(f'{{"format": "{FORMAT}"}}')
    assert not looks_like_session(coco)
    assert not looks_like_session(txt)
    assert not looks_like_session(tmp_path)
    assert not looks_like_session(tmp_path / "missing.json")
