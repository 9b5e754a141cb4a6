"""View ▸ Thumbnail grid on the real window: it lists the visible images in order, follows the
filters and the current image, opens an image on click or Enter, draws each image's boxes in the
image view's colours with its error counts, and decodes thumbnails (in a worker) into a cache
that keeps to its byte budget.

Tiny set (conftest): three 200 x 150 images, img3's file missing. At the default threshold 0.5,
img1 has the dog duplicate (1 FP), img2 the dog FP at 0.6 (1 FP), img3 nothing wrong.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QWidget

from vocviewer.core.dataset import VOC_CLASSES, Dataset, ImageTable, ObjectTable, PartTable
from vocviewer.gui.models.thumbnails import (
    ThumbnailCache,
    ThumbnailLoader,
    Unreadable,
    decode_thumbnail,
)
from vocviewer.gui.panes.browse.thumbnail_grid import AHEAD, BEHIND, THUMB_H, THUMB_W, errors_text
from vocviewer.gui.widgets.verdict_style import GT_COLOR

TINY_COLOUR = (90, 120, 150)  # every tiny image is this one colour


def open_grid(qtbot, win):
    """Show the grid (Ctrl+G, as a user would) and wait for its thumbnails."""
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=5000)
    qtbot.keyClick(win, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    grid = win.image_area.grid
    assert win.image_area.currentWidget() is grid and win.image_area.act_grid.isChecked()
    qtbot.waitUntil(lambda: all(grid.loader.has(int(i)) for i in win.state.visible_images))
    return grid


def ids_of(grid) -> list[str]:
    return [grid.model_.index(r).data() for r in range(grid.model_.rowCount())]


def cell_image(grid, row: int) -> QImage:
    QApplication.processEvents()
    rect = grid.visualRect(grid.model_.index(row))
    return grid.viewport().grab(rect).toImage()


def colours(image: QImage) -> set[tuple[int, int, int]]:
    return {
        image.pixelColor(x, y).getRgb()[:3]
        for x in range(image.width())
        for y in range(image.height())
    }


def near(found: set[tuple[int, int, int]], color: QColor, tol: int = 12) -> bool:
    c = np.array(color.getRgb()[:3])
    return any(int(np.abs(np.array(f) - c).max()) <= tol for f in found)


def test_grid_lists_the_visible_images_and_follows_the_filters(qtbot, window):
    window.browser.search.setText("img2")  # while the grid is hidden
    grid = open_grid(qtbot, window)
    assert ids_of(grid) == ["img2"]
    window.browser.search.clear()
    assert ids_of(grid) == ["img1", "img2", "img3"]
    window.state.select_class(VOC_CLASSES.index("cat"))  # only img2 has a cat
    assert ids_of(grid) == ["img2"]
    window.state.select_class(-1)
    window.browser.search.setText("3")
    assert ids_of(grid) == ["img3"]
    window.browser.search.clear()
    window.browser.sort_action.setChecked(True)  # by errors, most first (stable): same order
    assert ids_of(grid) == ["img1", "img2", "img3"]
    window.browser.error_actions["fp"].setChecked(True)
    assert ids_of(grid) == ["img1", "img2"]


def test_grid_follows_the_current_image_and_selects_it(qtbot, window):
    grid = open_grid(qtbot, window)
    window.state.set_current_image(2)
    assert grid.currentIndex().row() == 2
    assert grid.selectionModel().isSelected(grid.model_.index(2))
    window.display.act_prev.trigger()  # the detection walk / image stepping moves the grid too
    assert grid.currentIndex().row() == 1
    grid.setFocus()
    qtbot.keyClick(grid, Qt.Key.Key_Home)  # moving in the grid sets the current image
    assert window.state.current_image == 0
    assert window.image_area.currentWidget() is grid  # ...without leaving the grid


def test_click_opens_the_image(qtbot, window):
    grid = open_grid(qtbot, window)
    centre = grid.visualRect(grid.model_.index(1)).center()
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert window.state.current_image == 1
    assert window.image_area.currentWidget() is window.view
    assert not window.image_area.act_grid.isChecked()
    qtbot.waitUntil(lambda: window.view.shown_image == 1, timeout=5000)


def test_enter_opens_the_image(qtbot, window):
    grid = open_grid(qtbot, window)
    grid.setCurrentIndex(grid.model_.index(2))
    qtbot.keyClick(grid, Qt.Key.Key_Return)
    assert window.state.current_image == 2
    assert window.image_area.currentWidget() is window.view


def test_cells_show_pixels_boxes_in_the_view_colours_and_error_counts(qtbot, window):
    grid = open_grid(qtbot, window)
    # the counts, worked out by hand from the tiny detections (module docstring)
    assert [errors_text(grid.errors, i) for i in range(3)] == ["1 FP", "1 FP", ""]
    window.state.set_current_image(2)  # img1 and img2 unselected: plain cells
    qtbot.wait(20)
    assert near(colours(cell_image(grid, 0)), QColor(*TINY_COLOUR), 2)  # the decoded picture
    window.state.set_current_image(0)
    qtbot.waitUntil(lambda: window.view.shown_image == 0, timeout=5000)
    items = window.view.overlay_items("det") + window.view.overlay_items("gt")
    view_pens = {item.pen().color().name() for item in items}
    window.state.set_current_image(2)
    qtbot.wait(20)
    first = colours(cell_image(grid, 0))
    assert len(view_pens) >= 3  # GT, TP, duplicate (and the ignored person)
    for pen in view_pens:
        assert near(first, QColor(pen)), pen
    red = QColor("#d93025")  # the error tag
    assert near(first, red, 20)
    last = colours(cell_image(grid, 2))  # img3: file missing, a stand-in, boxes, no tag
    assert not near(last, QColor(*TINY_COLOUR), 2)
    assert near(last, GT_COLOR) and not near(last, red, 20)
    assert grid.loader.lookup(2) == Unreadable("no such file (or a dangling symbolic link)", True)


def test_boxes_follow_the_threshold_and_toggles(qtbot, window):
    grid = open_grid(qtbot, window)
    before = len(grid.boxes_of(0)[0])  # img1: 2 GT + dog TP, duplicate, ignored person
    assert before == 5
    window.state.set_threshold(0.85)  # only the 0.9 dog TP is drawn
    assert len(grid.boxes_of(0)[0]) == 3
    window.state.set_display("show_gt", False)
    assert len(grid.boxes_of(0)[0]) == 1
    assert [errors_text(grid.errors, i) for i in range(3)] == ["", "", "1 missed"]


def test_unknown_dataset_size_is_read_from_the_file(tmp_path: Path):
    path = tmp_path / "big.jpg"
    Image.new("RGB", (640, 480), (200, 10, 10)).save(path, quality=90)
    thumb = decode_thumbnail(path, THUMB_W, THUMB_H)
    assert (thumb.width, thumb.height) == (640, 480)
    assert (thumb.image.width(), thumb.image.height()) == (160, 120)
    crisp = decode_thumbnail(path, THUMB_W, THUMB_H, ratio=2.0)  # a scale factor of 2
    assert (crisp.image.width(), crisp.image.height()) == (320, 240)
    assert crisp.image.devicePixelRatio() == 2.0
    r, g, b = crisp.image.pixelColor(100, 100).getRgb()[:3]
    assert abs(r - 200) < 8 and g < 30 and b < 30
    tall = tmp_path / "tall.png"
    Image.new("L", (100, 400), 128).save(tall)  # grey PNG: converted, never enlarged
    thumb = decode_thumbnail(tall, THUMB_W, THUMB_H)
    assert (thumb.image.width(), thumb.image.height()) == (30, 120)


def test_cache_keeps_to_its_byte_budget_least_recently_used_first(tmp_path: Path):
    path = tmp_path / "a.jpg"
    Image.new("RGB", (200, 150), TINY_COLOUR).save(path)
    one = decode_thumbnail(path, THUMB_W, THUMB_H)
    assert one.nbytes == 160 * 120 * 4  # 32-bit pixels, scaled to fit 160 x 120
    cache = ThumbnailCache(max_bytes=int(2.5 * one.nbytes))
    for key in "abc":
        cache.put(key, decode_thumbnail(path, THUMB_W, THUMB_H))
    assert len(cache) == 2 and "a" not in cache and cache.nbytes == 2 * one.nbytes
    assert cache.get("b") is not None  # b used: c is now the oldest
    cache.put("d", one)
    assert "c" not in cache and "b" in cache and "d" in cache
    cache.set_max_bytes(one.nbytes)
    assert len(cache) == 1 and "d" in cache and cache.nbytes <= cache.max_bytes
    cache.put("huge", one)  # replaces d; a thumbnail over the whole budget is not kept
    cache.set_max_bytes(one.nbytes - 1)
    cache.put("x", one)
    assert len(cache) == 0 and cache.nbytes == 0


def many_images(root: Path, n: int, files: int) -> Dataset:
    """``n`` 200 x 150 images, the first ``files`` of them on disk, no objects."""
    paths = tuple(root / f"im{i:05d}.jpg" for i in range(n))
    for path in paths[:files]:
        Image.new("RGB", (200, 150), TINY_COLOUR).save(path)
    empty = np.zeros(0, dtype=np.int64)
    objects = ObjectTable(
        image_index=empty,
        label=empty,
        box=np.zeros((0, 4)),
        difficult=np.zeros(0, bool),
        truncated=np.zeros(0, bool),
        occluded=np.zeros(0, bool),
        pose=np.zeros(0, np.int8),
        order_in_image=empty,
        actions=np.zeros((0, 0), bool),
    )
    images = ImageTable(
        id=np.array([p.stem for p in paths]),
        path=paths,
        width=np.full(n, 200),
        height=np.full(n, 150),
        segmented=np.zeros(n, bool),
    )
    return Dataset(
        name="many",
        root=root,
        year=2012,
        classes=VOC_CLASSES,
        box_convention="voc",
        images=images,
        objects=objects,
        parts=PartTable.empty(),
        image_sets={},
    )


def test_loader_cache_bound_is_respected_while_decoding(qtbot, tmp_path: Path):
    ds = many_images(tmp_path, 12, 12)
    budget = 5 * 160 * 120 * 4 + 100  # room for five thumbnails
    loader = ThumbnailLoader(THUMB_W, THUMB_H, budget)
    loader.set_dataset(ds)
    seen: list[int] = []
    loader.thumbnail_ready.connect(seen.append)
    loader.request(range(12))
    qtbot.waitUntil(lambda: len(seen) == 12, timeout=10_000)
    assert seen == list(range(12))  # in the requested order
    assert len(loader.cache) == 5 and loader.cache.nbytes <= budget
    assert [r for r in range(12) if loader.has(r)] == [7, 8, 9, 10, 11]  # the newest five
    loader.request([11, 10])  # cached: nothing to do
    assert not loader.busy()


def test_grid_of_twenty_thousand_decodes_only_what_is_on_screen(qtbot, make_window, tmp_path):
    n = 20_000
    win = make_window()
    ds = many_images(tmp_path, n, 40)
    win.state.set_dataset(ds)
    win.image_area.show_grid(True)
    grid = win.image_area.grid
    assert grid.model_.rowCount() == n
    on_screen = len(grid.visible_rows())
    assert 0 < on_screen < 100
    qtbot.waitUntil(lambda: not grid.loader.busy() and grid.loader.decoded > 0, timeout=10_000)
    # what is on screen, a screen ahead and none behind (at the top): never thousands
    assert on_screen <= grid.loader.decoded <= len(grid.visible_rows(AHEAD, BEHIND))
    assert len(grid.visible_rows(AHEAD, BEHIND)) < 3 * on_screen
    bar = grid.verticalScrollBar()
    bar.setValue(bar.maximum())  # to the end: the last cells are decoded (missing files)
    qtbot.waitUntil(lambda: grid.loader.has(n - 1), timeout=10_000)
    assert grid.visible_rows().stop == n
    assert isinstance(grid.loader.lookup(n - 1), Unreadable)
    assert grid.viewport().findChildren(QWidget) == []  # cells are painted, not widgets
