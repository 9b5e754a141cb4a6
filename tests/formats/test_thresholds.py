"""Deployment thresholds in (``formats.thresholds``): what ``vocviewer analyze
--deploy-thresholds`` writes reads back; anything else is a ``FormatError`` naming the file, the
entry and what was expected; a session keeps per-class thresholds in one optional key."""

from __future__ import annotations

import json

import pytest

from vocviewer.cli import main
from vocviewer.core.errors import FormatError
from vocviewer.formats.session import FORMAT, VERSION, Session, read_session, write_session
from vocviewer.formats.thresholds import ClassThresholds, read_thresholds


def test_what_analyze_writes_reads_back(demo, tmp_path, capsys):
    out = tmp_path / "t.json"
    argv = ["analyze", str(demo.year_dir), "--results", str(demo.results_dir)]
    assert main([*argv, "--deploy-thresholds", str(out)]) == 0
    capsys.readouterr()
    assert read_thresholds(out) == json.loads(out.read_text())


@pytest.mark.parametrize(
    ("text", "element", "words"),
    [
        ("{", None, "not valid JSON"),
        ("[0.5]", None, "expected a JSON object of class name -> score threshold"),
        ("{}", None, "found an empty object"),
        ('{"dog": 1.5}', "dog", "from 0 to 1 (or null), found 1.5"),
        ('{"dog": "high"}', "dog", 'found "high"'),
        ('{"dog": true}', "dog", "found true"),
        ('{"dog": NaN}', "dog", "found NaN"),
    ],
)
def test_a_bad_file_names_itself_the_entry_and_what_was_expected(tmp_path, text, element, words):
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(FormatError) as e:
        read_thresholds(path)
    assert e.value.path == path and e.value.element == element
    assert words in str(e.value) and str(path) in str(e.value)


def test_a_missing_file_or_a_folder_is_a_format_error(tmp_path):
    for path in (tmp_path / "none.json", tmp_path):
        with pytest.raises(FormatError) as e:
            read_thresholds(path)
        assert str(path) in str(e.value)


def test_a_session_keeps_the_thresholds_and_drops_bad_ones_with_their_path(tmp_path):
    ct = ClassThresholds({"dog": 0.4, "cat": None}, -0.05, "best F1 of comp4")
    session = Session(dataset=tmp_path / "VOC2012", score_threshold=0.3, class_thresholds=ct)
    target = tmp_path / "s.json"
    write_session(target, session)
    data = json.loads(target.read_text())
    assert data["version"] == VERSION and data["view"]["class_thresholds"] == {
        "thresholds": {"dog": 0.4, "cat": None},
        "offset": -0.05,
        "source": "best F1 of comp4",
    }
    back, problems = read_session(target)
    assert problems == [] and back == session
    # without the key: one threshold for all (sessions written before keep reading)
    del data["view"]["class_thresholds"]
    target.write_text(json.dumps(data))
    assert read_session(target)[0].class_thresholds is None
    for bad, where in (
        ({"thresholds": {"dog": 2}}, "view.class_thresholds.thresholds.dog"),
        ({"thresholds": []}, "view.class_thresholds.thresholds"),
        ([1], "view.class_thresholds"),
    ):
        data["view"]["class_thresholds"] = bad
        target.write_text(json.dumps({**data, "format": FORMAT}))
        back, problems = read_session(target)
        assert back.class_thresholds is None and back.score_threshold == 0.3
        assert [p.element for p in problems] == [where] and "ignored" in problems[0].message
    data["view"]["class_thresholds"] = {"thresholds": {"dog": 0.5}, "offset": 3}
    target.write_text(json.dumps(data))
    back, problems = read_session(target)
    assert back.class_thresholds == ClassThresholds({"dog": 0.5}, 0.0, "")
    assert [p.element for p in problems] == ["view.class_thresholds.offset"]
