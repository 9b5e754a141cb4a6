"""``vocviewer.show`` from a plain script (a subprocess, as a user runs one) and in-process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vocviewer.core.tags import Target
from vocviewer.gui.window.show import WindowHandle, show

SCRIPT = """
import json, sys
import vocviewer

handle = vocviewer.show(
    sys.argv[1], results=[sys.argv[2]], filter={"errors": "fp"}, image=sys.argv[3], block=False
)
ready = handle.wait_until_ready(timeout=120)
print(json.dumps({"ready": ready, "selected": handle.selected, "view": handle.view}))
handle.close()
"""


def test_a_plain_script_opens_the_window_and_reads_what_it_shows(demo, tmp_path, private_settings):
    script = tmp_path / "look.py"
    script.write_text(textwrap.dedent(SCRIPT), encoding="utf-8")
    results = demo.result_sets[0]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(private_settings)}
    done = subprocess.run(
        [sys.executable, str(script), str(demo.year_dir), str(results), "2012_000003"],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["ready"] is True
    assert out["selected"]["image"] == "2012_000003"
    view = out["view"]
    assert Path(view["dataset"]) == demo.year_dir.resolve()
    assert [Path(p) for p in view["result_sets"][0]] == [results]
    assert view["image_filter"]["errors"] == "fp"


def test_show_returns_a_live_handle_when_not_blocking(qtbot, demo):
    handle = show(demo.year_dir, results=demo.result_sets[0], block=False)
    assert isinstance(handle, WindowHandle)
    try:
        assert handle.wait_until_ready(timeout=120)
        st = handle.window.state
        st.select_class(st.dataset.classes.index("car"))
        st.set_current_image(1)
        picked = handle.selected
        assert picked["class"] == "car"
        assert picked["image"] == str(st.dataset.images.id[1])
        assert handle.view["class_name"] == "car"
        assert handle.tags == []
        image = st.dataset.images.id[1]
        handle.window.curation.tags.toggle(Target("image", str(image)), "label error")
        assert [(t["image"], t["tag"]) for t in handle.tags] == [(str(image), "label error")]
    finally:
        handle.close()


def test_a_filter_with_an_unknown_field_is_refused_before_a_window_opens(demo):
    with pytest.raises(ValueError, match="unknown filter field"):
        show(demo.year_dir, filter={"confidence": 0.5}, block=False)


BLOCKING = """
import json, sys
from PySide6.QtCore import QTimer
import vocviewer
from vocviewer.gui.window.app import make_app, shows_everything

app = make_app()


def act_then_close():  # the user: picks the third image, then closes the window
    windows = [w for w in app.topLevelWidgets() if type(w).__name__ == "MainWindow"]
    if windows and shows_everything(windows[0]):
        windows[0].state.set_current_image(2)
        windows[0].close()
    else:
        QTimer.singleShot(100, act_then_close)


QTimer.singleShot(100, act_then_close)
handle = vocviewer.show(sys.argv[1], results=sys.argv[2])  # a plain script: blocks until closed
print(json.dumps(handle.selected))
"""


def test_in_a_plain_script_show_blocks_until_the_window_closes(demo, tmp_path, private_settings):
    script = tmp_path / "block.py"
    script.write_text(textwrap.dedent(BLOCKING), encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(private_settings)}
    done = subprocess.run(
        [sys.executable, str(script), str(demo.year_dir), str(demo.result_sets[0])],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    selected = json.loads(done.stdout.strip().splitlines()[-1])
    assert selected["image"] == "2012_000003"  # where the user left off, read after closing


def test_per_class_files_given_one_by_one_are_one_set_as_in_open(qtbot, demo):
    """A VOC competition's per-class files, listed as a shell expands ``Main/comp4_det_*``, are
    one result set (``registry.result_sets_of``, as ``vocviewer open --results`` groups them)."""
    files = sorted((demo.results_dir / "Main").glob("comp4_det_val_*.txt"))
    assert len(files) == 20
    handle = show(demo.year_dir, results=files, block=False)
    try:
        assert handle.wait_until_ready(timeout=120)
        assert len(handle.view["result_sets"]) == 1
        assert sorted(handle.view["result_sets"][0]) == [str(f) for f in files]
    finally:
        handle.close()
