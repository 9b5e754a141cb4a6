"""Tags in session files (``formats.session`` version 2): written and read back whole, version 1
files migrated (no tags), bad tag entries dropped one by one with their JSON path."""

from __future__ import annotations

import json

from vocviewer.core.tags import Fix, TagEntry, Tags, Target
from vocviewer.formats.session import FORMAT, VERSION, Session, read_session, write_session


def tagged() -> Tags:
    tags = Tags()
    tags = tags.toggle(Target("image", "2012_000001"), "ambiguous")
    tags = tags.with_note(Target("image", "2012_000001"), "  blurred, hard to tell  ")
    tags = tags.toggle(Target("object", "2012_000002", 1), "wrong class", Fix("relabel", "cat"))
    loose = Fix("rebox", None, (10.0, 20.5, 30.0, 40.0))
    tags = tags.toggle(Target("object", "2012_000002", 0), "loose box", loose)
    add = Fix("add", "dog", (1.0, 2.0, 3.0, 4.0))
    return tags.toggle(Target("detection", "2012_000003", 17, 1), "missing annotation", add)


def test_tags_round_trip(tmp_path):
    session = Session(dataset=tmp_path / "VOC2012", tags=tagged())
    target = tmp_path / "s.json"
    write_session(target, session)
    data = json.loads(target.read_text())
    assert data["version"] == VERSION >= 2  # tags since version 2
    assert [e["kind"] for e in data["tags"]] == ["image", "object", "object", "detection"]
    back, problems = read_session(target)
    assert problems == []
    assert back == session
    assert back.tags.get(Target("image", "2012_000001")).note == "blurred, hard to tell"


def test_a_version_1_session_is_migrated_without_tags(tmp_path):
    path = tmp_path / "old.json"
    old = {"format": FORMAT, "version": 1, "dataset": "VOC2012", "image": "2012_000019"}
    old["tags"] = [{"kind": "image", "image": "x", "tags": ["ambiguous"]}]  # not a v1 key
    path.write_text(json.dumps(old))
    session, problems = read_session(path)
    assert problems == []
    assert session.image == "2012_000019" and len(session.tags) == 0
    write_session(path, session)  # saved again: the current version
    assert json.loads(path.read_text())["version"] == VERSION


def test_bad_tag_entries_are_dropped_with_their_json_path(tmp_path):
    path = tmp_path / "s.json"
    good = {"kind": "object", "image": "a", "index": 0, "tags": ["loose box"]}
    data = {
        "format": FORMAT,
        "version": VERSION,
        "dataset": "VOC2012",
        "tags": [
            5,
            {"kind": "box", "image": "a"},
            {"kind": "image", "image": 3},
            {"kind": "detection", "image": "a", "index": 2},
            {"kind": "object", "image": "a", "index": -1},
            {"kind": "image", "image": "b", "tags": "ambiguous"},
            {**good, "fix": {"action": "paint"}},
            {**good, "index": 1, "fix": {"action": "rebox", "box": [1, 2, "x", 4]}},
            good,
        ],
    }
    path.write_text(json.dumps(data))
    session, problems = read_session(path)
    assert [p.element for p in problems] == [
        "tags[0]",
        "tags[1].kind",
        "tags[2].image",
        "tags[3].result_set",
        "tags[4].index",
        "tags[5].tags",
        "tags[6].fix",
        "tags[7].fix.box",
    ]
    assert all(str(path) in str(p) for p in problems)
    assert session.tags.get(Target("object", "a", 0)) == TagEntry(
        Target("object", "a", 0), ("loose box",)
    )
    assert session.tags.get(Target("object", "a", 1)).fix is None  # kept, its bad fix dropped
