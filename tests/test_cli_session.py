"""``vocviewer open SESSION.json``: the window on a saved session (offscreen, ``--screenshot``),
and a clear error for a session file it cannot open."""

from __future__ import annotations

import json

import pytest

from vocviewer.cli import gui_main, main
from vocviewer.formats.session import FORMAT, VERSION


@pytest.fixture
def session_file(demo, tmp_path):
    """A session beside (not inside) the demo: two result sets, the train set browsed, one
    unusable value (the threshold)."""
    det = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    other = tmp_path / "weaker"
    other.mkdir()
    for f in det:
        (other / f.name.replace("comp4", "comp3")).write_text(
            "\n".join(f.read_text().splitlines()[::3]) + "\n"
        )
    path = tmp_path / "my-session.json"
    session = {
        "format": FORMAT,
        "version": VERSION,
        "dataset": str(demo.year_dir),  # an absolute path is kept as it is
        "result_sets": [[str(p) for p in det], ["weaker"]],
        "current_result_set": 1,
        "image_set": "train",
        "class": "dog",
        "view": {"score_threshold": "high", "mode": "fp"},
    }
    path.write_text(json.dumps(session))
    return path


def test_open_a_session_with_a_screenshot(qapp, demo, session_file, tmp_path, capsys):
    from vocviewer.gui.window.recent import RecentFiles, default_settings

    shot = tmp_path / "shot.png"
    assert main(["open", str(session_file), "--screenshot", str(shot)]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(shot)
    assert f"{session_file} (view.score_threshold)" in err and "warning" in err
    from PIL import Image

    with Image.open(shot) as im:
        assert im.width > 800 and im.height > 500
    # the window opened both result sets, in order, and browsed the session's image set: the
    # recent list (the user's settings file) says so
    top = RecentFiles(default_settings()).entries()[0]
    assert top.dataset == str(demo.year_dir)
    assert top.result_sets[1] == (str(tmp_path / "weaker"),)
    assert len(top.result_sets[0]) == 20 and top.image_set == "train"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            f'{{"format": "{FORMAT}", "version": 7, "dataset": "x"}}',
            "(version): written by a newer",
        ),
        (f'{{"format": "{FORMAT}", "version": 1, "dataset": ', "not valid JSON"),
        (
            f'{{"format": "{FORMAT}", "version": 1, "dataset": "missing"}}',
            "(dataset): no such dataset",
        ),
    ],
)
def test_a_session_that_cannot_be_opened_is_an_error_naming_it(qapp, tmp_path, capsys, text, words):
    path = tmp_path / "s.json"
    path.write_text(text)
    assert main(["open", str(path), "--screenshot", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("vocviewer: error: ") and words in err
    assert str(tmp_path) in err
    assert not (tmp_path / "x.png").exists()


def test_a_session_is_opened_alone(session_file, capsys):
    assert main(["open", str(session_file), "--image-set", "val"]) == 2
    assert "a session names its own dataset and results" in capsys.readouterr().err


def test_the_screenshot_never_replaces_the_session(session_file, capsys):
    before = session_file.read_bytes()
    assert main(["open", str(session_file), "--screenshot", str(session_file)]) == 1
    assert "refusing to overwrite the input" in capsys.readouterr().err
    assert session_file.read_bytes() == before


def test_the_gui_script_opens_a_session_too(qapp, session_file, tmp_path, capsys):
    shot = tmp_path / "gui.png"
    assert gui_main([str(session_file), "--screenshot", str(shot)]) == 0
    assert shot.stat().st_size > 10_000
    from vocviewer.gui.window.recent import RecentFiles, default_settings

    top = RecentFiles(default_settings()).entries()[0]  # the session's sets and image set
    assert top.result_sets[1] == (str(tmp_path / "weaker"),) and top.image_set == "train"
    assert capsys.readouterr().out.strip() == str(shot)
