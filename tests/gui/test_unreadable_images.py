"""An image file the reader refuses (``FormatError``): the placeholder says the reader's own
reason, the message area names the file, and neighbour prefetch goes on past it."""

from __future__ import annotations

from pathlib import Path

from tests.gui.conftest import make_tiny
from vocviewer.gui.panes.image.view import _decode_each


def test_prefetch_goes_past_a_refused_file(tmp_path: Path) -> None:
    dataset, _ = make_tiny(tmp_path)
    dataset.images.path[0].write_bytes(b"not a picture at all")
    assert [row for row, _ in _decode_each(dataset, [0, 1, 2], None)] == [1]  # img3 is missing


def test_placeholder_and_message_give_the_readers_reason(qtbot, make_window, tmp_path) -> None:
    dataset, results = make_tiny(tmp_path)
    bad = dataset.images.path[0]
    bad.write_bytes(b"not a picture at all")
    win = make_window()
    posted: list = []
    win.state.messages_posted.connect(posted.extend)
    win.state.set_dataset(dataset)
    with qtbot.waitSignal(win.state.evaluation.finished, timeout=10_000):
        win.state.add_result_set(results)
    qtbot.waitUntil(lambda: win.view.shown_image == win.state.current_image == 0, timeout=5000)
    from PySide6.QtWidgets import QGraphicsSimpleTextItem

    items = win.view.scene().items()
    texts = [i.text() for i in items if isinstance(i, QGraphicsSimpleTextItem)]
    shown = next(t for t in texts if t.startswith("Cannot read image: "))
    assert "cannot be read as an image" in shown and str(bad) in shown
    hits = [m for m in posted if str(bad) in m.text]
    assert len(hits) == 1 and hits[0].level == "warning"
    assert "cannot be read as an image" in hits[0].text
