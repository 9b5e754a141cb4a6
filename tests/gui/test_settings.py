"""What the window remembers between runs (``settings_store``): a second window on the same
settings file comes back as the first was left; damaged or foreign values give defaults and one
message; file dialogs start at the last folder or beside the dataset."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from vocviewer.gui.models.display_settings import DISPLAY_TOGGLES
from vocviewer.gui.window.settings_store import SPLITTERS


@pytest.fixture
def ini(tmp_path) -> Path:
    return tmp_path / "vocviewer.ini"


@pytest.fixture
def start(make_window):
    """A window on the settings file ``ini`` (a fresh ``QSettings`` each time, as a new process
    would have), at ``size`` or its restored geometry."""

    return lambda ini, size=None: make_window(ini, size)


def messages(win) -> list[str]:
    return [win.messages.list.item(i).text() for i in range(win.messages.count())]


def test_settings_survive_a_restart(start, ini):
    first = start(ini)
    least = first.minimumSizeHint().width()  # the offscreen screen is 800 x 800: see below
    first.resize(least, 700)
    st = first.state
    first.splitter.setSizes([200, 420, 300])
    first.right.setSizes([300, 420])
    first.centre.setSizes([500, 200])
    st.set_threshold(0.35)
    st.set_display("show_labels", False)
    st.set_display("show_masks", False)
    st.set_view_mode("fp")
    st.evaluation.set_iou(0.75)
    first.protocol.area_combo.setCurrentIndex(first.protocol.area_combo.findData("small"))
    st.evaluation.set_area("small")
    first.protocol.act_seg.setChecked(True)
    first.protocol.seg_combo.setCurrentIndex(first.protocol.seg_combo.findData("object"))
    first.protocol.seg_opacity.setValue(0.7)
    left = {name: getattr(first, name).sizes() for name in SPLITTERS}
    first.close()  # saves

    second = start(ini)  # no size given: the restored geometry counts
    st2 = second.state
    # the offscreen screen is narrower than the window's least width: Qt fits a restored window
    # to the screen, then the least width applies; so the first window is left that wide
    assert (second.width(), second.height()) == (least, 700)
    for name in ("splitter", "right", "centre"):
        assert getattr(second, name).sizes() == left[name], name
    assert st2.score_threshold == 0.35
    assert second.display.threshold_spin.value() == 0.35  # the toolbar shows it too
    assert (st2.show_labels, st2.show_masks, st2.show_gt) == (False, False, True)
    assert not second.display.toggle_actions["show_labels"].isChecked()
    assert st2.view_mode == "fp" and second.display.mode_combo.currentData() == "fp"
    # protocol deviations are not remembered: the next dataset opens at its official choice
    assert st2.evaluation.iou == 0.5 and second.protocol.iou_combo.currentData() == 0.5
    assert st2.evaluation.area == "all" and second.protocol.area_combo.currentData() == "all"
    assert (
        second.protocol.act_seg.isChecked() and second.protocol.seg_combo.currentData() == "object"
    )
    assert second.protocol.seg_opacity.value() == pytest.approx(0.7)
    assert messages(second) == []


def test_a_window_without_settings_remembers_nothing(start, make_window, ini):
    first = start(ini)
    first.state.set_threshold(0.8)
    first.close()
    plain = make_window()  # MainWindow(): tests, benchmarks and screenshots
    assert plain.state.score_threshold == 0.5
    plain.state.set_threshold(0.1)
    plain.close()
    assert start(ini).state.score_threshold == 0.8


FOREIGN = {
    "window/geometry": "hello",
    "window/state": "7",
    "window/splitter_main": "[1, 2]",
    "window/splitter_right": "not json",
    "view/score_threshold": "banana",
    "view/mode": "sideways",
    "view/toggles": '{"show_gt": "yes", "show_nothing": true}',
    "view/segmentation": '{"on": true, "kind": "plasma", "opacity": 0.5}',
    "evaluation/iou": "0.33",
    "evaluation/area": "tiny",
}


def test_foreign_values_give_defaults_and_one_message_naming_them(start, ini):
    s = QSettings(str(ini), QSettings.Format.IniFormat)
    for key, value in FOREIGN.items():
        s.setValue(key, value)
    s.setValue("view/score_threshold", "nan")
    s.sync()
    win = start(ini)
    st = win.state
    assert st.score_threshold == 0.5 and st.view_mode == "all"
    assert all(getattr(st, name) for name in DISPLAY_TOGGLES)
    assert (st.evaluation.iou, st.evaluation.area) == (0.5, "all")
    assert not win.protocol.act_seg.isChecked()
    (text,) = messages(win)
    assert str(ini) in text and "defaults" in text
    for key in FOREIGN:
        if not key.startswith("evaluation/"):  # no longer settings: dropped, not reported
            assert key in text, key
    assert win.status.problems_button.isVisible()  # the message is counted in the status bar


def test_a_damaged_settings_file_gives_defaults_and_is_written_anew(start, ini):
    ini.write_bytes(
        b"\x00\xff[[[view\nscore_threshold=0.2\n=\n[window\x00]\ngeometry=@ByteArray(\x01"
    )
    win = start(ini)
    assert win.state.score_threshold in (0.5, 0.2)  # a readable line may survive; no crash
    win.state.set_threshold(0.4)
    win.close()
    assert start(ini).state.score_threshold == 0.4


def test_settings_are_not_saved_into_the_open_dataset(start, demo, qtbot):
    ini = demo.year_dir / "vocviewer.ini"  # an odd configuration folder inside the dataset
    win = start(ini)
    win.open_dataset(demo.year_dir, (), "val")
    qtbot.waitUntil(lambda: win.state.dataset is not None and win.state.is_idle(), timeout=20_000)
    win.close()
    assert not ini.exists()
    assert any("Settings not saved" in m and "refusing" in m for m in messages(win))


def test_file_dialogs_start_beside_the_dataset_then_at_the_last_folder(
    start, ini, demo, qtbot, monkeypatch, tmp_path
):
    from PySide6.QtWidgets import QFileDialog

    asked: list[tuple[str, str]] = []
    answers = iter([str(tmp_path), ""])

    def choose_dir(_parent, title, folder):
        asked.append((title, folder))
        return next(answers)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(choose_dir))
    win = start(ini)
    win.open_dataset(demo.year_dir, (), "val")
    qtbot.waitUntil(lambda: win.state.dataset is not None and win.state.is_idle(), timeout=20_000)
    win.opening.choose_results_folder()  # answers tmp_path (no results there: an error message, fine)
    assert Path(asked[0][1]) == demo.devkit  # beside the year folder, not the working folder
    qtbot.waitUntil(lambda: win.state.is_idle(), timeout=20_000)
    win.close()
    again = start(ini)
    again.open_dataset(demo.year_dir, (), "val")
    qtbot.waitUntil(lambda: again.state.dataset is not None, timeout=20_000)
    again.opening.choose_results_folder()
    assert Path(asked[1][1]) == tmp_path.parent  # the last results folder's folder, remembered
    export_start = again.folders.start("export", writable=True)
    assert Path(export_start) == demo.devkit.parent  # outside every folder of the dataset


def test_a_remembered_value_hook_round_trips(start, ini):
    """The hook View ▸ Theme uses: ``remember(key, read, apply)``."""
    chosen = {"theme": "dark"}

    def apply(value):
        if value not in ("light", "dark", "system"):
            return False
        chosen["theme"] = value
        return True

    win = start(ini)
    win.window_settings.remember("view/theme", lambda: chosen["theme"], apply)
    win.close()
    chosen["theme"] = "system"
    again = start(ini)
    again.window_settings.remember("view/theme", lambda: chosen["theme"], apply)
    assert chosen["theme"] == "dark"
    s = QSettings(str(ini), QSettings.Format.IniFormat)
    s.setValue("view/theme", '"purple"')
    s.sync()
    third = start(ini)
    third.window_settings.remember("view/theme", lambda: chosen["theme"], apply)
    assert any("view/theme" in m for m in messages(third))
